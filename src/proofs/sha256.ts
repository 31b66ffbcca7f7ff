import { createHash } from "node:crypto";

/** SHA-256 of the parts, concatenated. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest().buffer.slice(0)) as Uint8Array;
}
