import { base58Alphabet } from "./base58Alphabet.js";
import { base58CharsMax } from "./limits.js";

const limbBase = 4_294_967_296;

// Digit of each ASCII code, -1 where the code is not in the alphabet.
const digitOfCode = new Int8Array(128).fill(-1);
for (let i = 0; i < base58Alphabet.length; i++) digitOfCode[base58Alphabet.charCodeAt(i)] = i;

/**
 * Bytes of a base58 (Bitcoin alphabet) text; each leading "1" is a leading zero byte. Throws a
 * plain Error on a character outside the alphabet or a text longer than `base58CharsMax`; the
 * caller turns it into a coded rejection. Base58 is a bijection, so a text that decodes
 * re-encodes to itself.
 *
 * Three characters are folded per pass into 32-bit limbs (58^3 times 2^32 stays below 2^53), so a
 * 44-character key takes about 15 passes over at most 8 limbs.
 */
export function decodeBase58(text: string): Uint8Array {
  const length = text.length;
  if (length > base58CharsMax) {
    throw new Error(`base58 text longer than ${base58CharsMax} characters`);
  }
  let zeros = 0;
  while (zeros < length && text.charCodeAt(zeros) === 49 /* "1" */) zeros++;

  // log2(58) < 5.86 bits per character, plus one limb for the carry.
  const limbs = new Float64Array(Math.ceil(((length - zeros) * 5.86) / 32) + 1);
  let used = 0;
  let i = zeros;
  while (i < length) {
    let chunk = 0;
    let multiplier = 1;
    for (const stop = Math.min(i + 3, length); i < stop; i++) {
      const code = text.charCodeAt(i);
      const digit = code < 128 ? digitOfCode[code]! : -1;
      if (digit < 0) throw new Error(`invalid base58 character at index ${i}`);
      chunk = chunk * 58 + digit;
      multiplier *= 58;
    }
    let carry = chunk;
    for (let j = 0; j < used; j++) {
      const value = limbs[j]! * multiplier + carry;
      carry = Math.floor(value / limbBase);
      limbs[j] = value - carry * limbBase;
    }
    while (carry > 0) {
      const next = Math.floor(carry / limbBase);
      limbs[used++] = carry - next * limbBase;
      carry = next;
    }
  }

  const top = used === 0 ? 0 : limbs[used - 1]!;
  const topBytes = top >= 16_777_216 ? 4 : top >= 65_536 ? 3 : top >= 256 ? 2 : top > 0 ? 1 : 0;
  const numberBytes = used === 0 ? 0 : (used - 1) * 4 + topBytes;
  const bytes = new Uint8Array(zeros + numberBytes);
  for (let k = bytes.length - 1, limb = 0; k >= zeros; limb++) {
    let value = limbs[limb]!;
    for (let b = 0; b < 4 && k >= zeros; b++, k--) {
      bytes[k] = value % 256;
      value = Math.floor(value / 256);
    }
  }
  return bytes;
}
