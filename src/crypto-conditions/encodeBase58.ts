import { base58Alphabet } from "./base58Alphabet.js";

// Three base58 digits per pass over the limbs: the remainder (< 58^3) times 2^32 stays below 2^53,
// so every step is exact in a double.
const chunkBase = 58 * 58 * 58;
const limbBase = 4_294_967_296;

/**
 * Base58 (Bitcoin alphabet) of `bytes`. Each leading zero byte becomes a leading "1", as in
 * Bitcoin and the Python `base58` package. The number is held in 32-bit limbs so a 32-byte key
 * takes about 15 passes of 8 divisions rather than a division per digit per byte.
 */
export function encodeBase58(bytes: Uint8Array): string {
  const length = bytes.length;
  let zeros = 0;
  while (zeros < length && bytes[zeros] === 0) zeros++;

  // Little-endian 32-bit limbs of the big-endian number bytes[zeros..].
  const limbCount = Math.ceil((length - zeros) / 4);
  const limbs = new Float64Array(limbCount);
  for (let i = length - 1, limb = 0, shift = 1; i >= zeros; i--) {
    limbs[limb] = limbs[limb]! + bytes[i]! * shift;
    shift *= 256;
    if (shift === limbBase) {
      limb++;
      shift = 1;
    }
  }

  // Repeated division by 58^3; digits come out least significant first.
  const digits: number[] = [];
  let top = limbCount;
  while (top > 0 && limbs[top - 1] === 0) top--;
  while (top > 0) {
    let remainder = 0;
    for (let j = top - 1; j >= 0; j--) {
      const value = remainder * limbBase + limbs[j]!;
      const quotient = Math.floor(value / chunkBase);
      limbs[j] = quotient;
      remainder = value - quotient * chunkBase;
    }
    while (top > 0 && limbs[top - 1] === 0) top--;
    digits.push(remainder % 58, Math.floor(remainder / 58) % 58, Math.floor(remainder / 3364));
  }
  // The last pass may have produced leading zero digits that are not part of the number.
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits.pop();

  let text = "1".repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) text += base58Alphabet[digits[i]!];
  return text;
}
