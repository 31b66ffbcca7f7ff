// The ledger's cache of prepared transactions (src/ledger/preparedCache.ts): bounded, the entry
// put longest ago dropped first, a lookup not counting as a use, a key put again the newest.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PreparedCache, type PreparedKey } from "../../../src/ledger/preparedCache.js";
import type { PreparedBase } from "../../../src/ledger/txKind.js";
import { SeededRandom } from "../crypto-conditions/seededRandom.js";

const key = (n: number) => `tx${n}` as PreparedKey;
const tx = (n: number) => ({ n }) as unknown as PreparedBase;

describe("PreparedCache", () => {
  it("drops the entry put longest ago; a get does not keep one, a put again does", () => {
    const cache = new PreparedCache(3);
    for (const n of [1, 2, 3]) cache.put(key(n), tx(n));
    assert.deepEqual(cache.get(key(1)), tx(1), "a lookup, not a use");
    cache.put(key(2), tx(2));
    cache.put(key(4), tx(4));
    assert.equal(cache.get(key(1)), undefined, "1 was put first: dropped, though just read");
    cache.put(key(5), tx(5));
    assert.equal(cache.get(key(3)), undefined, "then 3; 2 was put again after it");
    assert.deepEqual([2, 4, 5].map((n) => cache.get(key(n))), [tx(2), tx(4), tx(5)]);
    cache.delete(key(4));
    assert.equal(cache.size, 2);
    cache.put(key(6), tx(6));
    assert.deepEqual([2, 5, 6].map((n) => cache.get(key(n))), [tx(2), tx(5), tx(6)], "a delete made room");
  });

  it("keeps the order of puts through deletes and many more keys than it holds", () => {
    const entriesMax = 32;
    const cache = new PreparedCache(entriesMax);
    const random = new SeededRandom("prepared cache order");
    /** The keys held, put longest ago first. */
    const order: number[] = [];
    for (let step = 0; step < 20_000; step++) {
      const n = random.int(4 * entriesMax);
      const at = order.indexOf(n);
      const op = random.int(3);
      if (op === 0) {
        assert.equal(cache.get(key(n)) !== undefined, at >= 0, `step ${step}: get ${n}`);
      } else if (op === 1) {
        cache.delete(key(n));
        if (at >= 0) order.splice(at, 1);
      } else {
        cache.put(key(n), tx(n));
        if (at >= 0) order.splice(at, 1);
        order.push(n);
        if (order.length > entriesMax) order.shift();
      }
      assert.equal(cache.size, order.length);
    }
    for (const n of order) assert.deepEqual(cache.get(key(n)), tx(n));
  });
});
