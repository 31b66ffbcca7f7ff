import assert from "node:assert/strict";

interface Entry<V> {
  value: V;
  /** `tick` when the entry was last moved to the recent end. */
  touched: number;
}

/**
 * A map that keeps at most `capacity` entries and drops the least recently used one to make
 * room. A JS Map iterates in insertion order, so moving an entry to the end keeps the oldest
 * first: each get and set is O(1).
 *
 * Nearly LRU, for speed: a hit moves its entry only when it is in the older half of the order
 * (a move is a delete and an insert, the dearer part of a hit). So the hot entries of a busy
 * cache cost one lookup per hit, and an entry is dropped only after at least `capacity / 2` other
 * keys were used since its last use (a strict LRU: `capacity`).
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  /** Counts inserts and moves: an entry's position in the order, as a number. */
  #tick = 0;

  constructor(readonly capacity: number) {
    assert(Number.isSafeInteger(capacity) && capacity >= 1, "an LRU cache holds at least one entry");
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether `key` is held, without counting as a use. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#tick - entry.touched >= this.capacity / 2) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      entry.touched = ++this.#tick;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.#entries.has(key)) {
      this.#entries.delete(key);
    } else if (this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, touched: ++this.#tick });
    assert(this.#entries.size <= this.capacity);
  }
}
