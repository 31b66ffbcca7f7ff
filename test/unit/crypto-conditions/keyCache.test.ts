// The bounded caches behind verifyEd25519 (keys) and the builders, and verifyEd25519 itself.
import assert from "node:assert/strict";
import { createPublicKey, sign as cryptoSign, verify } from "node:crypto";
import { describe, it } from "node:test";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";
import {
  ed25519PublicKey,
  ed25519PublicKeyCache as ed25519KeyCache,
  ed25519PublicKeyOfBase58,
} from "../../../src/crypto-conditions/ed25519PublicKey.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import { keyCacheEntriesMax } from "../../../src/crypto-conditions/limits.js";
import { LruCache } from "../../../src/crypto-conditions/lruCache.js";
import { privateKeyFromSeed } from "../../../src/crypto-conditions/privateKeyFromSeed.js";
import { publicKeyFromSeed } from "../../../src/crypto-conditions/publicKeyFromSeed.js";
import { verifyEd25519 } from "../../../src/crypto-conditions/verifyEd25519.js";
import { SeededRandom } from "./seededRandom.js";

describe("LruCache", () => {
  it("never holds more than its capacity and drops the least recently used entry", () => {
    const cache = new LruCache<number, string>(3);
    for (let i = 0; i < 100; i++) {
      cache.set(i % 7, `v${i}`);
      assert.ok(cache.size <= 3);
    }
    const lru = new LruCache<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    assert.equal(lru.get("a"), 1); // "a" is now the most recent
    lru.set("c", 3); // drops "b"
    assert.equal(lru.get("b"), undefined);
    assert.equal(lru.get("a"), 1);
    assert.equal(lru.get("c"), 3);
    lru.set("c", 4); // an update, not an insertion
    assert.equal(lru.size, 2);
    assert.equal(lru.get("c"), 4);
    assert.throws(() => new LruCache(0));
  });

  it("drops exactly the least recently used entry, a hit in the newer half counting as a use", () => {
    // The cache it replaced moved a hit only from the older half of a Map's order, and would drop
    // "c" here; it also walked the Map's holes to find its oldest entry (BENCHMARKS.md issue #39).
    const cache = new LruCache<string, number>(4);
    for (const [i, key] of ["a", "b", "c", "d"].entries()) cache.set(key, i);
    assert.equal(cache.get("c"), 2);
    assert.equal(cache.get("a"), 0);
    assert.equal(cache.get("b"), 1);
    cache.set("e", 4); // "d" was used least recently
    assert.equal(cache.has("d"), false);
    for (const key of ["a", "b", "c", "e"]) assert.equal(cache.has(key), true, key);
    cache.set("f", 5); // then "c"
    assert.equal(cache.has("c"), false);
    assert.equal(cache.size, 4);
  });

  it("peek is not a use; delete makes room without dropping another entry", () => {
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    assert.equal(cache.peek("a"), 1);
    assert.equal(cache.delete("b"), true);
    assert.equal(cache.delete("b"), false);
    cache.set("c", 3);
    assert.deepEqual([cache.peek("a"), cache.peek("c"), cache.size], [1, 3, 2]);
    cache.set("d", 4);
    assert.equal(cache.has("a"), false, "a, peeked but not used, was the least recent");
  });

  it("keeps the order through many more keys than its capacity", () => {
    const capacity = 64;
    const cache = new LruCache<number, number>(capacity);
    const random = new SeededRandom("lru order");
    /** The strict order, least recent first. */
    const order: number[] = [];
    const use = (key: number) => {
      const at = order.indexOf(key);
      if (at >= 0) order.splice(at, 1);
      order.push(key);
    };
    for (let step = 0; step < 20_000; step++) {
      const key = random.int(4 * capacity);
      if (random.int(2) === 0) {
        if (cache.get(key) !== undefined) use(key);
      } else {
        cache.set(key, step);
        use(key);
        if (order.length > capacity) order.shift();
      }
      assert.equal(cache.size, order.length);
    }
    for (const key of order) assert.equal(cache.get(key) !== undefined, true, `key ${key}`);
  });

  it("drops an entry only after capacity / 2 other keys were used since its last use (nearly LRU)", () => {
    const capacity = 16;
    const cache = new LruCache<number, number>(capacity);
    const random = new SeededRandom("lru");
    /** Each key's last use (a hit or a set), as a count of uses. */
    const lastUse = new Map<number, number>();
    let uses = 0;
    for (let step = 0; step < 20_000; step++) {
      const key = random.int(41);
      if (random.int(2) === 0) {
        if (cache.get(key) !== undefined) lastUse.set(key, ++uses);
      } else {
        cache.set(key, step);
        lastUse.set(key, ++uses);
      }
      assert.ok(cache.size <= capacity);
      const order = [...lastUse.values()].sort((a, b) => b - a);
      for (const [k, at] of lastUse) {
        const usedSince = order.indexOf(at);
        if (usedSince < capacity / 2) assert.ok(cache.has(k), `key ${k}: ${usedSince} other keys used since`);
      }
    }
  });
});

