// What the one search box means by what was typed. Pure.
import type { Route } from "./route.js";

/** A transaction id (SHA3-256, hex); an asset id is its CREATE's id, so it lands here too. */
const txIdPattern = /^[0-9a-fA-F]{64}$/;
/** A block height: digits, short enough to be a safe integer. */
const heightPattern = /^[0-9]{1,15}$/;
/** An Ed25519 public key in base58 (Bitcoin alphabet): 32 bytes are 43 or 44 characters. */
const publicKeyPattern = /^[1-9A-HJ-NP-Za-km-z]{43,44}$/;

/**
 * 64 hex digits: a transaction; digits: a block; base58 of 43-44 characters: a public key;
 * anything else: words for the asset and metadata search. Null for nothing typed.
 */
export function classifyQuery(text: string): Route | null {
  const q = text.trim();
  if (q === "") return null;
  if (txIdPattern.test(q)) return { page: "tx", id: q.toLowerCase() };
  if (heightPattern.test(q)) return { page: "block", height: Number(q) };
  if (publicKeyPattern.test(q)) return { page: "key", key: q };
  return { page: "search", words: q };
}
