import { availableParallelism } from "node:os";

export interface LedgerOptions {
  /** Prepared (parsed, signature-checked) transactions kept by their exact bytes. */
  readonly preparedCacheEntriesMax: number;
  /** Transactions admitted by checkTx and not yet in a committed block. */
  readonly pendingTxsMax: number;
  /**
   * Blocks of a catch-up made durable together at most (LedgerApp.commit, "replay batch"): one
   * fsync for them, and what an HTTP worker's view of the store lags behind at most; 0: each
   * block durable on its own.
   */
  readonly replayBatchBlocksMax: number;
}

export const ledgerOptionsDefault: LedgerOptions = {
  preparedCacheEntriesMax: 100_000,
  pendingTxsMax: 50_000,
  replayBatchBlocksMax: 64,
};

/** The threads that verify signatures (preparePool.ts). */
export interface PreparePoolOptions {
  /** Worker threads; 0 prepares on the calling thread (tests, tools). */
  readonly threads: number;
  /** Transactions sent to a worker in one message (fewer messages, less overhead). */
  readonly batchTxsMax: number;
  /**
   * A turn's requests from this many on are shared: every worker takes them one at a time until
   * none is left, so the workers finish together (preparePool.ts, `share`). Fewer are split in batches.
   */
  readonly sharedTxsMin: number;
}

export const preparePoolOptionsDefault: PreparePoolOptions = {
  threads: availableParallelism(),
  batchTxsMax: 64,
  sharedTxsMin: 32,
};

/** The node's signed checkpoints (checkpoints.ts, docs/transparency.md). */
export interface CheckpointOptions {
  /**
   * The checkpoints' origin line and the key name they are signed under; empty: derived from
   * the chain id (`checkpointOriginOf`). Best set to the tiles' URL prefix without its scheme.
   */
  readonly origin: string;
  /**
   * Witnesses asked to cosign the latest checkpoint, comma-separated, each
   * `<cosignature verifier key>@<submission URL>`; empty: none (checkpointWitnesses.ts).
   */
  readonly witnesses: string;
  /** Cosignatures that make a quorum; 0: every witness. */
  readonly witnessQuorum: number;
}

export const checkpointOptionsDefault: CheckpointOptions = {
  origin: "",
  witnesses: "",
  witnessQuorum: 0,
};

/** ledgerd as a witness of other logs (witness.ts, docs/transparency.md "Witness"). */
export interface WitnessOptions {
  /** The logs it cosigns, as signed-note verifier keys (Ed25519), comma-separated; empty: none. */
  readonly logs: string;
  /** The cosignatures' key name; empty: `<checkpoint origin>/witness`. */
  readonly name: string;
}

export const witnessOptionsDefault: WitnessOptions = {
  logs: "",
  name: "",
};
