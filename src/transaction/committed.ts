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

export type Operation = "CREATE" | "TRANSFER";

/** A transaction as the ledger hands it to the store at commit. */
export interface CommittedTx {
  readonly id: string;
  readonly operation: Operation;
  /** The asset id: the transaction's own id for a CREATE, `asset.id` for a TRANSFER. */
  readonly assetId: string;
  /** The whole transaction as posted, compact JSON; what GET returns. */
  readonly json: string;
  /** `asset.data` as compact JSON for a CREATE whose data is an object; otherwise null. */
  readonly assetData: string | null;
  /** `metadata` as compact JSON when it is an object; otherwise null. */
  readonly metadata: string | null;
  readonly outputs: readonly CommittedOutput[];
  /** The outputs this transaction spends (its inputs' `fulfills`); empty for a CREATE. */
  readonly spends: readonly OutputRef[];
}
