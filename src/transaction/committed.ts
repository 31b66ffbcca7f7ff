// What a committed v2.0 transaction is: the domain's own shapes, which the ledger hands to the
// store at commit and the validator reads back. The store imports them; they know no store.

export interface OutputRef {
  readonly transactionId: string;
  readonly outputIndex: number;
}

/** The key of an output in maps: `<transaction id>:<output index>`. */
export function outputKey(ref: OutputRef): string {
  return `${ref.transactionId}:${ref.outputIndex}`;
}

export interface CommittedOutput {
  readonly outputIndex: number;
  readonly amount: bigint;
  /** The condition URI recomputed from `condition.details` at commit (what a spender must match). */
  readonly conditionUri: string;
  /** Every public key anywhere in `condition.details`, threshold subconditions included, unique. */
  readonly publicKeys: readonly string[];
}

/** The v2.0 operations ledgerd takes (CHAIN_MIGRATION_ELECTION is refused, docs/compatibility.md #11). */
export type Operation = "CREATE" | "TRANSFER" | "VALIDATOR_ELECTION" | "VOTE";

/**
 * Whether an operation makes its asset (a CREATE, an election: the asset id is the transaction's
 * own) rather than moving one (a TRANSFER, a vote: `asset.id`).
 */
export function makesAsset(operation: Operation): boolean {
  return operation === "CREATE" || operation === "VALIDATOR_ELECTION";
}

/** A transaction as the ledger hands it to the store at commit. */
export interface CommittedTx {
  readonly id: string;
  readonly operation: Operation;
  /** The asset id: the transaction's own id when it makes its asset (`makesAsset`), else `asset.id`. */
  readonly assetId: string;
  /** The whole transaction as posted, compact JSON; what GET returns. */
  readonly json: string;
  /** `asset.data` as compact JSON when it makes its asset and the data is an object; otherwise null. */
  readonly assetData: string | null;
  /** `metadata` as compact JSON when it is an object; otherwise null. */
  readonly metadata: string | null;
  readonly outputs: readonly CommittedOutput[];
  /** The outputs this transaction spends (its inputs' `fulfills`); empty when it makes its asset. */
  readonly spends: readonly OutputRef[];
}
