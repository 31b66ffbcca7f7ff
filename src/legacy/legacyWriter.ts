/**
 * The byte writer of cryptoconditions 0.4.1 (`lib/writer.py`, docs/legacy-variants.md §1.4):
 * big-endian fixed integers, and length-prefixed octet strings, a "varuint" being the minimal
 * big-endian bytes of the integer written as an octet string (1 -> `01 01`, 0 -> `01 00`).
 *
 * The original wrote integers with `bytes([value])`, so any value of 256 or more (a count, a
 * weight, a long max fulfillment length inside a nested threshold) raised an error there. Here
 * they get their natural big-endian bytes; every value the original could write comes out the same.
 */
export class LegacyWriter {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  bytes(bytes: Uint8Array): this {
    this.#chunks.push(bytes);
    this.#length += bytes.length;
    return this;
  }

  uint16(value: number): this {
    return this.bytes(fixedBytes(value, 2));
  }

  uint32(value: number): this {
    return this.bytes(fixedBytes(value, 4));
  }

  varUint(value: number): this {
    return this.varOctets(minimalBytes(value));
  }

  /** Lengths up to 127 in one byte; longer ones as 0x80|n and n big-endian length bytes. */
  varOctets(bytes: Uint8Array): this {
    if (bytes.length <= 127) this.bytes(Uint8Array.of(bytes.length));
    else {
      const length = minimalBytes(bytes.length);
      this.bytes(Uint8Array.of(0x80 | length.length)).bytes(length);
    }
    return this.bytes(bytes);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let offset = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}

function fixedBytes(value: number, size: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0 || value >= 2 ** (8 * size)) {
    throw new RangeError(`${value} does not fit in ${size} bytes`);
  }
  const out = new Uint8Array(size);
  for (let i = size - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
}

/** The shortest big-endian bytes of a non-negative safe integer; at least one byte. */
function minimalBytes(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a varuint: ${value}`);
  let size = 1;
  while (value >= 2 ** (8 * size)) size++;
  return fixedBytes(value, size);
}
