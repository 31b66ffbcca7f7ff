import { Buffer } from "node:buffer";
import { createPublicKey, type KeyObject } from "node:crypto";
import { decodePublicKey } from "./decodePublicKey.js";
import { ed25519Condition } from "./ed25519Condition.js";
import { encodeBase58 } from "./encodeBase58.js";
import { encodeConditionUri } from "./encodeConditionUri.js";
import { keyCacheEntriesMax } from "./limits.js";
import { LruCache } from "./lruCache.js";
import type { Condition } from "./condition.js";

/**
 * An Ed25519 public key with what validation derives from it, each worked out on first use:
 * its base58 text, its ed25519-sha-256 condition and URI, and the node:crypto key object that
 * verifies its signatures. Instances are shared through a bounded cache (`ed25519PublicKey`),
 * since the same owners sign and receive again and again.
 */
export class Ed25519PublicKey {
  #base58: string | undefined;
  #condition: Condition | undefined;
  #conditionUri: string | undefined;
  #keyObject: KeyObject | null | undefined;

  /** Use `ed25519PublicKey` or `ed25519PublicKeyOfBase58`, which share instances. */
  constructor(
    /** The raw key; 32 bytes for any key that can verify. Shared through the cache: never written. */
    readonly bytes: Uint8Array,
  ) {}

  /** The key as the drivers write it (`owners_before`, `public_keys`, `public_key`). */
  get base58(): string {
    return (this.#base58 ??= encodeBase58(this.bytes));
  }

  /**
   * Takes `text` as the base58 text of these bytes without encoding them again; only for a text
   * that decoded to them (base58 is a bijection, so it is the one `encodeBase58` would write).
   */
  knowBase58(text: string): void {
    this.#base58 ??= text;
  }

  get condition(): Condition {
    return (this.#condition ??= ed25519Condition(this.bytes));
  }

  get conditionUri(): string {
    return (this.#conditionUri ??= encodeConditionUri(this.condition));
  }

  /**
   * The key object for `crypto.verify`; null when OpenSSL does not take the bytes as a key.
   * Building one costs about as much as a verify (measured: 8,500 verifies/s per core with a
   * cached key object, 4,300/s without), hence the cache.
   */
  get keyObject(): KeyObject | null {
    if (this.#keyObject === undefined) this.#keyObject = loadKeyObject(this.bytes);
    return this.#keyObject;
  }
}

function loadKeyObject(bytes: Uint8Array): KeyObject | null {
  if (bytes.length !== 32) return null;
  try {
    // A JWK (RFC 8037 OKP) rather than SPKI DER: the same KeyObject, but OpenSSL 3 takes the raw
    // key directly instead of running its DER decoder chain (measured: 6 µs against 66 µs).
    const x = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString("base64url");
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
  } catch {
    return null;
  }
}

/** Keys by their raw bytes as a latin1 string. One cache per thread. */
export const ed25519PublicKeyCache = new LruCache<string, Ed25519PublicKey>(keyCacheEntriesMax);

/** Keys by base58 text (an output's `public_key`), sharing the instances above. */
const byBase58 = new LruCache<string, Ed25519PublicKey>(keyCacheEntriesMax);

/** The key of these raw bytes (copied when first seen). */
export function ed25519PublicKey(bytes: Uint8Array): Ed25519PublicKey {
  const id = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
  let key = ed25519PublicKeyCache.get(id);
  if (key === undefined) {
    key = new Ed25519PublicKey(Uint8Array.from(bytes));
    ed25519PublicKeyCache.set(id, key);
  }
  return key;
}

/** The key a base58 text names, or null when it is not base58 of exactly 32 bytes. */
export function ed25519PublicKeyOfBase58(b58: string): Ed25519PublicKey | null {
  const cached = byBase58.get(b58);
  if (cached !== undefined) return cached;
  const bytes = decodePublicKey(b58);
  if (bytes === null) return null;
  const key = ed25519PublicKey(bytes);
  // A new key's output names it in base58 and its fulfillment's owner is compared in base58:
  // the text just decoded spares an encode (measured, BENCHMARKS.md issue #42, second look).
  key.knowBase58(b58);
  byBase58.set(b58, key);
  return key;
}
