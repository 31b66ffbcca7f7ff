import { compareDer } from "./compareDer.js";
import { CryptoConditionError } from "./cryptoConditionError.js";
import { decodeBase64Url } from "./decodeBase64Url.js";
import { DerReader, type DerElement } from "./derReader.js";
import { ed25519PublicKey } from "./ed25519PublicKey.js";
import { encodeSubtypes } from "./encodeSubtypes.js";
import {
  fulfillmentBytesMax,
  nestingDepthMax,
  subconditionsMax,
  subfulfillmentsMax,
} from "./limits.js";
import type { Condition, ConditionTypeName } from "./condition.js";
import type { Fulfillment, ThresholdFulfillment } from "./types.js";

// The characters of the largest fulfillment accepted, checked before anything is decoded.
const fulfillmentCharsMax = Math.ceil((fulfillmentBytesMax * 4) / 3);

/**
 * The fulfillment an `inputs[].fulfillment` text carries (draft-04 Fulfillment, DER, as base64url
 * without padding). Throws CryptoConditionError:
 * - `parse`: bad base64url, malformed or non-canonical DER (lengths, integers, SET OF order,
 *   subtypes), wrong key or signature lengths, trailing bytes, a threshold without subfulfillments;
 * - `unsupported`: preimage, prefix, RSA or an unknown type, anywhere in the tree
 *   (docs/compatibility.md #8);
 * - `too-deep`: a node deeper than `nestingDepthMax`;
 * - `limit`: more than `subfulfillmentsMax` / `subconditionsMax` children, or more than
 *   `fulfillmentBytesMax` bytes.
 *
 * Only the canonical encoding is accepted, which is what both reference encoders write; so
 * `encodeFulfillment(decodeFulfillment(text)) === text`, and nobody can re-encode a pending
 * transaction's fulfillment to give it another id.
 */
export function decodeFulfillment(text: string): Fulfillment {
  if (text.length > fulfillmentCharsMax) {
    throw new CryptoConditionError("limit", `fulfillment longer than ${fulfillmentBytesMax} bytes`);
  }
  const bytes = decodeBase64Url(text);
  const reader = new DerReader(bytes, 0, bytes.length);
  const fulfillment = fulfillmentOf(bytes, reader.read(), 0);
  if (!reader.atEnd) throw parseError("trailing bytes after the fulfillment");
  return fulfillment;
}

function fulfillmentOf(bytes: Uint8Array, element: DerElement, depth: number): Fulfillment {
  // ThresholdTooDeep is checked before the type, as in BigchainDB's `_fulfillment_from_details`.
  if (depth > nestingDepthMax) throw tooDeepError();
  if (element.tag === 0xa4) return ed25519FulfillmentOf(bytes, element);
  if (element.tag === 0xa2) return thresholdFulfillmentOf(bytes, element, depth);
  throw unexpectedTypeError(element.tag, "fulfillment");
}

function ed25519FulfillmentOf(bytes: Uint8Array, element: DerElement): Fulfillment {
  const reader = new DerReader(bytes, element.contentStart, element.end);
  const publicKey = reader.readTagged(0x80, "an ed25519 public key");
  if (publicKey.end - publicKey.contentStart !== 32) throw parseError("an ed25519 public key is 32 bytes");
  const signature = reader.readTagged(0x81, "an ed25519 signature");
  if (signature.end - signature.contentStart !== 64) throw parseError("an ed25519 signature is 64 bytes");
  if (!reader.atEnd) throw parseError("trailing bytes in an ed25519 fulfillment");
  return {
    type: "ed25519-sha-256",
    publicKey: ed25519PublicKey(bytes.subarray(publicKey.contentStart, publicKey.end)),
    signature: bytes.slice(signature.contentStart, signature.end),
  };
}

function thresholdFulfillmentOf(
  bytes: Uint8Array,
  element: DerElement,
  depth: number,
): ThresholdFulfillment {
  const reader = new DerReader(bytes, element.contentStart, element.end);
  const subfulfillmentSet = reader.readTagged(0xa0, "the subfulfillments of a threshold");
  const subconditionSet = reader.readTagged(0xa1, "the subconditions of a threshold");
  if (!reader.atEnd) throw parseError("trailing bytes in a threshold fulfillment");

  const subfulfillments: Fulfillment[] = [];
  const subfulfillmentReader = new DerReader(bytes, subfulfillmentSet.contentStart, subfulfillmentSet.end);
  for (let previous: DerElement | null = null; !subfulfillmentReader.atEnd; ) {
    const child = subfulfillmentReader.read();
    if (subfulfillments.length === subfulfillmentsMax) {
      throw new CryptoConditionError("limit", `more than ${subfulfillmentsMax} subfulfillments`);
    }
    assertSetOrder(bytes, previous, child);
    subfulfillments.push(fulfillmentOf(bytes, child, depth + 1));
    previous = child;
  }
  // The threshold is the number of subfulfillments, and the draft's threshold is 1..65535 (the
  // JS reference's setThreshold(0) throws while parsing).
  if (subfulfillments.length === 0) throw parseError("a threshold fulfillment needs a subfulfillment");

  const subconditions: Condition[] = [];
  const subconditionReader = new DerReader(bytes, subconditionSet.contentStart, subconditionSet.end);
  for (let previous: DerElement | null = null; !subconditionReader.atEnd; ) {
    const child = subconditionReader.read();
    if (subfulfillments.length + subconditions.length === subconditionsMax) {
      throw new CryptoConditionError("limit", `more than ${subconditionsMax} subconditions`);
    }
    assertSetOrder(bytes, previous, child);
    subconditions.push(conditionOf(bytes, child, depth + 1));
    previous = child;
  }
  return { type: "threshold-sha-256", subfulfillments, subconditions };
}

