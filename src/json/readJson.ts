// readJson: the one JSON reader for everything a client posts (transactions, query bodies).
//
// Why the project has its own reader instead of `JSON.parse`:
// - A transaction id is sha3-256 over a canonical re-serialization (docs/bigchaindb-behaviour.md
//   §2.1, docs/compatibility.md #7). BigchainDB's Python side keeps each number's kind and digits:
// `1.0` stays a float and is
//   written back as `1.0`, `2**60` stays exact. `JSON.parse` turns both into a lossy `number`,
//   so ids of Python-made transactions could not be recomputed. Here every number that a plain
//   `number` cannot carry exactly is kept as a `JsonNumber` with its lexeme (jsonValue.ts).
// - Objects inherit nothing, so `__proto__` is an ordinary key as it is in Python.
// - Strict RFC 8259 with clear messages carrying the byte offset, and named limits (depth,
//   size, members per container), so hostile input costs bounded work and never escapes as
//   anything but a `JsonError` ("BadJson", "JsonTooDeep" or "LoneSurrogate").
//
// Decisions: a byte order mark is rejected (RFC 8259 §8.1: senders MUST NOT add one, and no
// official driver does). Duplicate keys: the last value wins at the first key's position, as
// Python's `json.loads` and `JSON.parse` both do. Numbers that overflow to infinity (`1e400`)
// are rejected: Python would read `inf`, which the canonical form cannot write as JSON. So are
// `NaN` and `Infinity`, which Python's `json.loads` accepts but RFC 8259 does not. Strings must
// be Unicode (I-JSON, RFC 7493 §2.1; docs/compatibility.md #17): a lone surrogate, whether
// escaped (`"\ud800"`), raw in text input or UTF-8-encoded in byte input, fails with
// "LoneSurrogate", though Python and JSON.parse keep it: BigchainDB cannot write it back
// (rapidjson raises), the Python driver cannot re-serialize it, PostgreSQL's jsonb refuses it,
// so a transaction holding one could be stored here and read nowhere else. Other invalid
// UTF-8 is "BadJson".

import { JsonError } from "./jsonError.js";
import { emptyJsonObject, JsonNumber, type JsonObject, type JsonValue } from "./jsonValue.js";
import { txModelKeys } from "./modelKeys.js";

export interface JsonLimits {
  /** Containers (objects and arrays) nested deeper than this fail with JsonTooDeep. */
  readonly depthMax: number;
  /** Size of the text in UTF-8 bytes. The HTTP layer also caps the body before reading it. */
  readonly bytesMax: number;
  /** Members in one object (duplicates counted), bounding the canonical sort. */
  readonly keysMax: number;
  /** Elements in one array. */
  readonly itemsMax: number;
}

// No per-string limit: every string is at most the text it was read from, so `bytesMax`
// already bounds it, and escapes only ever shrink the result.
export const jsonLimitsDefault: JsonLimits = Object.freeze({
  depthMax: 64,
  bytesMax: 1024 * 1024,
  keysMax: 10_000,
  itemsMax: 100_000,
});

/** What `readJson` can tell about the text it read, for callers that keep the text. */
export interface JsonReadInfo {
  /** The text as decoded (the same string when a string was given). */
  text: string;
  /**
   * No whitespace between tokens and no duplicate keys: the text is then a faithful compact
   * rendering of the value (key order and escapes as the client wrote them), and can be stored
   * or echoed as it is instead of being written again.
   */
  compact: boolean;
}

/**
 * Reads one JSON text (RFC 8259, strict) into the model of jsonValue.ts. With `info`, also
 * reports the decoded text and whether it is compact.
 */
