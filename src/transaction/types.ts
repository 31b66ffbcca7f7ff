// The transaction folder owns transaction v2.0 as BigchainDB 2.x defines it: reading and
// canonical serialization (byte-exact for both official drivers, docs/compatibility.md #7), ids,
// signing digests, the schema, and validation as a flat run of coded checks in BigchainDB's order
// (docs/bigchaindb-behaviour.md §2.5). Everything here is pure: no IO, no clock, no store.
//
// Validation is split in two so that the expensive, stateless half can run on worker threads
// and be cached by the exact bytes: `prepareTx` (id, schema, key rules, fulfillments, amounts,
// signatures) and `validateTx` (against a ledger view: existence, spends, asset, balance).
import type { CommittedTx, OutputRef } from "./committed.js";
import type { ElectionFacts } from "./elections.js";

/**
 * Which canonical form the id matched (docs/compatibility.md #7); signatures are checked with the
 * same.
 */
export type CanonicalForm = "python" | "js";

export interface PreparedInput {
  readonly fulfills: OutputRef | null;
  /** The condition URI of the input's fulfillment; null when the input carries no signature. */
  readonly conditionUri: string | null;
}

/**
 * A transaction that passed every stateless check. Plain data only (strings, numbers, bigints,
 * arrays), so it can cross a worker-thread boundary by structured clone.
 */
export interface PreparedTx extends Omit<CommittedTx, "spends"> {
  readonly inputs: readonly PreparedInput[];
  readonly outputsTotal: bigint;
  /**
   * Every fulfillment verified over its digest, each CREATE fulfillment signed only by keys of
   * its `owners_before` (docs/compatibility.md #8), and every output's `uri` equal to the one its
   * details give. Reported as InvalidSignature only after the stateful checks, where BigchainDB
   * does.
   */
  readonly signaturesValid: boolean;
  readonly form: CanonicalForm;
  /** What a VALIDATOR_ELECTION proposes; null for every other operation. */
  readonly election: ElectionFacts | null;
  /** The votes a VOTE casts for the election it names (`votesCast`); 0 for every other operation. */
  readonly votes: bigint;
}

/** What an output looks like to a spender: committed, or made earlier in the same block. */
export interface SpendableOutput {
  readonly amount: bigint;
  readonly conditionUri: string;
  readonly assetId: string;
  /** Spent by a committed transaction, an earlier one in the block, or (checkTx) a pending one. */
  readonly spent: boolean;
}

/** The ledger state a transaction is checked against. Synchronous: the caller prefetches. */
export interface LedgerView {
  /** Committed, or earlier in the same block (or pending, for checkTx). */
  hasTransaction(id: string): boolean;
  getOutput(ref: OutputRef): SpendableOutput | undefined;
}
