// What `ledgerd import --from-bigchaindb` may spend reading a BigchainDB node (STYLE rules 10
// and 11): each limit named, with its unit, in one place; the command's flags override the
// first three.

export interface BigchaindbImportOptions {
  /** Blocks fetched at once, ahead of the one executing: the most held in memory besides it. */
  readonly fetchConcurrency: number;
  /** One HTTP request, from sending to the last byte of the answer. */
  readonly requestTimeoutMs: number;
  /** Tries after the first of a request that failed on the network, timed out or got a 5xx. */
  readonly retriesMax: number;
  /** The wait before the first retry; doubled at each next one, up to `retryDelayMsMax`. */
  readonly retryDelayMs: number;
  readonly retryDelayMsMax: number;
  /**
   * Most bytes of one answer. A block of Tendermint 0.31's default `max_bytes` (21 MiB) as
   * BigchainDB's spaced JSON fits twice over; a longer answer is refused, never buffered.
   */
  readonly responseBytesMax: number;
  /** Validators in BigchainDB's set: CometBFT's `MaxVotesCount`. */
  readonly validatorsMax: number;
  /**
   * Refused transactions whose ids are kept to tell a later one that spends them ("depends on
   * a refused transaction"); past it the report still lists each refusal, without the link.
   */
  readonly refusedIdsTrackedMax: number;
}

export const bigchaindbImportOptionsDefault: BigchaindbImportOptions = Object.freeze({
  fetchConcurrency: 4,
  requestTimeoutMs: 30_000,
  retriesMax: 5,
  retryDelayMs: 500,
  retryDelayMsMax: 10_000,
  responseBytesMax: 64 * 1024 * 1024,
  validatorsMax: 10_000,
  refusedIdsTrackedMax: 100_000,
});

/** The flags' bounds: a value outside is refused, naming the flag. */
export const fetchConcurrencyMax = 64;
export const retriesMaxMax = 100;
