import { encodeBase64Url } from "./encodeBase64Url.js";
import { encodeFulfillmentBinary } from "./encodeFulfillmentBinary.js";
import type { Fulfillment } from "./types.js";

/** The `inputs[].fulfillment` text of a fulfillment: base64url, no padding, of its DER. */
export function encodeFulfillment(fulfillment: Fulfillment): string {
  return encodeBase64Url(encodeFulfillmentBinary(fulfillment));
}
