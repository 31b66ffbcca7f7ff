import { JsonNumber, type JsonValue } from "../json/jsonValue.js";

// A message quotes at most this many characters of a value, whatever the body holds.
const reprLengthMax = 200;

/**
 * A short Python-style repr of a posted value, as BigchainDB's messages show values (jsonschema's
 * `'x' is not of type`, `str.format` of a non-string). Never throws: a posted object inherits
 * nothing (jsonValue.ts), so `String(object)` would.
 */
export function pyRepr(value: JsonValue | undefined): string {
  const text = reprOf(value);
  return text.length > reprLengthMax ? `${text.slice(0, reprLengthMax)}...` : text;
}

function reprOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (value instanceof JsonNumber) return value.lexeme;
  if (Array.isArray(value)) return `[${value.map(reprOf).join(", ")}]`;
  return `{${Object.keys(value).map((k) => `'${k}': ${reprOf(value[k])}`).join(", ")}}`;
}
