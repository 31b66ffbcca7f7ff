import { encodeBase64Url } from "../crypto-conditions/encodeBase64Url.js";
import type { LegacyCondition } from "./types.js";

/**
 * The condition URI of cryptoconditions 0.4.1 (`Condition.serialize_uri`, docs/legacy-variants.md
 * §1.4): `cc:<hex type>:<hex bitmask>:<base64url hash, unpadded>:<decimal max fulfillment length>`.
 */
export function encodeLegacyCondition(condition: LegacyCondition): string {
  const type = condition.typeId.toString(16);
  const bitmask = condition.bitmask.toString(16);
  return `cc:${type}:${bitmask}:${encodeBase64Url(condition.hash)}:${condition.maxFulfillmentLength}`;
}
