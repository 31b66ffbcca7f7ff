import { JsonNumber } from "./jsonValue.js";
import type { CanonicalForm } from "./canonicalForm.js";

/**
 * A number as each canonical form writes it (docs/bigchaindb-behaviour.md §2.1).
 * - "python": python-rapidjson with Python's own number objects. Integers of any size print
 *   exactly (`int.__repr__`, so `-0` is `0`); floats print as `repr(float)`. The float case is
 *   python-rapidjson's fix for its issue #101 (it calls `PyObject_Repr` instead of RapidJSON's
 *   dtoa), checked by running python-rapidjson 0.9.4 (test/compat/python).
 * - "js": `JSON.stringify(Number(lexeme))`, what json-stable-stringify gives in the JS driver.
 * Plain numbers are safe integers as read (jsonValue.ts) and print the same in both forms.
 */
export function serializeNumber(value: number | JsonNumber, form: CanonicalForm): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("a JsonValue number must be finite");
    if (Number.isSafeInteger(value) || form === "js") return String(value);
    // Not produced by readJson: a non-integer built in code is what Python calls a float.
    return pythonFloatRepr(value);
  }
  const n = Number(value.lexeme);
  if (form === "js") return Number.isFinite(n) ? String(n) : "null";
  return value.isFloat ? pythonFloatRepr(n) : pythonIntRepr(value.lexeme);
}

/**
 * `repr(float)`: the shortest digits that read back to the same double (ECMAScript's
 * `toExponential()` with no argument gives the same digits), in positional notation when the
 * decimal exponent is in [-4, 16), else `d.ddde±XX` with at least two exponent digits.
 * Infinities and NaN are what python-rapidjson writes for them (readJson never yields them).
 */
function pythonFloatRepr(x: number): string {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
  const sign = x < 0 ? "-" : "";
  const scientific = Math.abs(x).toExponential();
  const ePos = scientific.indexOf("e");
  const mantissa = scientific.slice(0, ePos);
  const exponent = Number(scientific.slice(ePos + 1));
  if (exponent < -4 || exponent >= 16) {
    const magnitude = Math.abs(exponent);
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${magnitude < 10 ? "0" : ""}${magnitude}`;
  }
  const digits = mantissa.length === 1 ? mantissa : mantissa[0] + mantissa.slice(2);
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = exponent + 1;
  if (digits.length <= whole) return `${sign}${digits}${"0".repeat(whole - digits.length)}.0`;
  return `${sign}${digits.slice(0, whole)}.${digits.slice(whole)}`;
}

/** `str(int(lexeme))` without BigInt, whose conversion is quadratic in the digit count. */
function pythonIntRepr(lexeme: string): string {
  const negative = lexeme.charCodeAt(0) === 0x2d;
  let i = negative || lexeme.charCodeAt(0) === 0x2b ? 1 : 0;
  while (i < lexeme.length - 1 && lexeme.charCodeAt(i) === 0x30) i++;
  const digits = lexeme.slice(i);
  return negative && digits !== "0" ? `-${digits}` : digits;
}
