import assert from "node:assert/strict";

/**
 * The contents octets of a DER INTEGER holding a non-negative safe integer: big-endian, minimal,
 * with a leading zero octet when the top bit would otherwise make it negative (X.690 8.3).
 */
export function derIntegerContent(value: number): Uint8Array {
  assert(Number.isSafeInteger(value) && value >= 0, "a DER integer here is a non-negative safe integer");
  const octets: number[] = [];
  let rest = value;
  do {
    octets.unshift(rest % 256);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  if (octets[0]! >= 0x80) octets.unshift(0);
  return Uint8Array.from(octets);
}
