// From settings to each module's options: the one place that knows both names.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { CometBftEngineOptions } from "../engine/cometbft/options.js";
import type { SoloEngineOptions } from "../engine/solo/options.js";
import type { StreamOptions } from "../events/options.js";
import type { HttpOptions } from "../http/options.js";
import type { CheckpointOptions, LedgerOptions, PreparePoolOptions, WitnessOptions } from "../ledger/options.js";
import type { MetricsOptions } from "../metrics/options.js";
import { postgresStoreOptionsDefault, type PostgresStoreOptions } from "../store/postgres/options.js";
import { sqliteStoreOptionsDefault, type SqliteStoreOptions } from "../store/sqlite/options.js";
import { parseHostPort } from "./parseHostPort.js";
import type { Config } from "./schema.js";

/** The HTTP options that are settings; the rest (streams URL, version, docs) the node supplies. */
export type HttpSettings = Pick<
  HttpOptions,
  | "host"
  | "port"
  | "bodyBytesMax"
  | "searchLimitMax"
  | "listMax"
  | "requestTimeoutMs"
  | "expensiveReadsMax"
  | "pipelinedRequestsMax"
  | "explorer"
>;

export interface ModuleOptions {
  readonly http: HttpSettings;
  readonly stream: StreamOptions;
  readonly ledger: LedgerOptions;
  readonly preparePool: PreparePoolOptions;
  readonly soloEngine: SoloEngineOptions;
  /** The settings of the CometBFT engine; its limits keep their module defaults. */
  readonly cometBftEngine: Pick<CometBftEngineOptions, "abciHost" | "abciPort" | "rpcUrl" | "commitTimeoutMs" | "chainId" | "retainBlocks" | "snapshotIntervalBlocks" | "snapshotKeep" | "snapshotDir">;
  /** Which store the node keeps its ledger in (`database.backend`). */
  readonly storeBackend: Config["database"]["backend"];
  /** SQLite: the node's writes on a thread of their own (store/sqlite/threadedStore.ts). */
  readonly sqliteWriterThread: boolean;
  readonly sqliteStore: SqliteStoreOptions;
  /** The writer's options; a reader (an HTTP worker) opens with `access: "reader"`. */
  readonly postgresStore: PostgresStoreOptions;
  readonly metrics: MetricsOptions;
  readonly checkpoint: CheckpointOptions;
  readonly witness: WitnessOptions;
}

export function moduleOptions(config: Config): ModuleOptions {
  const bind = parseHostPort(config.server.bind);
  // loadConfig checked the formats; a Config that bypassed it is a bug.
  assert(bind !== null, "server.bind is HOST:PORT");
  const wsBind = parseHostPort(config.wsserver.bind);
  assert(wsBind !== null, "wsserver.bind is HOST:PORT");
  const abciBind = parseHostPort(config.engine.abci_bind);
  assert(abciBind !== null, "engine.abci_bind is HOST:PORT");
  const metricsBind = config.metrics.bind === "" ? null : parseHostPort(config.metrics.bind);
  assert(config.metrics.bind === "" || metricsBind !== null, "metrics.bind is empty or HOST:PORT");
  return {
    stream: {
      host: wsBind.host,
      port: wsBind.port,
      subscribersMax: config.wsserver.subscribers_max,
      sendQueueBytesMax: config.wsserver.send_queue_bytes_max,
      pingIntervalMs: config.wsserver.ping_interval_ms,
      clientMessageBytesMax: config.wsserver.client_message_bytes_max,
      closeGraceMs: config.wsserver.close_grace_ms,
    },
    http: {
      host: bind.host,
      port: bind.port,
      bodyBytesMax: config.server.body_bytes_max,
      searchLimitMax: config.server.search_limit_max,
      listMax: config.server.list_max,
      requestTimeoutMs: config.server.request_timeout_ms,
      expensiveReadsMax: config.server.expensive_reads_max,
      pipelinedRequestsMax: config.server.pipelined_requests_max,
      explorer: config.server.explorer,
    },
    ledger: {
      pendingTxsMax: config.ledger.pending_txs_max,
      preparedCacheEntriesMax: config.ledger.prepared_cache_entries_max,
      replayBatchBlocksMax: config.ledger.replay_batch_blocks_max,
    },
    preparePool: {
      threads: config.server.threads,
      batchTxsMax: config.ledger.prepare_batch_txs_max,
      sharedTxsMin: config.ledger.prepare_shared_txs_min,
    },
    soloEngine: {
      blockIntervalMs: config.engine.block_interval_ms,
      txsPerBlockMax: config.engine.txs_per_block_max,
      commitTimeoutMs: config.engine.commit_timeout_ms,
      chainId: config.engine.chain_id,
    },
    cometBftEngine: {
      abciHost: abciBind.host,
      abciPort: abciBind.port,
      rpcUrl: config.engine.rpc_url,
      commitTimeoutMs: config.engine.commit_timeout_ms,
      chainId: config.engine.chain_id,
      retainBlocks: config.engine.retain_blocks,
      snapshotIntervalBlocks: config.engine.snapshot_interval,
      snapshotKeep: config.engine.snapshot_keep,
      snapshotDir: join(config.data_dir, "snapshots"),
    },
    storeBackend: config.database.backend,
    sqliteWriterThread: config.database.writer_thread === "on" || (config.database.writer_thread === "auto" && config.engine.kind === "solo"),
    postgresStore: {
      url: config.database.url,
      poolSize: config.database.pool_size,
      statementTimeoutMs: config.database.statement_timeout_ms,
      connectTimeoutMs: config.database.connect_timeout_ms,
      searchWordsMax: config.database.search_words_max,
      searchRankedMatchesMax: config.database.search_ranked_matches_max,
      access: "writer",
      bulkLoadVacuumTxsMin: postgresStoreOptionsDefault.bulkLoadVacuumTxsMin,
    },
    sqliteStore: {
      path: config.database.path,
      synchronous: config.database.synchronous,
      cacheSizeBytes: config.database.cache_size_bytes,
      mmapSizeBytes: config.database.mmap_size_bytes,
      walAutocheckpointPages: config.database.wal_autocheckpoint_pages,
      checkpointIntervalMs: config.database.checkpoint_interval_ms,
      checkpointStartWalBytes: sqliteStoreOptionsDefault.checkpointStartWalBytes,
      journalSizeLimitBytes: config.database.journal_size_limit_bytes,
      searchWordsMax: config.database.search_words_max,
      searchRankedMatchesMax: config.database.search_ranked_matches_max,
      indexSlices: config.database.index_slices,
      indexRowsWaitingMax: config.database.index_rows_waiting_max,
      indexMergeRowsMax: config.database.index_merge_rows_max,
      // Not a setting: openStore turns it on for the store the ledger's checks run on.
      idFilter: false,
      readIndexes: config.database.read_indexes,
      // The node's process writes and lets read-only stores in: its HTTP workers, and `ledgerd
      // backup` / `verify-chain` beside the running node. The data folder's lock (ledgerd.lock),
      // and for a database outside it its own (`<database>.lock`), keep a second ledgerd off it.
      access: "readers",
    },
    metrics: { listen: metricsBind },
    checkpoint: { origin: config.checkpoint.origin, witnesses: config.checkpoint.witnesses, witnessQuorum: config.checkpoint.witness_quorum },
    witness: { logs: config.witness.logs, name: config.witness.name },
  };
}
