// Options of the SQLite store, with their defaults (STYLE rule 10: one source of defaults).

export interface SqliteStoreOptions {
  /** The database file. Its folder is created when missing. `:memory:` gives a throwaway store. */
  readonly path: string;
  /**
   * When a commit reaches the disk. `full` syncs the write-ahead log at every commit, so an
   * acknowledged block survives a power loss; `normal` only survives a process crash (the OS
   * still holds the data); `off` is for throwaway stores and benchmarks of everything else.
   */
  readonly synchronous: "full" | "normal" | "off";
  /**
   * SQLite's page cache for this connection. The hot indexes of ~10M transactions fit. A
   * writer keeps at most 16 MiB until its file passes 1 GiB: below that, SQLite walks the whole
   * cache at every commit (pageCache.ts).
   */
  readonly cacheSizeBytes: number;
  /** Memory-mapped reads (0: off). Saves a copy per page read; bounded by SQLite's 2 GiB cap. */
  readonly mmapSizeBytes: number;
  /**
   * The write-ahead log is copied back into the database once it holds this many pages (the
   * checkpoint runs inside the commit that crosses the mark). Bigger: fewer, longer pauses.
   */
  readonly walAutocheckpointPages: number;
  /**
   * With `access: "readers"`, a thread of the store's own copies the log back every this many
   * ms, beside the writer (checkpointer.ts), and the commit that crosses `walAutocheckpointPages`
   * no longer pauses to do it. 0: SQLite's own checkpoints, inside that commit.
   */
  readonly checkpointIntervalMs: number;
  /**
   * The log's size at which that thread starts: a store whose log stays small (a node that
   * commits little, a test's store) never pays the thread's start, ~90 ms of CPU. 0: at open. Far
   * below the writer's own mark meanwhile (`walAutocheckpointPages` times checkpointer.ts's
   * `fallbackFactor` pages), so the log is copied beside the writer long before a commit would.
   */
  readonly checkpointStartWalBytes: number;
  /** After a checkpoint the log file is truncated to this size. */
  readonly journalSizeLimitBytes: number;
  /** A text search with more words than this (every word as written, repeats included) is refused. */
  readonly searchWordsMax: number;
  /**
   * The work budget of one text search: only the newest this many matches are ranked (best
   * first), and a search without a limit answers those. Ranking costs per match; a word every
   * asset holds would otherwise rank the whole ledger on each request (0.8 s at 1M assets).
   */
  readonly searchRankedMatchesMax: number;
  /**
   * How many slices the hashed indexes are merged in (a power of two, 1 to 4096; only read when
   * the database is created). Each commit merges at least one slice, so rows wait in memory
   * for up to this many blocks, and a merge touches about 1/slices of each index.
   */
  readonly indexSlices: number;
  /**
   * When more index rows than this wait in memory, a commit merges more than one slice; a
   * restore's bulk load also writes the field-index rows it holds once more than this many wait.
   */
  readonly indexRowsWaitingMax: number;
  /**
   * Most index rows one commit merges (or twice the rows its block adds, if more: merging keeps
   * up with any rate). A slice holding more (a busy public key's, after a restart) is merged
   * over several commits, oldest rows first, so that no commit stalls on it (measured: 100,000
   * rows of one key took one commit 139 ms; 4,096 take ~6 ms).
   */
  readonly indexMergeRowsMax: number;
  /**
   * Unless false, a writer merges every index row waiting at its open before it takes a block
   * (`BlockWriter.mergeWaiting`), instead of leaving them to its first commits. Not a setting:
   * false only to measure the difference (`bench restartMerge`) and to test partial merges.
   */
  readonly indexMergeAtOpen?: boolean;
  /**
   * Who else may open the file. `owner`: no one; an exclusive lock makes a second ledgerd on the
   * same file fail at open (the index rows waiting in memory are only right with one writer).
   * `readers`: this writer, plus read-only stores in other processes (the HTTP workers).
   * `reader`: such a read-only store on an existing file; it follows the writer's commits and
   * refuses to write. Optional so that option literals written before it still type-check.
   */
  readonly access?: "owner" | "readers" | "reader";
  /**
   * Keep a filter of the committed transaction ids in memory (hashFilter.ts), so that the
   * duplicate check of a new id reads nothing. It costs each connection that keeps it ~4 MiB a
   * million ids and a read of the whole id index at open (0.4 to 0.7 s at a million ids), so it
   * is for the connection the ledger's checks run on, the node's writer (openStore.ts): a store
   * that only answers reads (an HTTP worker's, a backup's, verify-chain's) goes without and
   * looks ids up in the index. Optional so that option literals written before it still
   * type-check.
   */
  readonly idFilter?: boolean;
  /**
   * Write the read indexes: the text-search documents and the field index (readIndexes.ts).
   * Only searches and queries by field read them; a validator that serves no reads may go
   * without (measured: a quarter to over half of a block's write, BENCHMARKS.md issue #42).
   * Off, those reads are refused (409 ReadIndexesOff); back on, the writer's open writes what
   * is missing.
   * Optional so that option literals written before it still type-check.
   */
  readonly readIndexes?: boolean;
}

export const sqliteStoreOptionsDefault: SqliteStoreOptions = Object.freeze({
  path: "data/ledgerd.sqlite",
  synchronous: "full",
  cacheSizeBytes: 256 * 1024 * 1024,
  mmapSizeBytes: 1024 * 1024 * 1024,
  walAutocheckpointPages: 4000,
  checkpointIntervalMs: 250,
  checkpointStartWalBytes: 4 * 1024 * 1024,
  journalSizeLimitBytes: 64 * 1024 * 1024,
  searchWordsMax: 64,
  searchRankedMatchesMax: 10_000,
  indexSlices: 64,
  indexRowsWaitingMax: 250_000,
  indexMergeRowsMax: 4_096,
  access: "owner",
  idFilter: false,
  readIndexes: true,
});
