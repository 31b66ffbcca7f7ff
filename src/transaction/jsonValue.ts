// The JSON value model shared by every module that reads or writes transactions.
//
// Why not plain `JSON.parse`: a transaction id is a hash over a canonical re-serialization,
// and BigchainDB's Python side keeps each number's exact digits and kind (`1.0` is a float and
// prints as `1.0`; `2**60` stays exact). So a number that a JS `number` cannot carry exactly,
// or that was written with a fraction or exponent, is kept as a `JsonNumber` with its lexeme.

/** A number kept as written: any integer outside the safe range, or any float lexeme. */
export class JsonNumber {
  constructor(
    /** The digits exactly as they stood in the input, e.g. `1.0`, `-2.5e-7`, `123456789012345678901`. */
    readonly lexeme: string,
    /** True when the lexeme has a fraction or exponent (Python parses it as `float`). */
    readonly isFloat: boolean,
  ) {}
}

/** An object as read: null-prototype, so a key such as `__proto__` is an ordinary key. */
export interface JsonObject {
  [key: string]: JsonValue;
}

export type JsonArray = JsonValue[];

/**
 * Safe integers written without fraction or exponent are JS numbers; every other number is a
 * `JsonNumber`. Strings are JS strings (UTF-16, lone surrogates possible from `\uD800` escapes).
 */
export type JsonValue = null | boolean | number | string | JsonNumber | JsonArray | JsonObject;

export function isJsonObject(value: unknown): value is JsonObject {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber)
  );
}
