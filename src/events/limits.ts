// The stream's fixed limits (STYLE rule 11); those an operator may change are in options.ts.

/**
 * What a resumed subscriber's replay reads from the store at once: at most this many blocks,
 * and no more blocks once it holds this many transactions (its first block whole, whatever its
 * size: at most the ledger's transactions per block). The next page is read only once the
 * subscriber's socket has taken the last one (backpressure), so a slow replaying subscriber
 * holds at most one page (~190 bytes an event) beyond what the kernel's socket buffers hold.
 */
export const replayPageTxsMax = 1_000;
export const replayPageBlocksMax = 1_000;

/** The query parameters a stream takes, by stream: where to resume (docs/http-api.md). */
export const resumeParameters = {
  transactions: ["from_height", "after"],
  blocks: ["from_height"],
} as const;

/** Which stream a subscriber chose, by its path. */
export type StreamKind = keyof typeof resumeParameters;
