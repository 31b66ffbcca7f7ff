import { JsonNumber, type JsonObject, type JsonValue } from "./jsonValue.js";
import { quoteJsonKey, quoteJsonString } from "./quoteJsonString.js";

/**
 * Compact JSON in each object's own key order with every number's lexeme as read: how a
 * transaction is stored "as posted" and echoed back. `readJson(writeJson(v))` equals `v`.
 * Strings are escaped as `JSON.stringify` does (a lone surrogate as `\udXXX`).
 *
 * One limit of the model, not of this function: a JS object lists integer-like keys ("0",
 * "17") first, in numeric order, so those keys cannot keep the order they were posted in.
 */
export function writeJson(value: JsonValue): string {
  if (typeof value === "string") return quoteJsonString(value, "js");
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value === null) return "null";
  if (value instanceof JsonNumber) return value.lexeme;
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      out += `${i === 0 ? "" : ","}${writeJson(value[i] as JsonValue)}`;
    }
    return `${out}]`;
  }
  return writeObject(value);
}

function writeObject(object: JsonObject): string {
  let out = "{";
  let first = true;
  for (const key in object) {
    const member = writeJson(object[key] as JsonValue);
    out += `${first ? "" : ","}${quoteJsonKey(key, "js")}:${member}`;
    first = false;
  }
  return `${out}}`;
}
