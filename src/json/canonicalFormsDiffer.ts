import { JsonNumber, type JsonValue } from "./jsonValue.js";
import { serializeNumber } from "./serializeNumber.js";

// A key that could sort differently: a surrogate (astral character) can meet U+E000..U+FFFF,
// and a NUL ends python-rapidjson's `strncmp` comparison. Conservative: no pair check.
const keyMayDiffer = /[\u0000\ud800-\udfff]/;
// A string whose escapes differ: control characters whose `\u00XX` has a hex letter
// (0x0B, 0x0E, 0x0F, 0x1A-0x1F: RapidJSON writes uppercase, JSON.stringify lowercase), or a
// surrogate, which differs when it is lone (checked below).
const stringMayDiffer = /[\u000b\u000e\u000f\u001a-\u001f\ud800-\udfff]/;
const controlDiffers = /[\u000b\u000e\u000f\u001a-\u001f]/;

/**
 * Whether `serializeCanonical(value, "python")` and `(value, "js")` can differ (or the python
 * form can throw). False for most transactions, which then need one serialization and one hash.
 */
export function canonicalFormsDiffer(value: JsonValue): boolean {
  if (typeof value === "string") return stringDiffers(value);
  if (value === null || typeof value !== "object") return false;
  if (value instanceof JsonNumber) {
    return serializeNumber(value, "python") !== serializeNumber(value, "js");
  }
  if (Array.isArray(value)) return value.some(canonicalFormsDiffer);
  for (const key in value) {
    if (keyMayDiffer.test(key) || stringDiffers(key)) return true;
    if (canonicalFormsDiffer(value[key] as JsonValue)) return true;
  }
  return false;
}

function stringDiffers(s: string): boolean {
  if (!stringMayDiffer.test(s)) return false;
  // A surrogate makes the forms differ only when it is lone.
  return controlDiffers.test(s) || !(s as unknown as WellFormedString).isWellFormed();
}

/** Node 20 has `String.prototype.isWellFormed`; the ES2022 lib does not declare it. */
interface WellFormedString {
  isWellFormed(): boolean;
}
