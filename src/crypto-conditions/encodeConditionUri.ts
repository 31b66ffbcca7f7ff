import { encodeBase64Url } from "./encodeBase64Url.js";
import type { Condition } from "./condition.js";

/**
 * The condition URI (draft-04 "Condition URI", RFC 6920 named information) as BigchainDB writes
 * it: `ni:///sha-256;<b64url fingerprint>?fpt=<type>&cost=<cost>`, plus `&subtypes=<names>` for a
 * threshold, names sorted and comma-joined (`cryptoconditions/condition.py`, JS `serializeUri`).
 */
export function encodeConditionUri(condition: Condition): string {
  const fingerprint = encodeBase64Url(condition.fingerprint);
  const base = `ni:///sha-256;${fingerprint}?fpt=${condition.type}&cost=${condition.cost}`;
  if (condition.type === "ed25519-sha-256") return base;
  return `${base}&subtypes=${condition.subtypes.join(",")}`;
}
