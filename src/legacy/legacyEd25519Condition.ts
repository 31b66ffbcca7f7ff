import type { LegacyCondition } from "./types.js";

/** ED25519's feature bitmask in cryptoconditions 0.4.1 (`types/ed25519.py`). */
export const ed25519Bitmask = 0x20;

/** Its payload is always the 32-byte key and the 64-byte signature. */
export const ed25519PayloadBytes = 96;

/**
 * The condition of an Ed25519 key (docs/legacy-variants.md §1.4): the "hash" is the public key
 * itself, not a digest of it, so the URI is `cc:4:20:<base64url(key)>:96`.
 */
export function legacyEd25519Condition(publicKey: Uint8Array): LegacyCondition {
  if (publicKey.length !== 32) throw new RangeError("an Ed25519 public key is 32 bytes");
  return { typeId: 4, bitmask: ed25519Bitmask, hash: publicKey, maxFulfillmentLength: ed25519PayloadBytes };
}
