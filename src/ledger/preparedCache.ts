import { LruCache } from "../crypto-conditions/lruCache.js";
import type { PreparedBase } from "./txKind.js";

/**
 * Prepared transactions by their exact bytes, bounded, oldest out first. A transaction checked
 * at checkTx is found here at finalizeBlock, so its signatures are verified once per node; the
 * ledger drops it when its block commits.
 *
 * Oldest by when it was put (a get does not refresh it), dropped in O(1) by LruCache's slots;
 * this cache once dropped its oldest with a JS Map's `keys().next()`, which walks the holes the
 * ledger's deletes leave at the Map's front (as the key caches did, lruCache.ts).
 */
export class PreparedCache {
  private readonly entries: LruCache<PreparedKey, PreparedBase>;

  constructor(entriesMax: number) {
    this.entries = new LruCache(entriesMax);
  }

  get(key: PreparedKey): PreparedBase | undefined {
    return this.entries.peek(key);
  }

  /** Puts `tx` as the newest entry (a key put again too), dropping the oldest when full. */
  put(key: PreparedKey, tx: PreparedBase): void {
    this.entries.set(key, tx);
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
