// Small helpers shared by the benchmarks.
import { createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";

/** Calls `fn` repeatedly for about `seconds` and returns calls per second. */
export function rate(seconds: number, fn: () => void): number {
  const warmEnd = performance.now() + 200;
  while (performance.now() < warmEnd) fn();
  let calls = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 64; i++) fn();
    calls += 64;
  }
  return calls / ((performance.now() - start) / 1000);
}

/** Raw node:crypto Ed25519 verifications per second on this thread, with a cached key object. */
export function rawVerifyRate(seconds = 2): number {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const message = Buffer.alloc(32, 7);
  const signature = sign(null, message, privateKey);
  const key = createPublicKey({ key: publicKey.export({ format: "der", type: "spki" }), format: "der", type: "spki" });
  return rate(seconds, () => {
    if (!verify(null, message, key, signature)) throw new Error("verify failed");
  });
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
