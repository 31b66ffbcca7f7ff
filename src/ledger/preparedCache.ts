import type { Prepared } from "./prepared.js";

/**
 * Prepared transactions by their exact bytes, bounded, oldest out first. A transaction checked
 * at checkTx is found here at finalizeBlock, so its signatures are verified once per node.
 */
export class PreparedCache {
  private readonly entries = new Map<string, Prepared>();

  constructor(private readonly entriesMax: number) {}

  get(bytes: Uint8Array): Prepared | undefined {
    return this.entries.get(keyOf(bytes));
  }

  put(bytes: Uint8Array, tx: Prepared): void {
    const key = keyOf(bytes);
    this.entries.delete(key);
    this.entries.set(key, tx);
    if (this.entries.size > this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

// latin1 maps each byte to one UTF-16 unit: an exact, cheap key for the bytes.
function keyOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
