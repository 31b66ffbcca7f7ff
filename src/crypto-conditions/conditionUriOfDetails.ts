import type { JsonValue } from "../transaction/jsonValue.js";
import { conditionOfDetails } from "./conditionOfDetails.js";
import { encodeConditionUri } from "./encodeConditionUri.js";

/**
 * The condition URI of a wire `condition.details` object. BigchainDB compares a TRANSFER
 * fulfillment's URI with this, never with the stored `uri` string. Throws CryptoConditionError
 * as `conditionOfDetails` does.
 */
export function conditionUriOfDetails(details: JsonValue): string {
  return encodeConditionUri(conditionOfDetails(details));
}
