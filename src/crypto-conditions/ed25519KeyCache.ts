import type { KeyObject } from "node:crypto";
import { keyCacheEntriesMax } from "./limits.js";
import { LruCache } from "./lruCache.js";

/**
 * Ed25519 public KeyObjects by raw key (as a latin1 string), for `verifyEd25519`. Building a
 * KeyObject costs about as much as a verify (measured: 8,500 verifies/s per core with a cached
 * key object, 4,300/s without), and the same owners sign again and again. One per thread.
 */
export const ed25519KeyCache = new LruCache<string, KeyObject>(keyCacheEntriesMax);
