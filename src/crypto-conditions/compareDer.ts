import { Buffer } from "node:buffer";

/**
 * The order of a DER SET OF (X.690 11.6): by encoded octets. The JS reference sorts with
 * `Buffer.compare` (`ThresholdSha256.compareConditions`), which gives the same order because no
 * element's encoding is a prefix of another's.
 */
export function compareDer(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}
