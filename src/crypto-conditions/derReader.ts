import { CryptoConditionError } from "./cryptoConditionError.js";

/** One DER element: its identifier octet and where it and its contents lie in the buffer. */
export interface DerElement {
  readonly tag: number;
  /** Offset of the identifier octet. */
  readonly start: number;
  readonly contentStart: number;
  /** Offset just past the contents, which is also the end of the element. */
  readonly end: number;
}

// Lengths of up to 3 octets (16 MiB) are read; a fulfillment is capped far below that.
const lengthOctetsMax = 3;

/**
 * A cursor over DER elements between two offsets of a buffer. Strict X.690 DER: single-octet
 * identifiers (every tag the spec uses is below 31), definite lengths in the minimal form. Any
 * other form is a `parse` error, so what decodes re-encodes to the same bytes.
 */
export class DerReader {
  #offset: number;

  constructor(
    readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.#offset = start;
  }

  get atEnd(): boolean {
    return this.#offset === this.end;
  }

  read(): DerElement {
    const bytes = this.bytes;
    const start = this.#offset;
    if (this.end - start < 2) throw parseError("truncated DER element");
    const tag = bytes[start]!;
    if ((tag & 0x1f) === 0x1f) throw parseError("multi-octet DER tags are not used");
    const first = bytes[start + 1]!;
    let contentStart = start + 2;
    let length = first;
    if (first >= 0x80) {
      const octets = first & 0x7f;
      if (octets === 0) throw parseError("indefinite DER length");
      if (octets > lengthOctetsMax) throw parseError("DER length too large");
      if (this.end - contentStart < octets) throw parseError("truncated DER length");
      // X.690 10.1: the long form only for 128 and up, without leading zero octets.
      if (bytes[contentStart] === 0) throw parseError("non-minimal DER length");
      length = 0;
      for (let i = 0; i < octets; i++) length = length * 256 + bytes[contentStart + i]!;
      if (length < 0x80) throw parseError("non-minimal DER length");
      contentStart += octets;
    }
    if (length > this.end - contentStart) throw parseError("DER length past the end of its container");
    this.#offset = contentStart + length;
    return { tag, start, contentStart, end: contentStart + length };
  }

  /** Reads the next element and requires its tag; `what` names it in the error. */
  readTagged(tag: number, what: string): DerElement {
    const element = this.read();
    if (element.tag !== tag) throw parseError(`expected ${what}`);
    return element;
  }
}

function parseError(message: string): CryptoConditionError {
  return new CryptoConditionError("parse", message);
}
