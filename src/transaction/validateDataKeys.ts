import { reject, type Rejection } from "../errors/ledgerError.js";
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from "../json/jsonValue.js";

// The languages MongoDB's text index knows (BigchainDB `backend/schema.py VALID_LANGUAGES`).
const validLanguages = new Set([
  "danish", "dutch", "english", "finnish", "french", "german", "hungarian", "italian",
  "norwegian", "portuguese", "romanian", "russian", "spanish", "swedish", "turkish", "none",
  "da", "nl", "en", "fi", "fr", "de", "hu", "it", "nb", "pt", "ro", "ru", "es", "sv", "tr",
]);

/**
 * BigchainDB's rules on the keys of asset data and metadata (docs/bigchaindb-behaviour.md §2.3,
 * `common/utils.py validate_txn_obj`), in its order: key names in asset data, key names in
 * metadata, then `language` values in asset data, then in metadata. They exist because the
 * original stored these objects in MongoDB; ledgerd keeps them so the same transactions are
 * accepted and refused (docs/compatibility.md #10).
 */
export function validateDataKeys(tx: JsonObject): Rejection | null {
  const asset = tx["asset"];
  const data = isJsonObject(asset) ? asset["data"] : null;
  const metadata = tx["metadata"];
  return (
    checkKeyNames(data ?? null, "asset") ??
    checkKeyNames(metadata ?? null, "metadata") ??
    checkLanguages(data ?? null) ??
    checkLanguages(metadata ?? null)
  );
}

// A key may not start with `$`, nor contain `.` or NUL (regex `^[$]|\.|\x00`); `$` inside is fine.
const badKey = /^[$]|\.|\x00/;

function checkKeyNames(value: JsonValue, objectName: "asset" | "metadata"): Rejection | null {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = checkKeyNames(item, objectName);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isJsonObject(value)) return null;
  for (const key of Object.keys(value)) {
    if (badKey.test(key)) {
      return reject(
        "ValidationError",
        `Invalid key name "${key}" in ${objectName} object. The key name cannot contain ` +
          `characters ".", "$" or null characters`,
      );
    }
    const found = checkKeyNames(value[key] ?? null, objectName);
    if (found !== null) return found;
  }
  return null;
}

// Any `language` key, at any depth, must name a language MongoDB's text search supports.
function checkLanguages(value: JsonValue): Rejection | null {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = checkLanguages(item);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isJsonObject(value)) return null;
  for (const key of Object.keys(value)) {
    const child = value[key] ?? null;
    if (key === "language") {
      if (typeof child !== "string" || !validLanguages.has(child)) {
        return reject(
          "ValidationError",
          `MongoDB does not support text search for the language "${pyStr(child)}". If you do ` +
            `not understand this error message then please rename key/field "language" to ` +
            `something else like "lang".`,
        );
      }
      continue;
    }
    const found = checkLanguages(child);
    if (found !== null) return found;
  }
  return null;
}

function pyStr(value: JsonValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof JsonNumber) return value.lexeme;
  if (typeof value === "string" || typeof value === "number") return String(value);
  return JSON.stringify(value);
}
