// Random mutations of valid transaction JSON: readJson either returns a value or throws a
// JsonError (BadJson, JsonTooDeep or LoneSurrogate), never anything else; it accepts exactly what
// JSON.parse accepts, apart from the documented differences; whatever it accepts serializes
// in both forms and round-trips through writeJson.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { JsonError } from "../../../src/json/jsonError.js";
import type { JsonValue } from "../../../src/json/jsonValue.js";
import { readJson } from "../../../src/json/readJson.js";
import { serializeCanonical } from "../../../src/json/serializeCanonical.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { loadVectors, vectorsDir } from "../../helpers/vectors.js";
import { pick, randomInt, seededRandom, toPlain, type Random } from "./randomJson.js";

const seeds: string[] = [];
for (const vector of loadVectors().slice(0, 12)) {
  const tx = (readJson(new Uint8Array(readFileSync(vectorsDir + vector.file))) as Record<string, JsonValue>)["tx"];
  seeds.push(writeJson(tx as JsonValue));
  seeds.push(JSON.stringify(JSON.parse(writeJson(tx as JsonValue)), null, 1));
}
seeds.push('{"asset":{"data":{"n":[1.0,-0,1e16,-2.5e-7,123456789012345678901],"s":"\\u001f\\ud83d\\udd11é"}}}');

const pieces = [
  "{", "}", "[", "]", ",", ":", '"', "\\", " ", "\t", "\n", "\r", "\f", "0", "1", "9", "-", "+", ".", "e", "E",
  "t", "f", "n", "u", "x", "true", "null", "\\u", "\\ud800", "\\udc00", "\\u00e9", "1e400", "\u0000", "\u001f",
  "\u007f", "é", "🔑", "\ud800", "\udc00", "\ufeff", "\u2028", "NaN", "Infinity", "01", "//", "/*", "'",
];

function mutateText(random: Random, text: string): string {
  const at = randomInt(random, 0, text.length);
  const kind = randomInt(random, 0, 5);
  if (kind === 0) return text.slice(0, at) + text.slice(at + randomInt(random, 1, 3));
  if (kind === 1) return text.slice(0, at) + pick(random, pieces) + text.slice(at);
  if (kind === 2) return text.slice(0, at) + pick(random, pieces) + text.slice(at + 1);
  if (kind === 3) {
    const from = randomInt(random, 0, text.length);
    return text.slice(0, at) + text.slice(from, from + randomInt(random, 1, 20)) + text.slice(at);
  }
  if (kind === 4) return text.slice(0, at);
  const other = randomInt(random, 0, text.length - 1);
  const chars = text.split("");
  [chars[at], chars[other]] = [chars[other] as string, chars[at] as string];
  return chars.join("");
}

function mutateBytes(random: Random, bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let n = randomInt(random, 1, 3); n > 0; n--) {
    const at = randomInt(random, 0, out.length - 1);
    out[at] = random() < 0.5 ? (out[at] ?? 0) ^ (1 << randomInt(random, 0, 7)) : randomInt(random, 0, 255);
  }
  return out;
}

/** readJson's outcome; any exception other than the two codes fails the test. */
function read(input: string | Uint8Array): { value: JsonValue } | { error: JsonError } {
  try {
    return { value: readJson(input) };
  } catch (error) {
    assert.ok(error instanceof JsonError, `escaped: ${String(error)} for ${JSON.stringify(String(input))}`);
    assert.ok(["BadJson", "JsonTooDeep", "LoneSurrogate"].includes(error.code), error.code);
    return { error };
  }
}

function checkAccepted(value: JsonValue): void {
  for (const form of ["python", "js"] as const) {
    try {
      serializeCanonical(value, form);
    } catch (error) {
      // A value readJson accepts holds no lone surrogate, so both forms can write it.
      assert.fail(`${form} cannot write an accepted value: ${String(error)}`);
    }
  }
  assert.deepEqual(readJson(writeJson(value)), value);
}

test("5,000 text mutations: coded errors only, same acceptance as JSON.parse, same values", () => {
  const random = seededRandom(42);
  let accepted = 0;
  for (let n = 0; n < 5000; n++) {
    let text = pick(random, seeds);
    for (let m = randomInt(random, 1, 3); m > 0; m--) text = mutateText(random, text);
    const ours = read(text);
    let theirs: { value: unknown } | null;
    try {
      theirs = { value: JSON.parse(text) as unknown };
    } catch {
      theirs = null;
    }
    if ("value" in ours) {
      accepted++;
      assert.ok(theirs !== null, `accepted what JSON.parse rejects: ${JSON.stringify(text)}`);
      assert.deepEqual(toPlain(ours.value), theirs.value);
      checkAccepted(ours.value);
    } else if (theirs !== null) {
      // Deliberate differences: numbers that overflow to infinity, lone surrogates (I-JSON).
      assert.match(ours.error.message, /out of range|lone surrogate/, JSON.stringify(text));
    }
  }
  assert.ok(accepted > 250 && accepted < 4000, `accepted ${accepted}`);
});

test("5,000 byte mutations (invalid UTF-8 included): coded errors only", () => {
  const random = seededRandom(43);
  const encoded = seeds.map((s) => new TextEncoder().encode(s));
  let accepted = 0;
  for (let n = 0; n < 5000; n++) {
    const ours = read(mutateBytes(random, pick(random, encoded)));
    if ("value" in ours) {
      accepted++;
      checkAccepted(ours.value);
    }
  }
  assert.ok(accepted > 0, "some byte mutations keep the text valid");
});

test("random garbage bytes: coded errors only", () => {
  const random = seededRandom(44);
  for (let n = 0; n < 2000; n++) {
    const bytes = Uint8Array.from({ length: randomInt(random, 0, 64) }, () =>
      random() < 0.7 ? pick(random, [...'{}[],:"\\ 0123456789-.eE'].map((c) => c.charCodeAt(0))) : randomInt(random, 0, 255),
    );
    read(bytes);
  }
});
