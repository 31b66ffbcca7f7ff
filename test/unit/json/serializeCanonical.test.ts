import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { JsonError } from "../../../src/json/jsonError.js";
import { canonicalFormsDiffer } from "../../../src/json/canonicalFormsDiffer.js";
import { JsonNumber, type JsonValue } from "../../../src/json/jsonValue.js";
import { readJson } from "../../../src/json/readJson.js";
import { serializeCanonical } from "../../../src/json/serializeCanonical.js";
import { randomValue, seededRandom, toPlain } from "./randomJson.js";

// The JavaScript driver's own serializer (bigchaindb-driver 4.3.0): json-stable-stringify with
// `a.key > b.key ? 1 : -1` over `clone(tx)` (clone@2).
const require = createRequire(import.meta.url);
const { Transaction } = require("bigchaindb-driver") as {
  Transaction: { serializeTransactionIntoCanonicalString(tx: unknown): string };
};
const requireFromDriver = createRequire(require.resolve("bigchaindb-driver"));
const stableStringify = requireFromDriver("json-stable-stringify") as (
  value: unknown,
  compare: (a: { key: string }, b: { key: string }) => number,
) => string;
const driverCompare = (a: { key: string }, b: { key: string }) => (a.key > b.key ? 1 : -1);

/** Keys the driver's `clone` drops: Object.prototype's own names (see the test below). */
function hasPrototypeKey(value: JsonValue): boolean {
  if (value === null || typeof value !== "object" || value instanceof JsonNumber) return false;
  if (Array.isArray(value)) return value.some(hasPrototypeKey);
  return Object.keys(value).some((key) => Object.hasOwn(Object.prototype, key) || hasPrototypeKey(value[key] as JsonValue));
}

const py = (text: string) => serializeCanonical(readJson(text), "python");
const js = (text: string) => serializeCanonical(readJson(text), "js");

describe("serializeCanonical: strings", () => {
  test("short escapes are the same in both forms", () => {
    const text = String.raw`"\"\\\/\b\f\n\r\t"`;
    assert.equal(py(text), String.raw`"\"\\/\b\f\n\r\t"`);
    assert.equal(js(text), String.raw`"\"\\/\b\f\n\r\t"`);
  });

  test("other control characters: uppercase hex in python (RapidJSON), lowercase in js", () => {
    const text = String.raw`"\u0000\u0001\u000b\u000e\u000f\u0010\u0019\u001a\u001f"`;
    assert.equal(py(text), String.raw`"\u0000\u0001\u000B\u000E\u000F\u0010\u0019\u001A\u001F"`);
    assert.equal(js(text), String.raw`"\u0000\u0001\u000b\u000e\u000f\u0010\u0019\u001a\u001f"`);
  });

  test("'/', DEL, U+2028/2029 and all other non-ASCII are written raw in both forms", () => {
    const text = String.raw`"/\u007f\u2028\u2029\u00e9\uff5a\ud83d\udd11"`;
    const raw = '"/\u007f\u2028\u2029éｚ🔑"';
    assert.equal(py(text), raw);
    assert.equal(js(text), raw);
  });

  // readJson refuses a lone surrogate (LoneSurrogate); the writers still handle one safely.
  test("a lone surrogate: python cannot write it (BadJson), js escapes it in lowercase", () => {
    const jsOfParsed = (text: string) => serializeCanonical(JSON.parse(text) as JsonValue, "js");
    for (const text of [String.raw`"a\ud800"`, String.raw`"\uDFFFb"`, String.raw`{"\udbff":1}`, String.raw`"\udd11\ud83d"`]) {
      assert.throws(
        () => serializeCanonical(JSON.parse(text) as JsonValue, "python"),
        (error: unknown) => error instanceof JsonError && error.code === "BadJson" && /lone surrogate/.test(error.message),
      );
    }
    assert.equal(jsOfParsed(String.raw`"a\uD800"`), String.raw`"a\ud800"`);
    assert.equal(jsOfParsed(String.raw`"\udd11\ud83d"`), String.raw`"\udd11\ud83d"`);
    assert.equal(jsOfParsed(String.raw`{"\udbff":1}`), String.raw`{"\udbff":1}`);
  });
});

