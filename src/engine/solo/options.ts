export interface SoloEngineOptions {
  /** A block is cut this long after the first transaction waits, unless it fills first. */
  readonly blockIntervalMs: number;
  /** A block is cut at once when this many transactions wait. */
  readonly txsPerBlockMax: number;
  /** A `commit` broadcast waits this long for its block, then answers 504. */
  readonly commitTimeoutMs: number;
  /** The chain id recorded at initChain on a new store. */
  readonly chainId: string;
}

export const soloEngineOptionsDefault: SoloEngineOptions = {
  blockIntervalMs: 20,
  txsPerBlockMax: 2_000,
  commitTimeoutMs: 30_000,
  chainId: "ledgerd-solo",
};
