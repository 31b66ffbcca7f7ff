import { decodePublicKey } from "../crypto-conditions/decodePublicKey.js";
import { reject, type Rejection } from "../errors/ledgerError.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { legacyNames } from "./legacyNames.js";
import { legacyLimits } from "./limits.js";
import type { LegacyVariant } from "./types.js";

const unknownShape =
  "unknown transaction shape: neither variant A (transaction.version, owners_before, owners_after) " +
  "nor variant B (a top-level version, current_owners, new_owners)";

/**
 * Which earlier interface a body belongs to, by its shape alone (docs/compatibility.md #13,
 * docs/legacy-variants.md §7.6): B has a top-level integer `version` and `current_owners` /
 * `new_owners`; A has `transaction.version` and `owners_before` / `owners_after`. A body with signs
 * of both is "mixed", one with neither "unknown"; both are LegacyInvalid (400).
 *
 * Then the whole shape of that variant, so that everything downstream can read fields without
 * checking them again: exactly the members `create_tx` writes (docs/legacy-variants.md §1.7, §3)
 * plus an optional top-level `assignee` (dropped when stored); `version` the integer 1; `operation`
 * CREATE or TRANSFER; a CREATE with one fulfillment and a null input, a TRANSFER with an input
 * on every fulfillment; `fid` and `cid` equal to their index (as `create_tx` numbers them, which
 * makes "sort by cid, then index" the plain index, docs/legacy-variants.md §5); a condition for
 * every fulfillment (the signing message takes `conditions[fid]`); base58 Ed25519 owner keys;
 * `data` = `{payload: object or null, uuid}` (v0.4.2+, "B2" in docs/legacy-variants.md §2); a
 * payload without floats, integers beyond 2^53, lone surrogates or NUL in keys (see legacyTxId.ts).
 * The originals checked none of this and answered malformed bodies with 500
 * (docs/legacy-variants.md §3).
 */
export function classifyLegacy(body: JsonValue): LegacyVariant | Rejection {
  if (!isJsonObject(body)) return invalid("a legacy transaction must be a JSON object");
  const transaction = body["transaction"];
  if (!isJsonObject(transaction)) return invalid(unknownShape);
  const variant = variantOf(body, transaction);
  if (typeof variant !== "string") return variant;
  const problem = topProblem(body, variant) ?? transactionProblem(transaction, variant);
  return problem === null ? variant : invalid(problem);
}

function invalid(message: string): Rejection {
  return reject("LegacyInvalid", message);
}

function variantOf(body: JsonObject, transaction: JsonObject): LegacyVariant | Rejection {
  const signsOfA: string[] = [];
  const signsOfB: string[] = [];
  if ("version" in transaction) signsOfA.push("transaction.version");
  if ("version" in body) signsOfB.push("a top-level version");
  for (const [list, names] of [
    [transaction["fulfillments"], ["owners_before", "current_owners"]],
    [transaction["conditions"], ["owners_after", "new_owners"]],
  ] as const) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isJsonObject(item)) continue;
      if (names[0] in item && !signsOfA.includes(names[0])) signsOfA.push(names[0]);
      if (names[1] in item && !signsOfB.includes(names[1])) signsOfB.push(names[1]);
    }
  }
  // Mixed or unknown shapes are refused (docs/compatibility.md #13).
  if (signsOfA.length > 0 && signsOfB.length > 0) {
    const a = signsOfA.join(", ");
    return invalid(`mixed transaction shape: ${a} (variant A) with ${signsOfB.join(", ")} (variant B)`);
  }
  if (signsOfA.length === 0 && signsOfB.length === 0) return invalid(unknownShape);
  const variant: LegacyVariant = signsOfA.length > 0 ? "A" : "B";
  const version = variant === "A" ? transaction["version"] : body["version"];
  const where = variant === "A" ? "transaction.version" : "version";
  // Only version 1 ever existed; accept nothing else (docs/legacy-variants.md §7.6).
  if (version === undefined) return invalid(`variant ${variant} needs ${where}`);
  if (version !== 1) return invalid(`${where} must be the integer 1`);
  return variant;
}

