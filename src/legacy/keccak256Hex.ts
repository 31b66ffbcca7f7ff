import { Buffer } from "node:buffer";
import jsSha3 from "js-sha3";

/**
 * Hex Keccak-256 of a text's UTF-8 bytes: the original Keccak padding (0x01), not FIPS 202
 * SHA3-256 (0x06), which is what pysha3 0.3's `sha3_256` computed and BigchainDB up to v0.8.0
 * hashed with (docs/legacy-variants.md §1.2). node:crypto has only the FIPS variant, hence js-sha3.
 * keccak256Hex("") is c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470.
 */
export function keccak256Hex(text: string): string {
  return jsSha3.keccak256(Buffer.from(text, "utf8"));
}
