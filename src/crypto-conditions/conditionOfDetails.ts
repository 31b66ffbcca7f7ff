import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { CryptoConditionError } from "./cryptoConditionError.js";
import { ed25519PublicKeyOfBase58, type Ed25519PublicKey } from "./ed25519PublicKey.js";
import { nestingDepthMax, subconditionsMax, subfulfillmentsMax } from "./limits.js";
import { thresholdCondition } from "./thresholdCondition.js";
import type { Condition } from "./condition.js";

/** Called with each ed25519 `public_key` of a details tree, in order of appearance. */
export type PublicKeyVisitor = (publicKey: string) => void;

/**
 * The condition a wire `condition.details` object describes, recomputed the way BigchainDB's
 * `_fulfillment_from_details` does: `{type:"ed25519-sha-256", public_key:<b58>}` or
 * `{type:"threshold-sha-256", threshold:n, subconditions:[...]}`. Other keys are ignored (the
 * schema forbids them). Throws CryptoConditionError: `too-deep` for a node at depth 100 (the
 * root is 0), checked first as BigchainDB does; `unsupported` for another string `type`; `limit`
 * for a threshold over `subfulfillmentsMax` or more than `subconditionsMax` subconditions;
 * `parse` for anything else malformed.
 */
export function conditionOfDetails(details: JsonValue, visitPublicKey?: PublicKeyVisitor): Condition {
  return conditionAt(details, 0, visitPublicKey);
}

function conditionAt(details: JsonValue, depth: number, visit: PublicKeyVisitor | undefined): Condition {
  // ThresholdTooDeep comes before any other check (`if _depth == 100: raise ThresholdTooDeep()`).
  if (depth > nestingDepthMax) {
    throw new CryptoConditionError("too-deep", `threshold nesting deeper than ${nestingDepthMax}`);
  }
  if (!isJsonObject(details)) throw parseError("condition details must be an object");
  const type = details["type"];
  if (type === "ed25519-sha-256") return ed25519At(details, visit);
  if (type === "threshold-sha-256") return thresholdAt(details, depth, visit);
  if (typeof type !== "string") throw parseError("condition details need a string type");
  throw new CryptoConditionError("unsupported", `unsupported condition type "${type}"`);
}

function ed25519At(details: JsonObject, visit: PublicKeyVisitor | undefined): Condition {
  return ed25519KeyAt(details, visit).condition;
}

/**
 * The key of ed25519 details. A public key is base58 of exactly 32 bytes (BigchainDB's schema
 * pattern is unanchored); keys and their conditions are cached (ed25519PublicKey.ts).
 */
export function ed25519KeyAt(details: JsonObject, visit?: PublicKeyVisitor): Ed25519PublicKey {
  const b58 = details["public_key"];
  const key = typeof b58 === "string" ? ed25519PublicKeyOfBase58(b58) : null;
  if (key === null) throw parseError("public_key must be base58 of 32 bytes");
  visit?.(b58 as string);
  return key;
}

function thresholdAt(details: JsonObject, depth: number, visit: PublicKeyVisitor | undefined): Condition {
  const threshold = details["threshold"];
  // Python's ThresholdSha256 takes an int >= 1 (a JSON `2.0` is a float there, and is refused).
  if (typeof threshold !== "number" || !Number.isInteger(threshold) || threshold < 1) {
    throw parseError("threshold must be an integer of at least 1");
  }
  // The schema caps `threshold` at 100 (`condition_details`).
  if (threshold > subfulfillmentsMax) {
    throw new CryptoConditionError("limit", `threshold above ${subfulfillmentsMax}`);
  }
  const subconditions = details["subconditions"];
  if (!Array.isArray(subconditions)) throw parseError("subconditions must be an array");
  if (subconditions.length > subconditionsMax) {
    throw new CryptoConditionError("limit", `more than ${subconditionsMax} subconditions`);
  }
  const children = subconditions.map((child) => conditionAt(child, depth + 1, visit));
  return thresholdCondition(threshold, children);
}

function parseError(message: string): CryptoConditionError {
  return new CryptoConditionError("parse", message);
}
