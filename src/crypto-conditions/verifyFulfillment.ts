import type { Fulfillment } from "./types.js";
import { verifyEd25519Key } from "./verifyEd25519.js";

/**
 * Whether a fulfillment is valid for `message` (BigchainDB: the 32-byte sha3-256 digest of the
 * input, see docs/bigchaindb-behaviour.md §2.2). It does not check which condition it fulfills:
 * compare `conditionUriOfFulfillment` with the spent output's for that.
 *
 * Threshold semantics follow both references (JS `ThresholdSha256.validate`, Python
 * cryptoconditions 0.8 `ThresholdSha256.validate`): the threshold is set to the number of
 * subfulfillments when parsing, so their "threshold not met" and "not minimal" checks always pass,
 * and what remains is that every subfulfillment is valid. That the count is the threshold the
 * output asked for is settled by the condition URI, which hashes the threshold in.
 */
export function verifyFulfillment(fulfillment: Fulfillment, message: Uint8Array): boolean {
  if (fulfillment.type === "ed25519-sha-256") {
    return verifyEd25519Key(fulfillment.publicKey, fulfillment.signature, message);
  }
  // A threshold of zero is not a threshold (decodeFulfillment never yields one).
  if (fulfillment.subfulfillments.length === 0) return false;
  return fulfillment.subfulfillments.every((sub) => verifyFulfillment(sub, message));
}
