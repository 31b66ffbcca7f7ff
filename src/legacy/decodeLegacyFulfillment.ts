import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";
import { decodeBase64Url } from "../crypto-conditions/decodeBase64Url.js";
import { encodeLegacyFulfillment } from "./encodeLegacyFulfillment.js";
import { ed25519Bitmask, ed25519PayloadBytes } from "./legacyEd25519Condition.js";
import { LegacyReader } from "./legacyReader.js";
import { thresholdBitmask } from "./legacyThresholdCondition.js";
import { legacyLimits } from "./limits.js";
import type { LegacyCondition, LegacyFulfillment, LegacyThresholdBranch } from "./types.js";

// cryptoconditions 0.4.1 `FULFILLMENT_REGEX`.
const fulfillmentUri = /^cf:([1-9a-f][0-9a-f]{0,3}|0):([a-zA-Z0-9_-]*)$/;

/**
 * A `cf:` fulfillment URI (docs/legacy-variants.md §1.4), strictly: only Ed25519 and threshold
 * (nested up to `legacyLimits.nestingDepthMax`), every byte consumed, shortest lengths, and
 * branches in the canonical order, so that a fulfillment has exactly one text. The original ignored
 * trailing bytes and accepted other orders. Throws CryptoConditionError (`parse`, `unsupported`,
 * `too-deep` or `limit`).
 */
export function decodeLegacyFulfillment(uri: string): LegacyFulfillment {
  if (uri.length > legacyLimits.fulfillmentCharsMax) {
    const what = `a fulfillment URI is longer than ${legacyLimits.fulfillmentCharsMax} characters`;
    throw new CryptoConditionError("limit", what);
  }
  const match = fulfillmentUri.exec(uri);
  if (match === null) throw new CryptoConditionError("parse", "not a cf: fulfillment URI");
  const reader = new LegacyReader(decodeBase64Url(match[2]!));
  const fulfillment = readPayload(Number.parseInt(match[1]!, 16), reader, 0);
  reader.expectEnd("the fulfillment");
  if (encodeLegacyFulfillment(fulfillment) !== uri) {
    throw new CryptoConditionError("parse", "legacy fulfillment: branches not in canonical order");
  }
  return fulfillment;
}

function readPayload(typeId: number, reader: LegacyReader, depth: number): LegacyFulfillment {
  if (typeId === 4) {
    return { typeId: 4, publicKey: reader.read(32), signature: reader.read(64) };
  }
  if (typeId !== 2) throw new CryptoConditionError("unsupported", `fulfillment type ${typeId} is not supported`);
  if (depth >= legacyLimits.nestingDepthMax) {
    throw new CryptoConditionError("too-deep", `thresholds nested deeper than ${legacyLimits.nestingDepthMax}`);
  }
  const threshold = reader.varUint();
  const count = reader.varUint();
  if (threshold < 1) throw parseError("a threshold is at least 1");
  if (count < 1 || count > legacyLimits.ownersMax) {
    throw new CryptoConditionError("limit", `a threshold has 1 to ${legacyLimits.ownersMax} branches`);
  }
  const branches: LegacyThresholdBranch[] = [];
  for (let i = 0; i < count; i++) branches.push(readBranch(reader, depth));
  return { typeId: 2, threshold, branches };
}

function readBranch(reader: LegacyReader, depth: number): LegacyThresholdBranch {
  const weight = reader.varUint();
  if (weight < 1) throw parseError("a weight is at least 1");
  const fulfillment = reader.varOctets();
  const condition = reader.varOctets();
  // Exactly one of the two (`ThresholdSha256Fulfillment.parse_payload`).
  if (fulfillment.length > 0 && condition.length > 0) {
    throw parseError("a branch has both a fulfillment and a condition");
  }
  if (fulfillment.length > 0) {
    const inner = new LegacyReader(fulfillment);
    const typeId = inner.uint16();
    const payload = new LegacyReader(inner.varOctets());
    inner.expectEnd("a subfulfillment");
    const sub = readPayload(typeId, payload, depth + 1);
    payload.expectEnd("a subfulfillment payload");
    return { weight, fulfillment: sub };
  }
  if (condition.length > 0) return { weight, condition: readCondition(new LegacyReader(condition)) };
  throw parseError("a branch has neither a fulfillment nor a condition");
}

/** `Condition.parse_binary`, limited to the two supported types and 32-byte hashes. */
function readCondition(reader: LegacyReader): LegacyCondition {
  const typeId = reader.uint16();
  if (typeId !== 2 && typeId !== 4) {
    throw new CryptoConditionError("unsupported", `condition type ${typeId} is not supported`);
  }
  const bitmask = reader.varUint();
  const hash = reader.varOctets();
  const maxFulfillmentLength = reader.varUint();
  reader.expectEnd("a subcondition");
  if (hash.length !== 32) throw parseError("a condition hash is 32 bytes");
  if (typeId === 4 && (bitmask !== ed25519Bitmask || maxFulfillmentLength !== ed25519PayloadBytes)) {
    throw parseError("an Ed25519 condition has bitmask 20 and length 96");
  }
  if (typeId === 2 && (bitmask & thresholdBitmask) !== thresholdBitmask) throw parseError("bad threshold bitmask");
  return { typeId, bitmask, hash, maxFulfillmentLength };
}

function parseError(what: string): CryptoConditionError {
  return new CryptoConditionError("parse", `legacy fulfillment: ${what}`);
}
