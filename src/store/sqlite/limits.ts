// Limits of the SQLite store that are not settings: they bound one read, not the ledger.

/**
 * Most rows one batch of a long answer reads (`Batches` in ../store.ts). A batch is one short
 * synchronous read: between two batches the node serves other requests and commits blocks.
 */
export const batchRowsMax = 500;

/** A batch stops once its JSON text passes this many characters (one big row may pass it). */
export const batchCharsMax = 256 * 1024;

/**
 * Most assets one pass over a key's outputs sums for an unpaged read of its balances
 * (balances.ts): the memory such a read holds. A key holding more is read once more per this
 * many. A page's pass holds the page (its limit) instead.
 */
export const balancesWindowMax = 1000;
