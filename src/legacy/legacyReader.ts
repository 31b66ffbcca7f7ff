import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";

// The original reader refused integers longer than 6 bytes (`Reader.MAX_INT_BYTES`).
const varUintBytesMax = 6;
// Octet-string lengths of up to 3 bytes (16 MiB); a fulfillment URI is capped far below.
const lengthBytesMax = 3;

/**
 * A strict cursor over the binary forms of cryptoconditions 0.4.1 (`lib/reader.py`, legacy
 * §1.4). Strict where the original was lenient: a length or varuint must be in its shortest
 * form, so that one value has one encoding, and reading past the end is a `parse` error.
 */
export class LegacyReader {
  #offset = 0;

  constructor(readonly bytes: Uint8Array) {}

  get atEnd(): boolean {
    return this.#offset === this.bytes.length;
  }

  read(count: number): Uint8Array {
    if (this.bytes.length - this.#offset < count) throw parseError("truncated");
    const out = this.bytes.subarray(this.#offset, this.#offset + count);
    this.#offset += count;
    return out;
  }

  uint16(): number {
    const [high, low] = this.read(2) as unknown as [number, number];
    return high * 256 + low;
  }

  varOctets(): Uint8Array {
    const first = this.read(1)[0]!;
    if (first < 0x80) return this.read(first);
    const size = first & 0x7f;
    if (size === 0 || size > lengthBytesMax) throw parseError("unsupported length prefix");
    const length = bigEndian(this.read(size));
    if (length <= 127 || this.bytes[this.#offset - size] === 0) throw parseError("non-minimal length");
    return this.read(length);
  }

  varUint(): number {
    const bytes = this.varOctets();
    if (bytes.length === 0 || bytes.length > varUintBytesMax) throw parseError("bad varuint length");
    if (bytes.length > 1 && bytes[0] === 0) throw parseError("non-minimal varuint");
    return bigEndian(bytes);
  }

  expectEnd(what: string): void {
    if (!this.atEnd) throw parseError(`trailing bytes after ${what}`);
  }
}

function bigEndian(bytes: Uint8Array): number {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  return value;
}

function parseError(what: string): CryptoConditionError {
  return new CryptoConditionError("parse", `legacy fulfillment: ${what}`);
}
