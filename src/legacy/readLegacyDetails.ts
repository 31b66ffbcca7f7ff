import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";
import { decodePublicKey } from "../crypto-conditions/decodePublicKey.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { ed25519Bitmask, legacyEd25519Condition } from "./legacyEd25519Condition.js";
import { legacyThresholdCondition, type WeightedCondition } from "./legacyThresholdCondition.js";
import { legacyLimits } from "./limits.js";
import type { LegacyCondition } from "./types.js";

export interface LegacyDetails {
  readonly condition: LegacyCondition;
  /** Every Ed25519 key in the details, depth first, each once. */
  readonly publicKeys: string[];
}

const ed25519Keys = ["bitmask", "public_key", "signature", "type", "type_id"];
const thresholdKeys = ["bitmask", "subfulfillments", "threshold", "type", "type_id"];

/**
 * The condition a `condition.details` object describes (cryptoconditions 0.4.1 `to_dict` /
 * `from_dict`, docs/legacy-variants.md §1.4), and its keys. Strict: exactly the members `to_dict`
 * writes (plus `weight` in a subfulfillment), `type` "fulfillment", `signature` null
 * (docs/legacy-variants.md §1.4: always null in stored conditions), and a `bitmask` equal to the
 * one the structure gives. Unfulfilled `"type": "condition"` branches and other types are refused:
 * `create_tx` never writes them, and the HTTP variants only need Ed25519 and threshold
 * (docs/legacy-variants.md §1.4). Throws CryptoConditionError (`parse`, `unsupported`, `too-deep`,
 * `limit`).
 */
export function readLegacyDetails(details: JsonValue): LegacyDetails {
  const publicKeys = new Set<string>();
  const condition = conditionOf(details, 0, false, publicKeys);
  return { condition, publicKeys: [...publicKeys] };
}

function conditionOf(details: JsonValue, depth: number, weighted: boolean, keys: Set<string>): LegacyCondition {
  if (!isJsonObject(details)) throw parseError("details must be an object");
  if (details["type"] !== "fulfillment") throw parseError(`details type must be "fulfillment"`);
  const typeId = details["type_id"];
  if (typeId === 4) {
    expectMembers(details, ed25519Keys, weighted);
    if (details["bitmask"] !== ed25519Bitmask) throw parseError("an Ed25519 bitmask is 32");
    if (details["signature"] !== null) throw parseError("a condition's signature is null");
    const text = details["public_key"];
    const publicKey = typeof text === "string" ? decodePublicKey(text) : null;
    if (publicKey === null) throw parseError("public_key is not a base58 Ed25519 key");
    keys.add(text as string);
    return legacyEd25519Condition(publicKey);
  }
  if (typeId !== 2) throw new CryptoConditionError("unsupported", `condition type ${String(typeId)} is not supported`);
  expectMembers(details, thresholdKeys, weighted);
  if (depth >= legacyLimits.nestingDepthMax) {
    throw new CryptoConditionError("too-deep", `thresholds nested deeper than ${legacyLimits.nestingDepthMax}`);
  }
  const threshold = details["threshold"];
  const subs = details["subfulfillments"];
  if (!Array.isArray(subs) || subs.length < 1 || subs.length > legacyLimits.ownersMax) {
    throw new CryptoConditionError("limit", `subfulfillments must list 1 to ${legacyLimits.ownersMax} conditions`);
  }
  if (!isCount(threshold)) throw parseError("threshold must be an integer from 1");
  const weightedConditions: WeightedCondition[] = subs.map((sub) => {
    const weight = isJsonObject(sub) ? sub["weight"] : undefined;
    if (!isCount(weight)) throw parseError("a subfulfillment's weight must be an integer from 1");
    return { weight, condition: conditionOf(sub, depth + 1, true, keys) };
  });
  const condition = legacyThresholdCondition(threshold, weightedConditions);
  if (details["bitmask"] !== condition.bitmask) throw parseError(`a threshold bitmask here is ${condition.bitmask}`);
  return condition;
}

function expectMembers(details: JsonObject, expected: readonly string[], weighted: boolean): void {
  const allowed = weighted ? [...expected, "weight"] : expected;
  const present = Object.keys(details);
  const unknown = present.find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw parseError(`unknown member "${unknown}" in details`);
  const missing = allowed.find((key) => !(key in details));
  if (missing !== undefined) throw parseError(`details lack "${missing}"`);
}

/** The old writer encodes integers below 256 only (docs/legacy-variants.md §1.4). */
function isCount(value: JsonValue | undefined): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 255;
}

function parseError(what: string): CryptoConditionError {
  return new CryptoConditionError("parse", `condition details: ${what}`);
}
