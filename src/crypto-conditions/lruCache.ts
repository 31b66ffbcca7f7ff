import assert from "node:assert/strict";

/**
 * A map that keeps at most `capacity` entries and drops the least recently used one to make
 * room. Each get and set is O(1): the entries sit in slots chained from the most recent to the
 * least (two arrays of slot numbers), and the Map only finds a key's slot.
 *
 * Not the order of a JS Map, as this cache once used: dropping its oldest entry with
 * `keys().next()` walks over the holes its deletes left at the front (V8 reclaims them only
 * when the table is rebuilt), so once a cache was full each new key cost ~35 to 100 µs instead
 * of ~5 (65,536 entries; BENCHMARKS.md issue #39, "the second pass at a million, profiled").
 */
export class LruCache<K, V> {
  /** A key's slot. */
  readonly #slots = new Map<K, number>();
  readonly #keys: K[] = [];
  readonly #values: V[] = [];
  /** Per slot, the next more recent and the next less recent slot; -1 at either end. */
  readonly #newer: number[] = [];
  readonly #older: number[] = [];
  /** Slots a delete emptied, taken again before the arrays grow. */
  readonly #free: number[] = [];
  #newest = -1;
  #oldest = -1;

  constructor(readonly capacity: number) {
    assert(Number.isSafeInteger(capacity) && capacity >= 1, "an LRU cache holds at least one entry");
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Whether `key` is held, without counting as a use. */
  has(key: K): boolean {
    return this.#slots.has(key);
  }

  get(key: K): V | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    this.#touch(slot);
    return this.#values[slot];
  }

  /** The value of `key`, without counting as a use (a cache dropped oldest-set first). */
  peek(key: K): V | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#values[slot];
  }

  /** Drops `key`; its slot is taken by the next new key. */
  delete(key: K): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    this.#slots.delete(key);
    this.#unlink(slot);
    // Let go of the key and value for the collector; the slot waits in the free list.
    this.#keys[slot] = undefined as K;
    this.#values[slot] = undefined as V;
    this.#free.push(slot);
    return true;
  }

  set(key: K, value: V): void {
    let slot = this.#slots.get(key);
    if (slot !== undefined) {
      this.#values[slot] = value;
      this.#touch(slot);
      return;
    }
    const free = this.#free.pop();
    if (free !== undefined) {
      slot = free;
      this.#keys[slot] = key;
      this.#values[slot] = value;
    } else if (this.#keys.length < this.capacity) {
      slot = this.#keys.length;
      this.#keys.push(key);
      this.#values.push(value);
      this.#newer.push(-1);
      this.#older.push(-1);
    } else {
      // Full: the least recently used slot takes the new entry.
      slot = this.#oldest;
      this.#slots.delete(this.#keys[slot]!);
      this.#unlink(slot);
      this.#keys[slot] = key;
      this.#values[slot] = value;
    }
    this.#slots.set(key, slot);
    this.#linkNewest(slot);
  }

  /** The slot becomes the most recent. */
  #touch(slot: number): void {
    if (slot === this.#newest) return;
    this.#unlink(slot);
    this.#linkNewest(slot);
  }

  #unlink(slot: number): void {
    const newer = this.#newer[slot]!;
    const older = this.#older[slot]!;
    if (newer === -1) this.#newest = older;
    else this.#older[newer] = older;
    if (older === -1) this.#oldest = newer;
    else this.#newer[older] = newer;
  }

  #linkNewest(slot: number): void {
    this.#newer[slot] = -1;
    this.#older[slot] = this.#newest;
    if (this.#newest === -1) this.#oldest = slot;
    else this.#newer[this.#newest] = slot;
    this.#newest = slot;
  }
}
