import assert from "node:assert/strict";

/**
 * A map that keeps at most `capacity` entries and drops the least recently used one to make
 * room. A JS Map iterates in insertion order, so moving an entry to the end on every hit keeps
 * the oldest first: each get and set is O(1).
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    assert(Number.isSafeInteger(capacity) && capacity >= 1, "an LRU cache holds at least one entry");
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.#entries.has(key)) {
      this.#entries.delete(key);
    } else if (this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
    assert(this.#entries.size <= this.capacity);
  }
}