export function readJson(text: string | Uint8Array, limits?: Partial<JsonLimits>, info?: JsonReadInfo): JsonValue {
  const limitsUsed = limits === undefined ? jsonLimitsDefault : { ...jsonLimitsDefault, ...limits };
  const source =
    typeof text === "string" ? checkText(text, limitsUsed) : decodeBytes(text, limitsUsed);
  if (source.charCodeAt(0) === 0xfeff) {
    throw new JsonError("BadJson", "Invalid JSON at byte 0: a byte order mark is not allowed");
  }
  const reader = new Reader(source, limitsUsed);
  reader.skipWhitespace();
  const value = reader.readValue(0);
  reader.skipWhitespace();
  if (reader.pos < source.length) reader.fail("unexpected data after the JSON value");
  if (info !== undefined) {
    info.text = source;
    info.compact = !reader.sawWhitespace && !reader.sawDuplicateKey;
  }
  return value;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeBytes(bytes: Uint8Array, limits: JsonLimits): string {
  if (bytes.byteLength > limits.bytesMax) throw tooLarge(bytes.byteLength, limits);
  try {
    return decoder.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    // 0xED 0xA0..0xBF starts the UTF-8 form of U+D800..U+DFFF (CESU-8, WTF-8).
    const second = bytes[at + 1] ?? 0;
    if (bytes[at] === 0xed && second >= 0xa0 && second <= 0xbf) {
      throw new JsonError("LoneSurrogate", `Invalid JSON at byte ${at}: ${encodedSurrogate}`);
    }
    throw new JsonError("BadJson", `Invalid JSON at byte ${at}: the text is not valid UTF-8`);
  }
}

function checkText(text: string, limits: JsonLimits): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: measure exactly only when it could matter.
  if (text.length * 3 > limits.bytesMax) {
    const bytes = text.length > limits.bytesMax ? text.length : utf8Length(text);
    if (bytes > limits.bytesMax) throw tooLarge(bytes, limits);
  }
  // A raw lone surrogate cannot have come from UTF-8: the text is not Unicode.
  if (!(text as unknown as WellFormedString).isWellFormed()) {
    const at = byteOffset(text, firstLoneSurrogate(text));
    const what = "a raw lone surrogate is not valid Unicode";
    throw new JsonError("LoneSurrogate", `Invalid JSON at byte ${at}: ${what}`);
  }
  return text;
}

/** Node 20 has `String.prototype.isWellFormed`; the ES2022 lib does not declare it. */
interface WellFormedString {
  isWellFormed(): boolean;
}

const encodedSurrogate = "a UTF-8-encoded surrogate is a lone surrogate, which is not Unicode";

function tooLarge(bytes: number, limits: JsonLimits): JsonError {
  const what = `JSON text of ${bytes} bytes is larger than bytesMax (${limits.bytesMax})`;
  return new JsonError("BadJson", what);
}

/** The scanner. Indexes are UTF-16 units into `text`; messages convert them to byte offsets. */
class Reader {
  pos = 0;
  sawWhitespace = false;
  sawDuplicateKey = false;

  constructor(
    readonly text: string,
    readonly limits: JsonLimits,
  ) {}

  fail(what: string, at: number = this.pos): never {
    throw new JsonError("BadJson", `Invalid JSON at byte ${byteOffset(this.text, at)}: ${what}`);
  }

  /** What stands at the current position, for a message. */
  found(at: number = this.pos): string {
    return `found ${describe(this.text, at)}`;
  }

  skipWhitespace(): void {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      // RFC 8259 §2: space, tab, line feed, carriage return, nothing else.
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    if (i !== this.pos) this.sawWhitespace = true;
    this.pos = i;
  }

