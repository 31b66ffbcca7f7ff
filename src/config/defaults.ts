// The default settings, taken from each module's own `*OptionsDefault` (STYLE rule 10: one
// source of defaults). Nothing here is a number of its own except what only the node has: the
// addresses, the process count and the log level. `moduleOptions(configDefault)` gives back the
// modules' defaults exactly (a test holds this).
import { basename, dirname } from "node:path";
import { cometBftEngineOptionsDefault, cometBftSupervisorOptionsDefault } from "../engine/cometbft/options.js";
import { soloEngineOptionsDefault } from "../engine/solo/options.js";
import { streamOptionsDefault } from "../events/options.js";
import { httpOptionsDefault } from "../http/options.js";
import { checkpointOptionsDefault, ledgerOptionsDefault, preparePoolOptionsDefault, witnessOptionsDefault } from "../ledger/options.js";
import { metricsOptionsDefault } from "../metrics/options.js";
import { postgresStoreOptionsDefault } from "../store/postgres/options.js";
import { sqliteStoreOptionsDefault } from "../store/sqlite/options.js";
import type { Config } from "./schema.js";

export const configDefault: Config = deepFreeze({
  // The store's default file is `data/ledgerd.sqlite`: its folder is the node's folder.
  data_dir: dirname(sqliteStoreOptionsDefault.path),
  log: { level: "info" },
  server: {
    bind: `${httpOptionsDefault.host}:${httpOptionsDefault.port}`,
    // One process: the ledger and HTTP share it. BigchainDB's Gunicorn default (2 * cores + 1)
    // does not apply: here verification runs on `threads`, and more processes only help HTTP.
    workers: 1,
    threads: preparePoolOptionsDefault.threads,
    body_bytes_max: httpOptionsDefault.bodyBytesMax,
    search_limit_max: httpOptionsDefault.searchLimitMax,
    list_max: httpOptionsDefault.listMax,
    request_timeout_ms: httpOptionsDefault.requestTimeoutMs,
    expensive_reads_max: httpOptionsDefault.expensiveReadsMax,
    pipelined_requests_max: httpOptionsDefault.pipelinedRequestsMax,
    explorer: httpOptionsDefault.explorer,
  },
  wsserver: {
    bind: `${streamOptionsDefault.host}:${streamOptionsDefault.port}`,
    // Empty: the stream's own bound address (BigchainDB's advertised_* default to wsserver's).
    advertised_url: "",
    subscribers_max: streamOptionsDefault.subscribersMax,
    send_queue_bytes_max: streamOptionsDefault.sendQueueBytesMax,
    ping_interval_ms: streamOptionsDefault.pingIntervalMs,
    client_message_bytes_max: streamOptionsDefault.clientMessageBytesMax,
    close_grace_ms: streamOptionsDefault.closeGraceMs,
  },
  database: {
    backend: "sqlite",
    // Relative to data_dir, so that the default is exactly the store's own default path.
    path: basename(sqliteStoreOptionsDefault.path),
    url: postgresStoreOptionsDefault.url,
    pool_size: postgresStoreOptionsDefault.poolSize,
    statement_timeout_ms: postgresStoreOptionsDefault.statementTimeoutMs,
    connect_timeout_ms: postgresStoreOptionsDefault.connectTimeoutMs,
    synchronous: sqliteStoreOptionsDefault.synchronous,
    // Only the node asks for it: an explicit "yes, I may lose committed blocks" (schema.ts).
    synchronous_off_acknowledged: false,
    cache_size_bytes: sqliteStoreOptionsDefault.cacheSizeBytes,
    mmap_size_bytes: sqliteStoreOptionsDefault.mmapSizeBytes,
    wal_autocheckpoint_pages: sqliteStoreOptionsDefault.walAutocheckpointPages,
    checkpoint_interval_ms: sqliteStoreOptionsDefault.checkpointIntervalMs,
    journal_size_limit_bytes: sqliteStoreOptionsDefault.journalSizeLimitBytes,
    search_words_max: sqliteStoreOptionsDefault.searchWordsMax,
    search_ranked_matches_max: sqliteStoreOptionsDefault.searchRankedMatchesMax,
    index_slices: sqliteStoreOptionsDefault.indexSlices,
    index_rows_waiting_max: sqliteStoreOptionsDefault.indexRowsWaitingMax,
    index_merge_rows_max: sqliteStoreOptionsDefault.indexMergeRowsMax,
    // The SQLite writes on a thread of their own (store/sqlite/threadedStore.ts). With the solo
    // engine it keeps the main thread serving requests and feeding the verify threads while a
    // block is written (issue #18: 13 to 17 % more committed transactions). Under CometBFT blocks
    // arrive one at a time, each waiting for the last to be written, so the thread only adds its
    // round trip (a joining node replayed 10 to 25 % slower): `auto` is on with the solo engine.
    writer_thread: "auto",
    read_indexes: sqliteStoreOptionsDefault.readIndexes !== false,
  },
  engine: {
    kind: "solo",
    block_interval_ms: soloEngineOptionsDefault.blockIntervalMs,
    txs_per_block_max: soloEngineOptionsDefault.txsPerBlockMax,
    commit_timeout_ms: soloEngineOptionsDefault.commitTimeoutMs,
    chain_id: soloEngineOptionsDefault.chainId,
    abci_bind: `${cometBftEngineOptionsDefault.abciHost}:${cometBftEngineOptionsDefault.abciPort}`,
    rpc_url: cometBftEngineOptionsDefault.rpcUrl,
    cometbft_home: cometBftSupervisorOptionsDefault.home,
    cometbft_binary: cometBftSupervisorOptionsDefault.binary,
    retain_blocks: cometBftEngineOptionsDefault.retainBlocks,
    snapshot_interval: cometBftEngineOptionsDefault.snapshotIntervalBlocks,
    snapshot_keep: cometBftEngineOptionsDefault.snapshotKeep,
  },
  ledger: {
    pending_txs_max: ledgerOptionsDefault.pendingTxsMax,
    prepared_cache_entries_max: ledgerOptionsDefault.preparedCacheEntriesMax,
    replay_batch_blocks_max: ledgerOptionsDefault.replayBatchBlocksMax,
    prepare_batch_txs_max: preparePoolOptionsDefault.batchTxsMax,
    prepare_shared_txs_min: preparePoolOptionsDefault.sharedTxsMin,
  },
  metrics: {
    // Empty: off (the metrics module's default, `listen: null`).
    bind: metricsOptionsDefault.listen === null ? "" : `${metricsOptionsDefault.listen.host}:${metricsOptionsDefault.listen.port}`,
  },
  checkpoint: {
    origin: checkpointOptionsDefault.origin,
    witnesses: checkpointOptionsDefault.witnesses,
    witness_quorum: checkpointOptionsDefault.witnessQuorum,
  },
  witness: {
    logs: witnessOptionsDefault.logs,
    name: witnessOptionsDefault.name,
  },
});

/** Freezes an object and everything it holds, so no caller can change the settings in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