function conditionOf(bytes: Uint8Array, element: DerElement, depth: number): Condition {
  if (depth > nestingDepthMax) throw tooDeepError();
  const isEd25519 = element.tag === 0xa4;
  if (!isEd25519 && element.tag !== 0xa2) throw unexpectedTypeError(element.tag, "condition");
  const reader = new DerReader(bytes, element.contentStart, element.end);
  const fingerprint = reader.readTagged(0x80, "a condition fingerprint");
  if (fingerprint.end - fingerprint.contentStart !== 32) throw parseError("a fingerprint is 32 bytes");
  const cost = costOf(bytes, reader.readTagged(0x81, "a condition cost"));
  const subtypes = isEd25519 ? [] : subtypesOf(bytes, reader.readTagged(0x82, "condition subtypes"));
  if (!reader.atEnd) throw parseError("trailing bytes in a condition");
  return {
    type: isEd25519 ? "ed25519-sha-256" : "threshold-sha-256",
    fingerprint: bytes.slice(fingerprint.contentStart, fingerprint.end),
    cost,
    subtypes,
  };
}

/** A DER INTEGER that is non-negative, minimal, and a safe integer (the JS reference's limit). */
function costOf(bytes: Uint8Array, element: DerElement): number {
  const { contentStart: start, end } = element;
  if (end === start) throw parseError("empty cost");
  if (bytes[start]! >= 0x80) throw parseError("negative cost");
  if (bytes[start] === 0 && end - start > 1 && bytes[start + 1]! < 0x80) throw parseError("non-minimal cost");
  let cost = 0;
  for (let i = start; i < end; i++) cost = cost * 256 + bytes[i]!;
  if (!Number.isSafeInteger(cost)) throw parseError("cost out of range");
  return cost;
}

// Bit number to type name; every other bit names a type that is not supported here.
const subtypeNames = new Map<number, ConditionTypeName>([
  [2, "threshold-sha-256"],
  [4, "ed25519-sha-256"],
]);

function subtypesOf(bytes: Uint8Array, element: DerElement): ConditionTypeName[] {
  const content = bytes.subarray(element.contentStart, element.end);
  if (content.length < 2 || content[0]! > 7) throw parseError("malformed subtypes");
  const subtypes: ConditionTypeName[] = [];
  for (let i = 1; i < content.length; i++) {
    for (let bit = 0; bit < 8; bit++) {
      if ((content[i]! & (0x80 >>> bit)) === 0) continue;
      const id = (i - 1) * 8 + bit;
      const name = subtypeNames.get(id);
      if (name === undefined) {
        throw new CryptoConditionError("unsupported", `unsupported subtype (type id ${id})`);
      }
      subtypes.push(name);
    }
  }
  subtypes.sort();
  // Only the form the references write (`encodeSubtypes`), so the bytes re-encode unchanged.
  if (compareDer(encodeSubtypes(subtypes), content) !== 0) throw parseError("non-canonical subtypes");
  return subtypes;
}

/** DER SET OF order: each element's encoding sorts at or after the one before (X.690 11.6). */
function assertSetOrder(bytes: Uint8Array, previous: DerElement | null, current: DerElement): void {
  if (previous === null) return;
  const a = bytes.subarray(previous.start, previous.end);
  const b = bytes.subarray(current.start, current.end);
  if (compareDer(a, b) > 0) throw parseError("SET OF elements not in DER order");
}

// Context-specific constructed tags [0]..[4] are the draft's type registry.
const typeNamesById = [
  "preimage-sha-256",
  "prefix-sha-256",
  "threshold-sha-256",
  "rsa-sha-256",
  "ed25519-sha-256",
];

function unexpectedTypeError(tag: number, what: string): CryptoConditionError {
  if ((tag & 0xe0) !== 0xa0) return parseError(`not a ${what}`);
  const id = tag & 0x1f;
  const name = typeNamesById[id] ?? `type id ${id}`;
  return new CryptoConditionError("unsupported", `unsupported ${what} type ${name}`);
}

function tooDeepError(): CryptoConditionError {
  return new CryptoConditionError("too-deep", `threshold nesting deeper than ${nestingDepthMax}`);
}

function parseError(message: string): CryptoConditionError {
  return new CryptoConditionError("parse", message);
}