  readValue(depth: number): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x22) return this.readString();
    if (c === 0x7b) return this.readObject(depth + 1);
    if (c === 0x5b) return this.readArray(depth + 1);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber();
    if (c === 0x74) return this.readWord("true", true);
    if (c === 0x66) return this.readWord("false", false);
    if (c === 0x6e) return this.readWord("null", null);
    return this.fail(`expected a value, ${this.found()}`);
  }

  readWord<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`expected a value, ${this.found()}`);
    this.pos += word.length;
    return value;
  }

  readObject(depth: number): JsonObject {
    if (depth > this.limits.depthMax) this.tooDeep();
    const object = emptyJsonObject();
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return object;
    }
    for (let count = 1; ; count++) {
      if (count > this.limits.keysMax) {
        this.fail(`an object has more than keysMax (${this.limits.keysMax}) members`);
      }
      if (this.text.charCodeAt(this.pos) !== 0x22) {
        this.fail(`expected a string key, ${this.found()}`);
      }
      const key = this.readKey();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail(`expected ':', ${this.found()}`);
      this.pos++;
      this.skipWhitespace();
      if (key in object) this.sawDuplicateKey = true;
      object[key] = this.readValue(depth);
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x2c && c !== 0x7d) this.fail(`expected ',' or '}', ${this.found()}`);
      this.pos++;
      if (c === 0x7d) return object;
      this.skipWhitespace();
    }
  }

  readArray(depth: number): JsonValue[] {
    if (depth > this.limits.depthMax) this.tooDeep();
    const array: JsonValue[] = [];
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return array;
    }
    for (;;) {
      if (array.length >= this.limits.itemsMax) {
        this.fail(`an array has more than itemsMax (${this.limits.itemsMax}) items`);
      }
      array.push(this.readValue(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x2c && c !== 0x5d) this.fail(`expected ',' or ']', ${this.found()}`);
      this.pos++;
      if (c === 0x5d) return array;
      this.skipWhitespace();
    }
  }

  tooDeep(): never {
    const at = byteOffset(this.text, this.pos);
    const what = `JSON nests deeper than depthMax (${this.limits.depthMax}) at byte ${at}`;
    throw new JsonError("JsonTooDeep", what);
  }

  /** At the opening quote of a key: a key of the v2.0 model is the interned constant. */
  readKey(): string {
    const text = this.text;
    const start = this.pos + 1;
    const candidates = modelKeysByFirst[text.charCodeAt(start)];
    if (candidates !== undefined) {
      for (let k = 0; k < candidates.length; k++) {
        const key = candidates[k]!;
        if (text.charCodeAt(start + key.length) === 0x22 && text.startsWith(key, start)) {
          this.pos = start + key.length + 1;
          return key;
        }
      }
    }
    return this.readString();
  }

  /** At the opening quote. The common case, a string with no escape, is one slice. */
  readString(): string {
    const text = this.text;
    const end = text.length;
    const start = this.pos + 1;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return text.slice(start, i);
      }
      if (c === 0x5c) return this.readEscapedString(start, i);
      if (c < 0x20) this.rawControl(c, i);
    }
    return this.fail("a string is not closed", this.pos);
  }

  rawControl(c: number, at: number): never {
    return this.fail(`a raw control character U+${hex4(c)} in a string must be escaped`, at);
  }

  readEscapedString(start: number, firstEscape: number): string {
    const text = this.text;
    const end = text.length;
    let out = text.slice(start, firstEscape);
    let chunk = firstEscape;
    for (let i = firstEscape; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return out + text.slice(chunk, i);
      }
      if (c < 0x20) this.rawControl(c, i);
      if (c !== 0x5c) continue;
      out += text.slice(chunk, i);
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) {
        const code = this.readHex4(i);
        if (code < 0xd800 || code > 0xdfff) {
          out += String.fromCharCode(code);
          i += 5;
        } else {
          out += String.fromCharCode(code, this.readLowSurrogate(i, code));
          i += 11;
        }
      } else {
        const decoded = shortEscapes[e];
        if (decoded === undefined) this.fail(`invalid escape ${describe(text, i + 1)}`, i);
        out += decoded;
        i += 1;
      }
      chunk = i + 1;
    }
    return this.fail("a string is not closed", this.pos);
  }

  /**
   * At the `\uXXXX` escape of a surrogate `high` at `at`: the low half that must follow it as
   * the next escape (a raw one cannot: checkText or the UTF-8 decoder refused it already).
   */
  readLowSurrogate(at: number, high: number): number {
    const text = this.text;
    if (high <= 0xdbff && text.charCodeAt(at + 6) === 0x5c && text.charCodeAt(at + 7) === 0x75) {
      const low = this.readHex4(at + 6);
      if (low >= 0xdc00 && low <= 0xdfff) return low;
    }
    const escape = text.slice(at, at + 6);
    const what = `the escape ${escape} is a lone surrogate, which is not Unicode (I-JSON)`;
    throw new JsonError("LoneSurrogate", `Invalid JSON at byte ${byteOffset(text, at)}: ${what}`);
  }

  /** The four hex digits of a `\uXXXX` escape at `at`. */
  readHex4(at: number): number {
    let code = 0;
    for (let k = at + 2; k < at + 6; k++) {
      const d = hexValue(this.text.charCodeAt(k));
      if (d < 0) this.fail("a \\u escape needs four hex digits", at);
      code = code * 16 + d;
    }
    return code;
  }

  /** RFC 8259 §6 number grammar; see jsonValue.ts for which numbers stay plain. */
  readNumber(): JsonValue {
    const text = this.text;
    const start = this.pos;
    let i = start;
    const negative = text.charCodeAt(i) === 0x2d;
    if (negative) i++;
    let c = text.charCodeAt(i);
    let value = 0;
    if (c === 0x30) {
      i++;
      c = text.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) this.fail("a number must not have a leading zero", start);
    } else if (c >= 0x31 && c <= 0x39) {
      do {
        value = value * 10 + (c - 0x30);
        c = text.charCodeAt(++i);
      } while (c >= 0x30 && c <= 0x39);
    } else {
      this.fail(`expected a digit, ${this.found(i)}`, i);
    }
    const integerEnd = i;
    let isFloat = false;
    if (c === 0x2e) {
      i = this.readDigits(i + 1, "after '.'");
      c = text.charCodeAt(i);
      isFloat = true;
    }
    if (c === 0x65 || c === 0x45) {
      i++;
      c = text.charCodeAt(i);
      if (c === 0x2b || c === 0x2d) i++;
      i = this.readDigits(i, "in the exponent");
      isFloat = true;
    }
    this.pos = i;
    if (!isFloat) return integerValue(text, start, integerEnd, negative, value);
    const lexeme = text.slice(start, i);
    if (!Number.isFinite(Number(lexeme))) {
      this.fail(`the number ${shorten(lexeme)} is out of range`, start);
    }
    return new JsonNumber(lexeme, true);
  }

  /** At least one digit from `from`; returns the index after the last. */
  readDigits(from: number, where: string): number {
    let i = from;
    let c = this.text.charCodeAt(i);
    if (!(c >= 0x30 && c <= 0x39)) this.fail(`expected a digit ${where}, ${this.found(i)}`, i);
    do c = this.text.charCodeAt(++i);
    while (c >= 0x30 && c <= 0x39);
    return i;
  }
}

