import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";
import { decodeBase64Url } from "../crypto-conditions/decodeBase64Url.js";
import { encodeLegacyCondition } from "./encodeLegacyCondition.js";
import { ed25519Bitmask, ed25519PayloadBytes } from "./legacyEd25519Condition.js";
import { thresholdBitmask } from "./legacyThresholdCondition.js";
import type { LegacyCondition } from "./types.js";

// cryptoconditions 0.4.1 `CONDITION_REGEX_STRICT`: lowercase hex type and bitmask without
// leading zeros, a bitmask of at most 32 bits, a decimal length without leading zeros.
const conditionUri =
  /^cc:([1-9a-f][0-9a-f]{0,3}|0):([1-9a-f][0-9a-f]{0,7}):([a-zA-Z0-9_-]{0,86}):([1-9][0-9]{0,17}|0)$/;

/**
 * A `cc:` condition URI (docs/legacy-variants.md §1.4), strictly: the library's strict pattern,
 * only the two types the HTTP variants use, a canonical 32-byte hash, and what an Ed25519 condition
 * always carries (bitmask 0x20, length 96). Throws CryptoConditionError (`parse` or `unsupported`).
 */
export function decodeLegacyCondition(uri: string): LegacyCondition {
  const match = conditionUri.exec(uri);
  if (match === null) throw new CryptoConditionError("parse", "not a cc: condition URI");
  const [, typeHex, bitmaskHex, hashText, lengthText] = match as unknown as [string, string, string, string, string];
  const typeId = Number.parseInt(typeHex, 16);
  if (typeId !== 2 && typeId !== 4) {
    throw new CryptoConditionError("unsupported", `condition type ${typeId} is not supported`);
  }
  const bitmask = Number.parseInt(bitmaskHex, 16);
  const hash = decodeBase64Url(hashText);
  if (hash.length !== 32) throw new CryptoConditionError("parse", "a condition hash is 32 bytes");
  const maxFulfillmentLength = Number(lengthText);
  if (!Number.isSafeInteger(maxFulfillmentLength)) {
    throw new CryptoConditionError("parse", "max fulfillment length out of range");
  }
  if (typeId === 4 && (bitmask !== ed25519Bitmask || maxFulfillmentLength !== ed25519PayloadBytes)) {
    throw new CryptoConditionError("parse", "an Ed25519 condition has bitmask 20 and length 96");
  }
  if (typeId === 2 && (bitmask & thresholdBitmask) !== thresholdBitmask) {
    throw new CryptoConditionError("parse", "a threshold condition's bitmask includes 09");
  }
  const condition: LegacyCondition = { typeId, bitmask, hash, maxFulfillmentLength };
  // The pattern and the base64url check leave one text per condition; keep it that way.
  if (encodeLegacyCondition(condition) !== uri) throw new CryptoConditionError("parse", "not canonical");
  return condition;
}
