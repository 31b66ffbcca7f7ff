import { Buffer } from "node:buffer";
import { CryptoConditionError } from "./cryptoConditionError.js";

// The schema's pattern for `inputs[].fulfillment` (transaction_v2.0.yaml): no padding, no `+/`.
const base64UrlPattern = /^[A-Za-z0-9_-]*$/;

/**
 * Bytes of a base64url text without padding. Node's decoder skips what it cannot read, so the
 * text is checked first and must also be the canonical encoding of what it decodes to (no length
 * of 4n+1, no stray bits in the last character): one set of bytes, one text.
 */
export function decodeBase64Url(text: string): Uint8Array {
  if (!base64UrlPattern.test(text)) {
    throw new CryptoConditionError("parse", "not base64url: only A-Z, a-z, 0-9, '-' and '_' are allowed");
  }
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text) {
    throw new CryptoConditionError("parse", "not canonical base64url (length or trailing bits)");
  }
  return bytes;
}
