// Deterministic pseudo-random bytes and numbers for the crypto-conditions tests (sha-256 in
// counter mode), so that a failure reproduces exactly.
import { createHash } from "node:crypto";

/** `length` bytes determined by `seed`. */
export function seededBytes(seed: number | string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let block = 0; block * 32 < length; block++) {
    const digest = createHash("sha256").update(`${seed}/${block}`).digest();
    out.set(digest.subarray(0, Math.min(32, length - block * 32)), block * 32);
  }
  return out;
}

/** A small deterministic generator of integers in [0, n). */
export class SeededRandom {
  #counter = 0;

  constructor(private readonly seed: string) {}

  int(n: number): number {
    const bytes = seededBytes(`${this.seed}#${this.#counter++}`, 4);
    return Buffer.from(bytes).readUInt32BE(0) % n;
  }

  bytes(length: number): Uint8Array {
    return seededBytes(`${this.seed}#${this.#counter++}`, length);
  }
}