describe("serializeCanonical: numbers", () => {
  test("safe integers print the same in both forms", () => {
    for (const text of ["0", "1", "-1", "9007199254740991", "-9007199254740991"]) {
      assert.equal(py(text), text);
      assert.equal(js(text), text);
    }
  });

  test("integers beyond 2^53: exact in python (int), JSON.stringify(Number) in js", () => {
    assert.equal(py("9007199254740993"), "9007199254740993");
    assert.equal(js("9007199254740993"), "9007199254740992");
    assert.equal(py("-123456789012345678901234567890"), "-123456789012345678901234567890");
    assert.equal(js("-123456789012345678901234567890"), "-1.2345678901234568e+29");
    assert.equal(py("100000000000000000000000"), "100000000000000000000000");
    assert.equal(js("100000000000000000000000"), "1e+23");
  });

  test("-0 as an integer is 0 in both forms (Python int('-0') is 0)", () => {
    assert.equal(py("-0"), "0");
    assert.equal(js("-0"), "0");
    assert.equal(serializeCanonical(new JsonNumber("-000", false), "python"), "0");
    assert.equal(serializeCanonical(new JsonNumber("-0012", false), "python"), "-12");
  });

  test("floats: python is repr(float(lexeme)), js is JSON.stringify(Number(lexeme))", () => {
    const cases: [string, string, string][] = [
      ["1.0", "1.0", "1"],
      ["-1.0", "-1.0", "-1"],
      ["1e16", "1e+16", "10000000000000000"],
      ["1E16", "1e+16", "10000000000000000"],
      ["1e15", "1000000000000000.0", "1000000000000000"],
      ["9999999999999998.0", "9999999999999998.0", "9999999999999998"],
      ["1e-7", "1e-07", "1e-7"],
      ["1e-5", "1e-05", "0.00001"],
      ["0.0001", "0.0001", "0.0001"],
      ["0.00012345", "0.00012345", "0.00012345"],
      ["-0.0", "-0.0", "0"],
      ["0.0", "0.0", "0"],
      ["0e0", "0.0", "0"],
      ["-1e-400", "-0.0", "0"],
      ["1.5e300", "1.5e+300", "1.5e+300"],
      ["1e100", "1e+100", "1e+100"],
      ["1e22", "1e+22", "1e+22"],
      ["1e21", "1e+21", "1e+21"],
      ["1e20", "1e+20", "100000000000000000000"],
      ["123456789.0", "123456789.0", "123456789"],
      ["123456789012345678.0", "1.2345678901234568e+17", "123456789012345680"],
      ["0.1", "0.1", "0.1"],
      ["2.50", "2.5", "2.5"],
      ["100e-2", "1.0", "1"],
      ["5e-324", "5e-324", "5e-324"],
      ["1.7976931348623157e308", "1.7976931348623157e+308", "1.7976931348623157e+308"],
      ["12.34e-10", "1.234e-09", "1.234e-9"],
      ["-2.5e-7", "-2.5e-07", "-2.5e-7"],
      ["1.000000000000000000001", "1.0", "1"],
    ];
    for (const [lexeme, python, javascript] of cases) {
      assert.equal(py(lexeme), python, `python ${lexeme}`);
      assert.equal(js(lexeme), javascript, `js ${lexeme}`);
    }
  });
});

describe("serializeCanonical: structure and key order", () => {
  test("compact, keys sorted, arrays in order", () => {
    const text = '{ "b" : [ 3, 1, {"y":null,"x":true} ], "a" : {}, "c": [] }';
    const expected = '{"a":{},"b":[3,1,{"x":true,"y":null}],"c":[]}';
    assert.equal(py(text), expected);
    assert.equal(js(text), expected);
  });

  test("keys sort by code point in python and by UTF-16 unit in js (vector 07's case)", () => {
    const text = '{"ｚ":1,"🔑":2,"a":3,"\\uffff":4,"\\ud800\\udc00":5,"\\ue000":6}';
    assert.equal(py(text), '{"a":3,"\ue000":6,"ｚ":1,"\uffff":4,"\u{10000}":5,"🔑":2}');
    assert.equal(js(text), '{"a":3,"\u{10000}":5,"🔑":2,"\ue000":6,"ｚ":1,"\uffff":4}');
  });

  test("integer-like keys sort as strings, whatever order the object lists them in", () => {
    const text = '{"b":0,"10":1,"2":2,"1":3,"-1":4,"01":5}';
    const expected = '{"-1":4,"01":5,"1":3,"10":1,"2":2,"b":0}';
    assert.equal(py(text), expected);
    assert.equal(js(text), expected);
  });

  test("python: keys equal up to a NUL order by UTF-8 length, then as listed (strncmp)", () => {
    const text = '{"a\\u0000\\u00e9":6,"a\\u0000b":1,"a":2,"a\\u0000":3,"a\\u0000a":4,"ab":5}';
    // python-rapidjson 0.9.4 writes {"a":2,"a\u0000":3,"a\u0000b":1,"a\u0000a":4,"a\u0000é":6,"ab":5}:
    // "a\0é" is 4 UTF-8 bytes (3 UTF-16 units) so it follows the 3-byte ties, listed first or not.
    assert.equal(py(text), '{"a":2,"a\\u0000":3,"a\\u0000b":1,"a\\u0000a":4,"a\\u0000é":6,"ab":5}');
    assert.equal(js(text), '{"a":2,"a\\u0000":3,"a\\u0000a":4,"a\\u0000b":1,"a\\u0000é":6,"ab":5}');
  });

  test("the input is not changed", () => {
    const value = readJson('{"b":{"d":1,"c":2},"a":[1.0]}');
    const before = JSON.stringify(toPlain(value));
    serializeCanonical(value, "python");
    serializeCanonical(value, "js");
    assert.equal(JSON.stringify(toPlain(value)), before);
  });
});

