import { Buffer } from "node:buffer";
import { createPrivateKey, type KeyObject } from "node:crypto";
import { seedKeyCacheEntriesMax } from "./limits.js";
import { LruCache } from "./lruCache.js";

// PKCS#8 PrivateKeyInfo for Ed25519 (RFC 8410) up to the 32-byte seed.
const pkcs8Prefix = Buffer.from("302e020100300506032b657004220420", "hex");

// Loading a PKCS#8 key runs OpenSSL 3's decoder chain, about 300 µs, against 23 µs for a
// signature; builders sign with the same few keys again and again.
const cache = new LruCache<string, KeyObject>(seedKeyCacheEntriesMax);

/** The node:crypto private key of a 32-byte Ed25519 seed (what BigchainDB calls the private key). */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  const raw = Buffer.from(seed.buffer, seed.byteOffset, 32);
  const cacheKey = raw.toString("latin1");
  const cached = cache.get(cacheKey);
  if (cached !== undefined) return cached;
  const key = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, raw]), format: "der", type: "pkcs8" });
  cache.set(cacheKey, key);
  return key;
}
