import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JsonError } from "../../../src/json/jsonError.js";
import { emptyJsonObject, JsonNumber, type JsonObject } from "../../../src/json/jsonValue.js";
import { jsonLimitsDefault, readJson } from "../../../src/json/readJson.js";
import { writeJson } from "../../../src/json/writeJson.js";

function object(value: unknown): JsonObject {
  assert.ok(value !== null && typeof value === "object" && !Array.isArray(value));
  return value as JsonObject;
}

function rejects(text: string | Uint8Array, code: JsonError["code"], message: RegExp, limits = {}): void {
  assert.throws(
    () => readJson(text, limits),
    (error: unknown) => {
      assert.ok(error instanceof JsonError, `not a JsonError: ${String(error)}`);
      assert.equal(error.code, code);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe("readJson: the value model", () => {
  test("objects inherit nothing and keep the text's key order", () => {
    const value = object(readJson('{"b":1,"a":[true,false,null],"c":{"d":"e"}}'));
    for (const inherited of ["toString", "constructor", "hasOwnProperty", "__proto__", "valueOf"]) {
      assert.equal(inherited in value, false, inherited);
      assert.equal(inherited in object(value["c"]), false, inherited);
      assert.equal(value[inherited], undefined, inherited);
    }
    assert.deepEqual(Object.keys(value), ["b", "a", "c"]);
    assert.deepEqual(value["a"], [true, false, null]);
  });

  test("a __proto__ key is an ordinary own key and changes no prototype", () => {
    const value = object(readJson('{"__proto__":{"polluted":1},"constructor":2}'));
    assert.equal("polluted" in value, false);
    assert.equal(Object.getPrototypeOf(Object.getPrototypeOf(value)), null);
    assert.deepEqual(Object.keys(value), ["__proto__", "constructor"]);
    assert.equal(object(value["__proto__"])["polluted"], 1);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });

  test("keys near the model's keys (read as interned constants) are read as written", () => {
    const text = '{"public_key":1,"public_keys":2,"public_keyz":3,"id\\u0041":4,"i":5,"":6,"ids":7,"id":8}';
    const value = object(readJson(text));
    assert.deepEqual(Object.keys(value), ["public_key", "public_keys", "public_keyz", "idA", "i", "", "ids", "id"]);
    assert.deepEqual(Object.values(value), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.throws(() => readJson('{"id'), /not closed/);
  });

  test("duplicate keys: the last value wins, at the first key's position (as json.loads)", () => {
    const value = object(readJson('{"a":1,"b":2,"a":3}'));
    assert.deepEqual(Object.keys(value), ["a", "b"]);
    assert.equal(value["a"], 3);
    const proto = object(readJson('{"__proto__":1,"__proto__":2}'));
    assert.equal(proto["__proto__"], 2);
  });

  test("safe integers are numbers; other integers keep their lexeme", () => {
    assert.equal(readJson("0"), 0);
    assert.equal(readJson("-17"), -17);
    assert.equal(readJson("123456789012345"), 123456789012345);
    assert.equal(readJson("1234567890123456"), 1234567890123456);
    assert.equal(readJson("9007199254740991"), 9007199254740991);
    assert.equal(readJson("-9007199254740991"), -9007199254740991);
    assert.deepEqual(readJson("9007199254740992"), new JsonNumber("9007199254740992", false));
    assert.deepEqual(readJson("-9007199254740993"), new JsonNumber("-9007199254740993", false));
    const big = "123456789012345678901234567890123456789";
    assert.deepEqual(readJson(big), new JsonNumber(big, false));
  });

  test("-0 is an integer lexeme kept as JsonNumber('-0', false), not the float -0", () => {
    assert.deepEqual(readJson("-0"), new JsonNumber("-0", false));
    assert.deepEqual(readJson("[-0]"), [new JsonNumber("-0", false)]);
  });

  test("every fraction or exponent is a float JsonNumber with its exact lexeme", () => {
    for (const lexeme of ["1.0", "-0.0", "0.5", "1e2", "1E2", "1e+2", "1e-2", "-2.5e-7", "1.5E300", "1e-400", "0e0"]) {
      assert.deepEqual(readJson(lexeme), new JsonNumber(lexeme, true), lexeme);
    }
    assert.deepEqual(readJson('{"x": 1.0}'), Object.assign(emptyJsonObject(), { x: new JsonNumber("1.0", true) }));
  });

  test("string escapes decode; surrogate pairs from escapes join", () => {
    assert.equal(readJson(String.raw`"\"\\\/\b\f\n\r\t"`), '"\\/\b\f\n\r\t');
    assert.equal(readJson(String.raw`"\u0041\u00e9\u00E9\u001f"`), "Aéé\u001f");
    assert.equal(readJson(String.raw`"\ud83d\udd11"`), "🔑");
    assert.equal(readJson(String.raw`"\uD83D\uDD11x\udbff\udfff"`), "🔑x\u{10ffff}");
    assert.deepEqual(readJson(String.raw`{"\ud800\udc00":"a\ud83d\udd11"}`), readJson('{"\u{10000}":"a🔑"}'));
    assert.equal(readJson('"🔑 ｚ raw é"'), "🔑 ｚ raw é");
    assert.equal(readJson('"\u007f\u2028\u2029"'), "\u007f\u2028\u2029");
  });

  test("bytes are decoded as UTF-8, text is taken as it is", () => {
    const text = '{"k":"é🔑ｚ","n":[1,2.0]}';
    assert.deepEqual(readJson(new TextEncoder().encode(text)), readJson(text));
  });

  test("the four JSON whitespace characters are allowed around every token", () => {
    const value = readJson(' \t\r\n{ \t\r\n"a" \t\r\n: \t\r\n[ 1 , 2 ] \t\r\n} \t\r\n');
    assert.deepEqual(value, Object.assign(emptyJsonObject(), { a: [1, 2] }));
  });

  test("literals at the top level and empty containers", () => {
    assert.equal(readJson("true"), true);
    assert.equal(readJson("false"), false);
    assert.equal(readJson("null"), null);
    assert.equal(readJson('""'), "");
    assert.deepEqual(readJson("[]"), []);
    assert.deepEqual(readJson("{}"), emptyJsonObject());
  });
});

describe("readJson: rejections (BadJson with a byte offset)", () => {
  const cases: [string, RegExp][] = [
    ["", /byte 0: expected a value, found the end/],
    ["   ", /byte 3: expected a value/],
    ["[1,]", /byte 3: expected a value, found '\]'/],
    ['{"a":1,}', /byte 7: expected a string key, found '\}'/],
    ["[1 2]", /byte 3: expected ',' or '\]', found '2'/],
    ['{"a" 1}', /byte 5: expected ':'/],
    ['{"a":1 "b":2}', /byte 7: expected ',' or '\}'/],
    ["{a:1}", /byte 1: expected a string key, found 'a'/],
    ["{'a':1}", /expected a string key, found '''/],
    ["[1]//c", /byte 3: unexpected data after the JSON value/],
    ["/*c*/1", /byte 0: expected a value, found '\/'/],
    ["1 2", /byte 2: unexpected data/],
    ["NaN", /expected a value, found 'N'/],
    ["Infinity", /expected a value, found 'I'/],
    ["-Infinity", /byte 1: expected a digit, found 'I'/],
    ["tru", /expected a value, found 't'/],
    ["nul", /expected a value/],
    ["True", /expected a value, found 'T'/],
    ["01", /byte 0: a number must not have a leading zero/],
    ["-01", /byte 0: a number must not have a leading zero/],
    ["+1", /expected a value, found '\+'/],
    [".5", /expected a value, found '\.'/],
    ["1.", /byte 2: expected a digit after '\.', found the end/],
    ["1.e5", /expected a digit after '\.'/],
    ["1e", /expected a digit in the exponent/],
    ["1e+", /expected a digit in the exponent/],
    ["-", /byte 1: expected a digit/],
    ["0x10", /unexpected data/],
    ["1e400", /byte 0: the number 1e400 is out of range/],
    ["-1.8e308", /out of range/],
    ['"abc', /byte 0: a string is not closed/],
    ['"a\\"', /a string is not closed/],
    ['"a\u0001b"', /byte 2: a raw control character U\+0001/],
    ['"tab\there"', /raw control character U\+0009/],
    ['"new\nline"', /raw control character U\+000A/],
    ['"\\a"', /byte 1: invalid escape 'a'/],
    ['"\\x41"', /invalid escape 'x'/],
    ['"\\\'"', /invalid escape '''/],
    ['"\\u12"', /a \\u escape needs four hex digits/],
    ['"\\u12G4"', /four hex digits/],
    ['"\\U0041"', /invalid escape 'U'/],
    ["\u00a0 1", /expected a value, found U\+00A0/],
    ["\u2028 1", /expected a value, found U\+2028/],
    ["[1]\u000c", /unexpected data/],
    ['"é" x', /byte 5: unexpected data/],
  ];
  for (const [text, message] of cases) {
    test(`rejects ${JSON.stringify(text)}`, () => rejects(text, "BadJson", message));
  }

  test("a byte order mark is rejected, as text and as bytes", () => {
    rejects("\ufeff{}", "BadJson", /byte 0: a byte order mark is not allowed/);
    rejects(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), "BadJson", /byte order mark/);
  });

  test("invalid UTF-8 bytes are rejected with the offset of the first bad sequence", () => {
    const bad: [number[], number][] = [
      [[0x22, 0xff, 0x22], 1],
      [[0x22, 0x61, 0xc3, 0x22], 2], // truncated 2-byte sequence
      [[0x22, 0xc0, 0xaf, 0x22], 1], // overlong "/"
      [[0x22, 0xe0, 0x80, 0xaf, 0x22], 1], // overlong
      [[0x22, 0xed, 0x80, 0x22], 1], // truncated 3-byte sequence that is not a surrogate
      [[0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], 1], // above U+10FFFF
      [[0x22, 0x80, 0x22], 1], // lone continuation byte
      [[0x22, 0xc3, 0xa9, 0xf0, 0x9f, 0x94, 0x22], 3], // truncated 4-byte after a valid é
    ];
    for (const [bytes, at] of bad) {
      rejects(new Uint8Array(bytes), "BadJson", new RegExp(`byte ${at}: the text is not valid UTF-8`));
    }
  });

  test("a raw lone surrogate in text input is not Unicode (LoneSurrogate)", () => {
    rejects('"a\ud800"', "LoneSurrogate", /byte 2: a raw lone surrogate/);
    rejects('["é", "\udc00"]', "LoneSurrogate", /byte 8: a raw lone surrogate/);
    // A raw low half after an escaped high half is still two halves apart.
    rejects('"\\ud800\udc00"', "LoneSurrogate", /byte 7: a raw lone surrogate/);
  });

  test("an escaped lone surrogate is not Unicode (I-JSON, RFC 7493 §2.1): LoneSurrogate", () => {
    const cases: [string, number][] = [
      [String.raw`"\ud800"`, 1],
      [String.raw`"a\ud800b"`, 2],
      [String.raw`"\udc00"`, 1],
      [String.raw`"\uDFFF"`, 1],
      [String.raw`"é\ud83d"`, 3], // a high half at the end of the string
      [String.raw`"\ud83d\u0041"`, 1], // a high half before an escape that is not a low half
      [String.raw`"\ud83d\ud83d\udd11"`, 1], // two high halves
      [String.raw`"\udd11\ud83d"`, 1], // the halves in the wrong order
      [String.raw`"\ud83d\n"`, 1],
      [String.raw`"\ud83dx\udd11"`, 1],
      [String.raw`{"\udbff":1}`, 2], // in a key
      [String.raw`{"a":[{"b":{"c":["ok","\ud800"]}}]}`, 23], // nested
      [String.raw`{"asset":{"data":{"\ud800":"x"}},"metadata":null}`, 19],
    ];
    for (const [text, at] of cases) {
      rejects(text, "LoneSurrogate", new RegExp(`byte ${at}: the escape .{6} is a lone surrogate, which is not Unicode`));
      rejects(new TextEncoder().encode(text), "LoneSurrogate", new RegExp(`byte ${at}: `));
    }
    rejects(String.raw`"\ud83d\udX11"`, "BadJson", /byte 7: a \\u escape needs four hex digits/);
  });

  test("a UTF-8-encoded surrogate in byte input (CESU-8, WTF-8) is a lone surrogate too", () => {
    for (const half of [[0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xed, 0xb0, 0x80]]) {
      rejects(new Uint8Array([0x22, 0x61, ...half, 0x22]), "LoneSurrogate", /byte 2: a UTF-8-encoded surrogate/);
    }
    // An encoded pair is still two lone halves: UTF-8 writes the code point, never its halves.
    rejects(new Uint8Array([0x22, 0xed, 0xa0, 0xbd, 0xed, 0xb4, 0x91, 0x22]), "LoneSurrogate", /byte 1/);
  });

  test("byte offsets count UTF-8 bytes, not UTF-16 units", () => {
    rejects('["🔑é",]', "BadJson", /byte 10: expected a value/);
    rejects(new TextEncoder().encode('["🔑é",]'), "BadJson", /byte 10: expected a value/);
  });
});

describe("readJson: limits", () => {
  test("defaults are named in one place", () => {
    assert.deepEqual(
      { ...jsonLimitsDefault },
      { depthMax: 64, bytesMax: 1024 * 1024, keysMax: 10_000, itemsMax: 100_000 },
    );
    assert.ok(Object.isFrozen(jsonLimitsDefault));
  });

  test("bytesMax counts UTF-8 bytes: 4 for a surrogate pair, 3 from U+0800, 2 from U+0080", () => {
    const text = '"\u{1F600}€éa"'; // 2 quotes + 4 + 3 + 2 + 1 = 12 bytes in 7 UTF-16 units
    assert.equal(readJson(text, { bytesMax: 12 }), "\u{1F600}€éa");
    rejects(text, "BadJson", /JSON text of 12 bytes is larger than bytesMax \(11\)/, { bytesMax: 11 });
  });

  test("nesting up to depthMax is read; one deeper is JsonTooDeep", () => {
    const nested = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
    assert.ok(readJson(nested(64, "[", "]")));
    rejects(nested(65, "[", "]"), "JsonTooDeep", /deeper than depthMax \(64\) at byte 64/);
    const objects = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
    assert.ok(readJson(objects(64)));
    rejects(objects(65), "JsonTooDeep", /depthMax \(64\)/);
    rejects(nested(4, "[", "]"), "JsonTooDeep", /depthMax \(3\) at byte 3/, { depthMax: 3 });
    // Far deeper than any stack: rejected at the limit, never a RangeError.
    rejects("[".repeat(200_000), "JsonTooDeep", /depthMax/);
  });

  test("bytesMax counts UTF-8 bytes of text and of byte input", () => {
    assert.equal(readJson('"ééé"', { bytesMax: 8 }), "ééé");
    rejects('"éééé"', "BadJson", /of 10 bytes is larger than bytesMax \(8\)/, { bytesMax: 8 });
    rejects(new Uint8Array(9).fill(0x20), "BadJson", /9 bytes is larger than bytesMax \(8\)/, { bytesMax: 8 });
    rejects(" ".repeat(9), "BadJson", /larger than bytesMax/, { bytesMax: 8 });
  });

  test("keysMax and itemsMax bound each container", () => {
    assert.ok(readJson('{"a":1,"b":2}', { keysMax: 2 }));
    rejects('{"a":1,"b":2,"c":3}', "BadJson", /more than keysMax \(2\) members/, { keysMax: 2 });
    assert.ok(readJson("[1,2]", { itemsMax: 2 }));
    rejects("[1,2,3]", "BadJson", /byte 5: an array has more than itemsMax \(2\) items/, { itemsMax: 2 });
  });
});

describe("writeJson", () => {
  test("compact, own key order, lexemes as read", () => {
    const text = '{"z":[1,-0,1.0,1E+2,123456789012345678901,-2.50e-3],"a":{"__proto__":"x"},"é":"\\u001f\\"q"}';
    assert.equal(
      writeJson(readJson(text)),
      '{"z":[1,-0,1.0,1E+2,123456789012345678901,-2.50e-3],"a":{"__proto__":"x"},"é":"\\u001f\\"q"}',
    );
  });

  test("lone surrogates (in a value not read by readJson) are escaped, so the output is well-formed", () => {
    const value = readJson('{"x":"a","ok":"🔑"}') as JsonObject;
    value["\ud800"] = "a\udfffb";
    const text = writeJson(value);
    assert.equal(text, '{"x":"a","ok":"🔑","\\ud800":"a\\udfffb"}');
    assert.ok((text as unknown as { isWellFormed(): boolean }).isWellFormed());
  });

  test("readJson(writeJson(v)) deep-equals v", () => {
    const texts = [
      '{"id":null,"inputs":[{"fulfills":{"output_index":0,"transaction_id":"ab"}}],"n":[1.5,-0,9007199254740993]}',
      '[[],{},"",0,true,false,null,"\\b\\f\\n\\r\\t\\u0000\\u007f\\u2028"]',
      '{"b":1,"a":{"c":[{"d":1e-7}]}}',
    ];
    for (const text of texts) {
      const value = readJson(text);
      assert.deepEqual(readJson(writeJson(value)), value);
    }
  });
});
