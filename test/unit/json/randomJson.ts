// Seeded random JSON values for the property tests of this folder: shaped like asset data and
// metadata, rich in the characters and numbers where the two canonical forms part ways.

import { JsonNumber, type JsonObject, type JsonValue } from "../../../src/json/jsonValue.js";

export type Random = () => number;

/** mulberry32: small, fast, and the same sequence on every machine for a seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomInt(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const specialChars = [
  ...Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)),
  '"', "\\", "/", "\u007f", "\u2028", "\u2029", "é", "ÿ", "\u0100", "\u07ff", "\u0800",
  "\ue000", "\uf8ff", "ｚ", "\ufffd", "\uffff", "中", "\u0301",
  "\u{10000}", "🔑", "😀", "\u{10ffff}", "\u{20000}",
];
const loneSurrogates = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d"];

const keyWords = [
  "id", "data", "a", "b", "A", "_", "__proto__", "constructor", "toString", "hasOwnProperty",
  "0", "1", "10", "2", "-1", "01", "ｚ", "🔑", "k\ue000", "k\u{10000}", "key\u0000", "key\u0000a",
];

const lexemes = [
  "-0", "0.0", "-0.0", "1.0", "1e16", "1E16", "1e15", "1e-7", "1e-5", "0.0001", "1.5e300", "5e-324",
  "123456789.0", "9007199254740993", "-9007199254740993", "123456789012345678901234567890",
  "1e21", "1e22", "1e20", "2.50", "100e-2", "1e-400", "-1e-400", "1.7976931348623157e308", "0.1",
];

export function randomString(random: Random, lengthMax: number, lone: boolean): string {
  const length = randomInt(random, 0, lengthMax);
  let out = "";
  for (let i = 0; i < length; i++) {
    const r = random();
    if (r < 0.55) out += String.fromCharCode(randomInt(random, 0x20, 0x7e));
    else if (r < 0.85) out += pick(random, specialChars);
    else if (r < 0.97 || !lone) out += String.fromCodePoint(randomCodePoint(random));
    else out += pick(random, loneSurrogates);
  }
  return out;
}

function randomCodePoint(random: Random): number {
  for (;;) {
    const c = randomInt(random, 0x80, 0x10ffff);
    if (c < 0xd800 || c > 0xdfff) return c;
  }
}

function randomKey(random: Random): string {
  const r = random();
  if (r < 0.35) return pick(random, keyWords);
  if (r < 0.5) return `p${pick(random, ["ｚ", "🔑", "\ue000", "\u{10000}", "z", "é"])}`;
  return randomString(random, 8, true);
}

function randomNumber(random: Random): JsonValue {
  const r = random();
  if (r < 0.3) return randomInt(random, -1000, 1000);
  if (r < 0.5) {
    const lexeme = pick(random, lexemes);
    return new JsonNumber(lexeme, !/^-?[0-9]+$/.test(lexeme));
  }
  if (r < 0.8) {
    const bits = new DataView(new ArrayBuffer(8));
    bits.setUint32(0, Math.floor(random() * 2 ** 32));
    bits.setUint32(4, Math.floor(random() * 2 ** 32));
    const x = bits.getFloat64(0);
    return Number.isFinite(x) ? new JsonNumber(x.toExponential(), true) : 0;
  }
  const big = `${random() < 0.5 ? "-" : ""}${randomInt(random, 1, 9)}${"0123456789".repeat(3).slice(0, randomInt(random, 15, 30))}`;
  return new JsonNumber(big, false);
}

export function randomValue(random: Random, depth: number): JsonValue {
  const r = random();
  if (depth < 4 && r < 0.3) {
    const object: JsonObject = Object.create(null) as JsonObject;
    // Now and then more keys than serializeCanonical sorts by insertion (insertionSortKeysMax).
    const count = randomInt(random, 0, random() < 0.1 ? 20 : 7);
    for (let i = 0; i < count; i++) object[randomKey(random)] = randomValue(random, depth + 1);
    return object;
  }
  if (depth < 4 && r < 0.45) {
    return Array.from({ length: randomInt(random, 0, 5) }, () => randomValue(random, depth + 1));
  }
  if (r < 0.7) return randomString(random, 12, true);
  if (r < 0.9) return randomNumber(random);
  return pick(random, [true, false, null]);
}

/** The value as a JavaScript program would hold it: plain objects, numbers as `number`. */
export function toPlain(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return Number(value.lexeme);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: toPlain(value[key] as JsonValue), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
