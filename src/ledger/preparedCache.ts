import type { PreparedBase } from "./txKind.js";

/**
 * Prepared transactions by their exact bytes, bounded, oldest out first. A transaction checked
 * at checkTx is found here at finalizeBlock, so its signatures are verified once per node; the
 * ledger drops it when its block commits.
 */
export class PreparedCache {
  private readonly entries = new Map<string, PreparedBase>();

  constructor(private readonly entriesMax: number) {}

  get(key: PreparedKey): PreparedBase | undefined {
    return this.entries.get(key);
  }

  put(key: PreparedKey, tx: PreparedBase): void {
    this.entries.delete(key);
    this.entries.set(key, tx);
    if (this.entries.size > this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  delete(key: PreparedKey): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A transaction's exact bytes as a cache key (`preparedKey`): made once per lookup and store. */
export type PreparedKey = string & { readonly __preparedKey: unique symbol };

// latin1 maps each byte to one UTF-16 unit: an exact, cheap key for the bytes.
export function preparedKey(bytes: Uint8Array): PreparedKey {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1") as PreparedKey;
}