describe("verifyEd25519 and its key cache", () => {
  const random = new SeededRandom("key cache");
  const message = Buffer.from(random.bytes(32));
  // Signed with node:crypto directly, so that only verifyEd25519 puts keys in its cache.
  const sign = (seed: Uint8Array) => ({
    publicKey: publicKeyFromSeed(seed),
    signature: new Uint8Array(cryptoSign(null, message, privateKeyFromSeed(seed))),
  });

  it("uses the named limit and caches each key once", () => {
    assert.equal(ed25519KeyCache.capacity, keyCacheEntriesMax);
    const before = ed25519KeyCache.size;
    const signed = Array.from({ length: 20 }, () => sign(random.bytes(32)));
    for (let round = 0; round < 3; round++) {
      for (const f of signed) assert.equal(verifyEd25519(f.publicKey, f.signature, message), true);
    }
    assert.equal(ed25519KeyCache.size, before + 20);
    assert.ok(ed25519KeyCache.size <= keyCacheEntriesMax);
  });

  it("agrees with node:crypto on an SPKI-DER key, for valid, altered and random inputs", () => {
    for (let i = 0; i < 200; i++) {
      const f = sign(random.bytes(32));
      const publicKey = i % 4 === 3 ? random.bytes(32) : f.publicKey; // some random points, some invalid
      const signature = new Uint8Array(f.signature);
      if (i % 2 === 1) signature[random.int(64)]! ^= 1 << random.int(8);
      const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), publicKey]);
      let expected: boolean;
      try {
        expected = verify(null, message, createPublicKey({ key: spki, format: "der", type: "spki" }), signature);
      } catch {
        expected = false;
      }
      assert.equal(verifyEd25519(publicKey, signature, message), expected, `case ${i}`);
      if (i % 4 === 0) assert.equal(expected, true);
    }
  });

  it("is false for wrong lengths", () => {
    const f = sign(random.bytes(32));
    assert.equal(verifyEd25519(f.publicKey.subarray(0, 31), f.signature, message), false);
    assert.equal(verifyEd25519(f.publicKey, f.signature.subarray(0, 63), message), false);
    assert.equal(verifyEd25519(f.publicKey, new Uint8Array(65), message), false);
    assert.equal(verifyEd25519(f.publicKey, f.signature, message.subarray(1)), false);
  });

  it(`stays within ${keyCacheEntriesMax} entries when more keys come by`, () => {
    const f = sign(random.bytes(32));
    assert.equal(verifyEd25519(f.publicKey, f.signature, message), true);
    const filler = ed25519PublicKey(random.bytes(32));
    // Cache keys of another length than a raw key's 32 characters, so no real key is shadowed.
    for (let i = 0; i < keyCacheEntriesMax + 1_000; i++) ed25519KeyCache.set(`filler ${i}`, filler);
    assert.equal(ed25519KeyCache.size, keyCacheEntriesMax);
    // The real key was the least recently used: dropped, and loaded again on the next verify.
    assert.equal(verifyEd25519(f.publicKey, f.signature, message), true);
    assert.equal(ed25519KeyCache.size, keyCacheEntriesMax);
  });
});

describe("ed25519PublicKeyOfBase58", () => {
  // The key takes the text it was decoded from as its base58 instead of encoding its bytes again:
  // sound only if every text that decodes to 32 bytes is the one encodeBase58 writes, leading
  // "1"s (zero bytes) included.
  it("gives a key whose base58 is the text it was read from, and the encoding of its bytes", () => {
    const random = new SeededRandom("base58 known");
    for (let i = 0; i < 200; i++) {
      const bytes = random.bytes(32);
      bytes.fill(0, 0, i % 4); // some keys with one to three leading zero bytes
      const text = encodeBase58(bytes);
      const key = ed25519PublicKeyOfBase58(text);
      assert.ok(key !== null);
      assert.equal(key.base58, text);
      assert.deepEqual(decodeBase58(key.base58), bytes);
      assert.equal(ed25519PublicKey(bytes), key);
    }
    assert.equal(ed25519PublicKeyOfBase58("1" + encodeBase58(Uint8Array.of(1, ...new Uint8Array(31)))), null);
  });
});