function topProblem(body: JsonObject, variant: LegacyVariant): string | null {
  const members = variant === "A" ? ["id", "transaction"] : ["id", "transaction", "version"];
  const problem = membersProblem(body, members, ["assignee"], "the transaction");
  if (problem !== null) return problem;
  if (typeof body["id"] !== "string") return "id must be a string";
  if ("assignee" in body && typeof body["assignee"] !== "string") return "assignee must be a string";
  return null;
}

const transactionMembers = ["conditions", "data", "fulfillments", "operation", "timestamp"];
const timestampPattern = /^[0-9]+(\.[0-9]+)?$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function transactionProblem(transaction: JsonObject, variant: LegacyVariant): string | null {
  const members = variant === "A" ? [...transactionMembers, "version"] : transactionMembers;
  const problem = membersProblem(transaction, members, [], "transaction");
  if (problem !== null) return problem;
  const operation = transaction["operation"];
  if (operation !== "CREATE" && operation !== "TRANSFER") {
    return 'transaction.operation must be "CREATE" or "TRANSFER"';
  }
  const timestamp = transaction["timestamp"];
  const timestampValid =
    typeof timestamp === "string" &&
    timestamp.length <= legacyLimits.timestampCharsMax &&
    timestampPattern.test(timestamp);
  if (!timestampValid) {
    return "transaction.timestamp must be a string of epoch seconds";
  }
  return (
    dataProblem(transaction["data"]!) ??
    fulfillmentsProblem(transaction, variant, operation) ??
    conditionsProblem(transaction, variant)
  );
}

function dataProblem(data: JsonValue): string | null {
  if (!isJsonObject(data)) return "transaction.data must be an object {payload, uuid}";
  const problem = membersProblem(data, ["payload", "uuid"], [], "transaction.data");
  if (problem !== null) return problem;
  const uuid = data["uuid"];
  if (typeof uuid !== "string" || !uuidPattern.test(uuid)) return "transaction.data.uuid must be a lowercase UUID";
  // `create_tx` refuses any other payload (docs/legacy-variants.md §1.7).
  const payload = data["payload"]!;
  if (payload !== null && !isJsonObject(payload)) return "transaction.data.payload must be an object or null";
  return payloadProblem(payload, "transaction.data.payload");
}

/** Values the id serialization can write exactly as the original did (see legacyTxId.ts). */
function payloadProblem(value: JsonValue, path: string): string | null {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? null : `${path}: only integers up to 2^53 are accepted`;
  }
  if (typeof value === "string") return wellFormed(value) ? null : `${path}: a lone surrogate cannot be hashed`;
  if (value === null || typeof value === "boolean") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = payloadProblem(value[i]!, `${path}[${i}]`);
      if (problem !== null) return problem;
    }
    return null;
  }
  if (!isJsonObject(value)) return `${path}: numbers with a fraction or exponent, or beyond 2^53, are not accepted`;
  for (const key of Object.keys(value)) {
    // python-rapidjson's key order treats NUL specially; no legacy client ever wrote one.
    if (!wellFormed(key) || key.includes("\u0000")) return `${path}: a key with NUL or a lone surrogate`;
    const problem = payloadProblem(value[key]!, `${path}.${key}`);
    if (problem !== null) return problem;
  }
  return null;
}

function wellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function fulfillmentsProblem(transaction: JsonObject, variant: LegacyVariant, operation: string): string | null {
  const owners = legacyNames[variant].ownersBefore;
  const list = transaction["fulfillments"];
  if (!Array.isArray(list) || list.length < 1 || list.length > legacyLimits.fulfillmentsMax) {
    return `transaction.fulfillments must list 1 to ${legacyLimits.fulfillmentsMax} fulfillments`;
  }
  // `create_tx` makes exactly one fulfillment for a CREATE.
  if (operation === "CREATE" && list.length !== 1) return "a CREATE has exactly one fulfillment";
  for (let fid = 0; fid < list.length; fid++) {
    const path = `transaction.fulfillments[${fid}]`;
    const item = list[fid]!;
    if (!isJsonObject(item)) return `${path} must be an object`;
    const problem = membersProblem(item, ["fid", "fulfillment", "input", owners], [], path);
    if (problem !== null) return problem;
    if (item["fid"] !== fid) return `${path}.fid must be ${fid}`;
    const text = item["fulfillment"];
    if (text !== null && typeof text !== "string") return `${path}.fulfillment must be a string or null`;
    const keysProblem = keyListProblem(item[owners]!, `${path}.${owners}`);
    if (keysProblem !== null) return keysProblem;
    const input = item["input"]!;
    // A CREATE spends nothing; anything else spends on every fulfillment (docs/legacy-variants.md
    // §5.1, §5.2).
    if (operation === "CREATE" && input !== null) return `${path}.input must be null in a CREATE`;
    if (operation === "TRANSFER") {
      const inputProblem = inputRefProblem(input, `${path}.input`);
      if (inputProblem !== null) return inputProblem;
    }
  }
  return null;
}

function inputRefProblem(input: JsonValue, path: string): string | null {
  if (!isJsonObject(input)) return `${path} must be {cid, txid} in a TRANSFER`;
  const problem = membersProblem(input, ["cid", "txid"], [], path);
  if (problem !== null) return problem;
  const cid = input["cid"];
  if (typeof cid !== "number" || !Number.isInteger(cid) || cid < 0 || cid >= legacyLimits.conditionsMax) {
    return `${path}.cid must be an integer from 0 to ${legacyLimits.conditionsMax - 1}`;
  }
  const txid = input["txid"];
  if (typeof txid !== "string" || !/^[0-9a-f]{64}$/.test(txid)) return `${path}.txid must be 64 lowercase hex digits`;
  return null;
}

function conditionsProblem(transaction: JsonObject, variant: LegacyVariant): string | null {
  const owners = legacyNames[variant].ownersAfter;
  const list = transaction["conditions"];
  const fulfillments = (transaction["fulfillments"] as JsonValue[]).length;
  if (!Array.isArray(list) || list.length < fulfillments || list.length > legacyLimits.conditionsMax) {
    const range = `${fulfillments} to ${legacyLimits.conditionsMax}`;
    return `transaction.conditions must list ${range} conditions, one per fulfillment at least`;
  }
  for (let cid = 0; cid < list.length; cid++) {
    const path = `transaction.conditions[${cid}]`;
    const item = list[cid]!;
    if (!isJsonObject(item)) return `${path} must be an object`;
    const problem = membersProblem(item, ["cid", "condition", owners], [], path);
    if (problem !== null) return problem;
    if (item["cid"] !== cid) return `${path}.cid must be ${cid}`;
    const condition = item["condition"]!;
    if (!isJsonObject(condition)) return `${path}.condition must be an object {details, uri}`;
    const conditionProblem = membersProblem(condition, ["details", "uri"], [], `${path}.condition`);
    if (conditionProblem !== null) return conditionProblem;
    if (!isJsonObject(condition["details"]!)) return `${path}.condition.details must be an object`;
    if (typeof condition["uri"] !== "string") return `${path}.condition.uri must be a string`;
    const keysProblem = keyListProblem(item[owners]!, `${path}.${owners}`);
    if (keysProblem !== null) return keysProblem;
  }
  return null;
}

function keyListProblem(keys: JsonValue, path: string): string | null {
  if (!Array.isArray(keys) || keys.length < 1 || keys.length > legacyLimits.ownersMax) {
    return `${path} must list 1 to ${legacyLimits.ownersMax} keys`;
  }
  for (const key of keys) {
    if (typeof key !== "string" || decodePublicKey(key) === null) return `${path}: not a base58 Ed25519 public key`;
  }
  return null;
}

/** Exactly the `required` members, plus any of `optional`. */
function membersProblem(
  object: JsonObject,
  required: readonly string[],
  optional: readonly string[],
  path: string,
): string | null {
  for (const key of Object.keys(object)) {
    if (!required.includes(key) && !optional.includes(key)) return `unknown member "${key}" in ${path}`;
  }
  const missing = required.find((key) => !(key in object));
  return missing === undefined ? null : `${path} lacks "${missing}"`;
}
