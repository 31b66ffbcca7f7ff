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
  if (!isCanonicalTail(text)) {
    throw new CryptoConditionError("parse", "not canonical base64url (length or trailing bits)");
  }
  return Buffer.from(text, "base64url");
}

/**
 * A text of 4n+2 characters ends in 1 byte, whose last character carries 2 bits and 4 unused
 * ones; 4n+3 ends in 2 bytes, with 2 unused bits; 4n+1 cannot be decoded at all. The unused bits
 * must be zero, or other texts would decode to the same bytes (the pattern has been checked).
 */
function isCanonicalTail(text: string): boolean {
  const rest = text.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const unusedBits = rest === 2 ? 0x0f : 0x03;
  return (sextet(text.charCodeAt(text.length - 1)) & unusedBits) === 0;
}

/** The 6-bit value of a base64url character. */
function sextet(c: number): number {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41; // A-Z
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26; // a-z
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52; // 0-9
  return c === 0x2d ? 62 : 63; // '-' or '_'
}