describe('serializeCanonical "js" equals the JavaScript driver\'s own serialization', () => {
  test("on 3,000 random values with unicode, control characters, lone surrogates and numbers", () => {
    const random = seededRandom(7);
    let viaDriver = 0;
    for (let n = 0; n < 3000; n++) {
      const value = randomValue(random, 0);
      const ours = serializeCanonical(value, "js");
      assert.equal(ours, stableStringify(toPlain(value), driverCompare), `case ${n}`);
      if (hasPrototypeKey(value)) continue;
      viaDriver++;
      assert.equal(ours, Transaction.serializeTransactionIntoCanonicalString(toPlain(value)), `case ${n}`);
    }
    assert.ok(viaDriver > 1000, `only ${viaDriver} values went through the driver`);
  });

  test("decision: keys named after Object.prototype members are hashed, where the driver drops them", () => {
    // The driver's clone() skips keys such as toString or constructor and turns __proto__ into a
    // prototype, in what it hashes and, since signTransaction returns a clone, in what it posts.
    // So no driver-made transaction has them, and hashing every key keeps the id covering all
    // content: a key the hash skipped could be added to a signed transaction by anyone.
    const text = '{"toString":1,"constructor":2,"__proto__":{"a":3},"valueOf":4,"x":5}';
    const plain = JSON.parse(text) as unknown;
    assert.equal(Transaction.serializeTransactionIntoCanonicalString(plain), '{"x":5}');
    assert.equal(js(text), '{"__proto__":{"a":3},"constructor":2,"toString":1,"valueOf":4,"x":5}');
    assert.equal(py(text), '{"__proto__":{"a":3},"constructor":2,"toString":1,"valueOf":4,"x":5}');
  });
});

describe("canonicalFormsDiffer", () => {
  test("false for plain content, true for each kind of difference", () => {
    const same = ['{"a":[1,"x\\n\\u0001\\u0010é🔑",null,true],"ｚ":{"b":-5}}', '"\\u001f"'.replace("1f", "09"), "9007199254740991"];
    for (const text of same) assert.equal(canonicalFormsDiffer(readJson(text)), false, text);
    const differ = [
      '"\\u000b"', '"\\u000e"', '"\\u000f"', '"\\u001a"', '"\\u001f"', '{"k\\u001c":1}',
      '{"🔑":1}', '{"a\\u0000":1}', "1.0", "1e16", "9007199254740993", "[[{\"x\":[1e-7]}]]",
    ];
    for (const text of differ) assert.equal(canonicalFormsDiffer(readJson(text)), true, text);
    // A lone surrogate (which readJson refuses) is a difference too.
    assert.equal(canonicalFormsDiffer("\ud800"), true);
  });

  test("a JsonNumber whose two forms print alike does not count as a difference", () => {
    assert.equal(canonicalFormsDiffer(readJson("[1.5, 0.0001, 1e+100, -0]")), false);
  });

  test("whenever it says false, both forms are equal (3,000 random values)", () => {
    const random = seededRandom(11);
    let same = 0;
    for (let n = 0; n < 3000; n++) {
      const value = randomValue(random, 0);
      if (canonicalFormsDiffer(value)) continue;
      same++;
      assert.equal(serializeCanonical(value, "python"), serializeCanonical(value, "js"), `case ${n}`);
    }
    assert.ok(same > 300, `only ${same} values had equal forms`);
  });

  test("whenever the forms differ or python cannot write, it says true", () => {
    const random = seededRandom(13);
    for (let n = 0; n < 3000; n++) {
      const value: JsonValue = randomValue(random, 0);
      let differs: boolean;
      try {
        differs = serializeCanonical(value, "python") !== serializeCanonical(value, "js");
      } catch {
        differs = true;
      }
      if (differs) assert.equal(canonicalFormsDiffer(value), true, `case ${n}`);
    }
  });
});