/**
 * An integer lexeme is a plain number when its value is a safe integer, since then `String(n)`
 * gives back the same digits in both canonical forms. Up to 15 digits the running value is
 * exact. `-0` stays a JsonNumber: Python reads the integer 0, a JS number would be -0.
 */
function integerValue(
  text: string,
  start: number,
  end: number,
  negative: boolean,
  value: number,
): JsonValue {
  const digits = end - start - (negative ? 1 : 0);
  if (digits <= 15) {
    if (negative && value === 0) return new JsonNumber("-0", false);
    return negative ? -value : value;
  }
  const lexeme = text.slice(start, end);
  const n = Number(lexeme);
  return Number.isSafeInteger(n) ? n : new JsonNumber(lexeme, false);
}

// A key read as a fresh slice must be looked up in V8's string table at every property store;
// the model's keys are interned constants. Measured: a 733-byte CREATE reads in 2.6 µs, not 3.5.
/** The model's keys by the code of their first character. */
const modelKeysByFirst: (string[] | undefined)[] = [];
for (const key of txModelKeys) (modelKeysByFirst[key.charCodeAt(0)] ??= []).push(key);

const shortEscapes: Record<number, string | undefined> = {
  0x22: '"',
  0x5c: "\\",
  0x2f: "/",
  0x62: "\b",
  0x66: "\f",
  0x6e: "\n",
  0x72: "\r",
  0x74: "\t",
};

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function hex4(c: number): string {
  return c.toString(16).toUpperCase().padStart(4, "0");
}

/** What stands at `at`, for a message: a printable ASCII character quoted, else U+XXXX. */
function describe(text: string, at: number): string {
  if (at >= text.length) return "the end of the text";
  const c = text.codePointAt(at) ?? 0;
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${hex4(c)}`;
}

function shorten(lexeme: string): string {
  return lexeme.length <= 40 ? lexeme : `${lexeme.slice(0, 37)}...`;
}

/** Only on the error path: the UTF-8 size of the text before UTF-16 index `at`. */
function byteOffset(text: string, at: number): number {
  return utf8Length(text.slice(0, at));
}

/**
 * The UTF-8 size of a text, a lone surrogate counting as U+FFFD (3), as Buffer.byteLength
 * does; without Buffer, so that the client reads JSON exactly in a browser too.
 */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    const pair = unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    // Two units make 4 bytes; any other unit from U+0800 on, 3; below, 2.
    bytes += pair ? 2 : unit >= 0x800 ? 2 : 1;
    if (pair) i += 1;
  }
  return bytes;
}

function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return i;
  }
  return text.length;
}

/** Only on the error path: where well-formed UTF-8 stops (Unicode Table 3-7). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    let size: number;
    let low = 0x80;
    let high = 0xbf;
    if (b < 0x80) size = 1;
    else if (b >= 0xc2 && b <= 0xdf) size = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      size = 3;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      size = 4;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < size; k++) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      if (k === 1 ? next < low || next > high : next < 0x80 || next > 0xbf) return i;
    }
    i += size;
  }
  return i;
}

/** readJson, or null where the text is not JSON this reader takes (no exception to catch). */
export function readJsonOrNull(text: string): JsonValue | null {
  try {
    return readJson(text);
  } catch (error) {
    if (error instanceof JsonError) return null;
    throw error;
  }
}
