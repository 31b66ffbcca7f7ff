import { conditionOfFulfillment } from "./conditionOfFulfillment.js";
import { encodeConditionUri } from "./encodeConditionUri.js";
import type { Fulfillment } from "./types.js";

/**
 * The condition URI a fulfillment fulfills; a TRANSFER input is valid only if it equals the URI
 * recomputed from the spent output's details (BigchainDB `_input_valid`).
 */
export function conditionUriOfFulfillment(fulfillment: Fulfillment): string {
  if (fulfillment.type === "ed25519-sha-256") return fulfillment.publicKey.conditionUri;
  return encodeConditionUri(conditionOfFulfillment(fulfillment));
}
