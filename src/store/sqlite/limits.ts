// Limits of the SQLite store that are not settings: they bound one read, not the ledger.

/**
 * Most rows one batch of a long answer reads (`Batches` in ../store.ts). A batch is one short
 * synchronous read: between two batches the node serves other requests and commits blocks.
 */
export const batchRowsMax = 500;

/** A batch stops once its JSON text passes this many characters (one big row may pass it). */
export const batchCharsMax = 256 * 1024;

/**
 * Most assets one pass over a key's outputs sums for its balances (balances.ts): the memory a
 * balances read holds. A read of more is one more pass per this many; a page of the default
 * server.search_limit_max (1,000, and the one more the HTTP layer asks for) is one pass.
 */
export const balancesWindowMax = 1024;

/**
 * Transactions a bulk load (beginBulkLoad) writes in one SQLite transaction before it commits
 * and begins the next: one commit's overhead (its log pages, the hot index pages written again)
 * for many blocks, while the log stays bounded (~100 MB of pages for CREATEs).
 */
export const bulkLoadTxsPerCommit = 20_000;
