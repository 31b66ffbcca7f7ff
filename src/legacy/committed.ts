// What a committed legacy transaction is (variants A and B): the domain's own shapes, which the
// ledger hands to the store at commit. The store imports them; they know no store.
import type { Operation } from "../transaction/committed.js";

export type LegacyVariant = "A" | "B";

/** A legacy output: its transaction's id and the condition's `cid`. */
export interface LegacyOutputRef {
  readonly txid: string;
  readonly cid: number;
}

/** The key of a legacy output in maps: `<txid>:<cid>`. */
export function legacyOutputKey(ref: LegacyOutputRef): string {
  return `${ref.txid}:${ref.cid}`;
}

export interface CommittedLegacyOutput {
  readonly cid: number;
  /** The `cc:` condition URI, checked against its details before commit (what a spender fulfils). */
  readonly conditionUri: string;
  /** Every public key in the condition's details, threshold branches included, unique. */
  readonly publicKeys: readonly string[];
}

/** A valid legacy transaction as the ledger hands it to the store at commit. */
export interface CommittedLegacyTx {
  readonly id: string;
  readonly variant: LegacyVariant;
  readonly operation: Operation;
  /** The transaction as stored (no `assignee`), compact JSON; what the legacy GET returns. */
  readonly json: string;
  /**
   * Its place among the block's valid transactions of both kinds, from 0: the order the app
   * hash covers. The v2.0 transactions fill the other places, in their order.
   */
  readonly position: number;
  readonly outputs: readonly CommittedLegacyOutput[];
  /** The outputs it spends (legacy or the other variant's); empty for a CREATE. */
  readonly spends: readonly LegacyOutputRef[];
}

/**
 * A legacy transaction its block carried but execution refused (status `invalid`,
 * docs/compatibility.md #16).
 */
export interface LegacyInvalidTx {
  readonly id: string;
  /** The error code (src/errors/codes.ts) and message it was refused with. */
  readonly code: string;
  readonly message: string;
  /** The transaction as stored (PreparedLegacyTx.json): a snapshot carries it for a restore to execute again. */
  readonly json: string;
  /**
   * The valid transactions of its block before it: where it was executed (a refused transaction
   * changes nothing, so its outcome depends only on those).
   */
  readonly position: number;
}
