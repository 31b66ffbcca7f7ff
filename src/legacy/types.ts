// The legacy folder owns the transaction formats of BigchainDB's earlier HTTP interfaces:
// Variant B (v0.3.0-v0.5.1: top-level integer `version`, `current_owners` / `new_owners`) and
// Variant A (v0.6.0: `transaction.version`, `owners_before` / `owners_after`), as
// `docs/legacy-variants.md` describes them (its sections cited below as §n) and
// docs/compatibility.md #13-#16 settle them. Their rules differ from v2.0 everywhere:
// - ids are Keccak-256 (pre-standard SHA-3) over the `transaction` body with every fulfillment
//   nulled (docs/legacy-variants.md §1.2, §1.3);
// - each fulfillment signs its own message (docs/legacy-variants.md §1.5), not a digest of the
//   whole transaction;
// - conditions and fulfillments are the old `cc:` / `cf:` text forms of cryptoconditions 0.4.1,
//   not the later DER encoding (docs/legacy-variants.md §1.4);
// - a CREATE is re-made and signed by the node, and only federation keys may sign one (§1.6, §5).
//
// Everything here is pure: no IO, no clock, no randomness. The caller passes the timestamp, the
// uuid and the node key. Validation is split like the v2.0 flow: `prepareLegacy` runs the
// stateless checks and returns plain data, `validateLegacy` checks it against a `LegacyView`.
import type { JsonObject } from "../json/jsonValue.js";

/** Which earlier interface a transaction's shape belongs to (docs/compatibility.md #13). */
export type LegacyVariant = "A" | "B";

export type LegacyOperation = "CREATE" | "TRANSFER";

/**
 * A legacy transaction as JSON: `{id, transaction, version}` (B) or `{id, transaction}` (A).
 * Only `classifyLegacy` turns an unknown value into one; every other function here trusts the
 * shape it checked.
 */
export type LegacyTx = JsonObject;

/** An output of a legacy transaction: the transaction's id and the condition's `cid`. */
export interface LegacyOutputRef {
  readonly txid: string;
  readonly cid: number;
}

export interface PreparedLegacyOutput {
  readonly cid: number;
  /** `condition.uri` as posted, which is checked to be the URI its `details` give. */
  readonly conditionUri: string;
  /** Every public key in `condition.details`, threshold subfulfillments included, unique. */
  readonly publicKeys: readonly string[];
}

/**
 * A legacy transaction that passed every stateless check. Plain data only, so it can cross a
 * worker-thread boundary by structured clone and be handed to the store as it is.
 */
export interface PreparedLegacyTx {
  readonly id: string;
  readonly variant: LegacyVariant;
  readonly operation: LegacyOperation;
  /**
   * The transaction as posted minus a top-level `assignee` (docs/legacy-variants.md §7.1), compact
   * JSON.
   */
  readonly json: string;
  /** The outputs spent, in fulfillment order (`fulfillments[i].input`); empty for a CREATE. */
  readonly spends: readonly LegacyOutputRef[];
  /** In `cid` order; `cid` equals the index (checked by `classifyLegacy`). */
  readonly outputs: readonly PreparedLegacyOutput[];
  /**
   * The condition URI each fulfillment fulfills, in fulfillment order. A TRANSFER is valid only
   * if each equals the `condition.uri` of the output it spends (docs/legacy-variants.md §5.4).
   */
  readonly fulfilledUris: readonly string[];
  /** CREATE: `owners_before[0]` / `current_owners[0]`, which must be a federation key. */
  readonly creator: string | null;
}

/** What a spender sees of a legacy output. */
export interface LegacyViewOutput {
  /** The output's `condition.uri` as stored. */
  readonly conditionUri: string;
  /**
   * Spent by a committed legacy transaction of either variant, by one earlier in the same block,
   * or (when checking a new transaction) by a pending one (docs/compatibility.md #14,
   * docs/legacy-variants.md §7.5).
   */
  readonly spent: boolean;
}

/**
 * The ledger state a legacy transaction is checked against. Synchronous: the caller prefetches
 * what `spends` and `id` name, as for `LedgerView` in src/transaction/types.ts. Keyed by legacy
 * transaction id (Keccak-256) and `cid`; v2.0 transactions are never legacy outputs.
 */
export interface LegacyView {
  /** Whether a legacy transaction with this id is committed, earlier in the block, or pending. */
  hasTransaction(txid: string): boolean;
  /** The output, or undefined when there is no such transaction or no such `cid` in it. */
  getOutput(ref: LegacyOutputRef): LegacyViewOutput | undefined;
  /** Whether a base58 Ed25519 key belongs to the federation, i.e. the validator set (§7.2). */
  isFederationKey(publicKey: string): boolean;
}

/** A key that signs: base58 public key and the 32-byte Ed25519 seed. */
export interface LegacySigner {
  readonly publicKey: string;
  readonly seed: Uint8Array;
}

// The cryptoconditions 0.4.1 model (docs/legacy-variants.md §1.4). Only the two types the HTTP
// variants use.

/** Type ids of the old registry: THRESHOLD-SHA-256 is 2, ED25519 is 4. */
export type LegacyTypeId = 2 | 4;

/** A condition: what `cc:<type>:<bitmask>:<hash>:<max fulfillment length>` carries. */
export interface LegacyCondition {
  readonly typeId: LegacyTypeId;
  /** Feature suites: 0x20 for ED25519, 0x09 ORed with every subcondition's for a threshold. */
  readonly bitmask: number;
  /** 32 bytes: the public key itself (ED25519) or a SHA-256 fingerprint (threshold). */
  readonly hash: Uint8Array;
  readonly maxFulfillmentLength: number;
}

export interface LegacyEd25519Fulfillment {
  readonly typeId: 4;
  readonly publicKey: Uint8Array;
  readonly signature: Uint8Array;
}

/** One branch of a threshold: fulfilled (a subfulfillment) or not (its condition only). */
export type LegacyThresholdBranch =
  | { readonly weight: number; readonly fulfillment: LegacyFulfillment }
  | { readonly weight: number; readonly condition: LegacyCondition };

export interface LegacyThresholdFulfillment {
  readonly typeId: 2;
  readonly threshold: number;
  readonly branches: readonly LegacyThresholdBranch[];
}

export type LegacyFulfillment = LegacyEd25519Fulfillment | LegacyThresholdFulfillment;
