// SHA-256 for the proofs: @noble/hashes (pure JavaScript, audited), so that the verifier that
// shares this code runs in a browser as it runs in Node. Measured against node:crypto on the
// commitment's inputs (bench/proofs.bench.ts): about the same speed for 40-100-byte messages.
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

/** SHA-256 of the parts, concatenated. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = nobleSha256.create();
  for (const part of parts) hash.update(part);
  return hash.digest();
}
