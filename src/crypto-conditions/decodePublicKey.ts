import { decodeBase58 } from "./decodeBase58.js";

// A 32-byte value takes 32 ("1" per zero byte) to 44 base58 characters; checking the length
// first keeps a long or short text from being decoded at all.
const charsMin = 32;
const charsMax = 44;

/**
 * The raw 32-byte Ed25519 public key a base58 text names, or null when the text is not base58 or
 * does not decode to exactly 32 bytes. BigchainDB's schema pattern for keys is unanchored, so
 * this is the check that actually holds.
 */
export function decodePublicKey(b58: string): Uint8Array | null {
  if (b58.length < charsMin || b58.length > charsMax) return null;
  let bytes: Uint8Array;
  try {
    bytes = decodeBase58(b58);
  } catch {
    return null;
  }
  return bytes.length === 32 ? bytes : null;
}
