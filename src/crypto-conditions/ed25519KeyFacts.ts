import { Buffer } from "node:buffer";
import { ed25519Condition } from "./ed25519Condition.js";
import { encodeBase58 } from "./encodeBase58.js";
import { encodeConditionUri } from "./encodeConditionUri.js";
import { keyCacheEntriesMax } from "./limits.js";
import { LruCache } from "./lruCache.js";

/** What validation derives from an Ed25519 public key, each worked out on first use. */
export class Ed25519KeyFacts {
  #base58: string | undefined;
  #conditionUri: string | undefined;

  constructor(readonly publicKey: Uint8Array) {}

  /** The key as the drivers write it (`owners_before`, `public_keys`). */
  get base58(): string {
    return (this.#base58 ??= encodeBase58(this.publicKey));
  }

  /** The URI of the key's ed25519-sha-256 condition. */
  get conditionUri(): string {
    return (this.#conditionUri ??= encodeConditionUri(ed25519Condition(this.publicKey)));
  }
}

const cache = new LruCache<string, Ed25519KeyFacts>(keyCacheEntriesMax);

/**
 * The facts of a raw 32-byte Ed25519 public key, cached by key: every signed input needs its
 * condition URI, and a CREATE its signer's base58, and the same owners sign again and again.
 * One cache per thread.
 */
export function ed25519KeyFacts(publicKey: Uint8Array): Ed25519KeyFacts {
  const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.length).toString("latin1");
  let facts = cache.get(id);
  if (facts === undefined) {
    facts = new Ed25519KeyFacts(Uint8Array.from(publicKey));
    cache.set(id, facts);
  }
  return facts;
}
