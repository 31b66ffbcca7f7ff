// From settings to each module's options: the one place that knows both names.
import type { SoloEngineOptions } from "../engine/solo/options.js";
import type { LedgerOptions } from "../ledger/options.js";
import type { PreparePoolOptions } from "../ledger/preparePool.js";
import type { SqliteStoreOptions } from "../store/sqlite/options.js";
import type { Config } from "./schema.js";

export interface ModuleOptions {
  readonly ledger: LedgerOptions;
  readonly preparePool: PreparePoolOptions;
  readonly soloEngine: SoloEngineOptions;
  readonly sqliteStore: SqliteStoreOptions;
}

export function moduleOptions(config: Config): ModuleOptions {
  return {
    ledger: {
      pendingTxsMax: config.ledger.pending_txs_max,
      preparedCacheEntriesMax: config.ledger.prepared_cache_entries_max,
    },
    preparePool: {
      threads: config.server.threads,
      batchTxsMax: config.ledger.prepare_batch_txs_max,
    },
    soloEngine: {
      blockIntervalMs: config.engine.block_interval_ms,
      txsPerBlockMax: config.engine.txs_per_block_max,
      commitTimeoutMs: config.engine.commit_timeout_ms,
      chainId: config.engine.chain_id,
    },
    sqliteStore: {
      path: config.database.path,
      synchronous: config.database.synchronous,
      cacheSizeBytes: config.database.cache_size_bytes,
      mmapSizeBytes: config.database.mmap_size_bytes,
      walAutocheckpointPages: config.database.wal_autocheckpoint_pages,
      journalSizeLimitBytes: config.database.journal_size_limit_bytes,
      searchWordsMax: config.database.search_words_max,
    },
  };
}
