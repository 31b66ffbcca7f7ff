// The condition types and a condition in binary form. Apart from the fulfillments (types.ts),
// because a public key (ed25519PublicKey.ts) carries its condition and a fulfillment carries its
// public key: one file for both would close a circle of imports.

/** The type names as they appear in condition URIs (`fpt=`, `subtypes=`) and in details. */
export type ConditionTypeName = "ed25519-sha-256" | "threshold-sha-256";

/**
 * Type ids of the draft's registry (§ "Type registry"): the CHOICE tag of Condition and
 * Fulfillment, and the bit number in a compound condition's `subtypes` BIT STRING.
 */
export const conditionTypeIds = {
  "threshold-sha-256": 2,
  "ed25519-sha-256": 4,
} as const satisfies Record<ConditionTypeName, number>;

/**
 * A condition in binary form: Condition ::= CHOICE { ..., thresholdSha256 [2] CompoundSha256Condition,
 * ed25519Sha256 [4] SimpleSha256Condition }.
 */
export interface Condition {
  readonly type: ConditionTypeName;
  /** sha-256 of the type's fingerprint contents, 32 bytes. */
  readonly fingerprint: Uint8Array;
  /** The worst-case cost of a fulfillment; a safe integer. */
  readonly cost: number;
  /** Compound (threshold) conditions only: the types used below it, sorted by name; else empty. */
  readonly subtypes: readonly ConditionTypeName[];
}
