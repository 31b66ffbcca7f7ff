import { thresholdCondition } from "./thresholdCondition.js";
import type { Condition } from "./condition.js";
import type { Fulfillment } from "./types.js";

/**
 * The condition a fulfillment fulfills. A threshold fulfillment's threshold is its number of
 * subfulfillments, and its subconditions are those of the subfulfillments plus the unfulfilled ones.
 */
export function conditionOfFulfillment(fulfillment: Fulfillment): Condition {
  if (fulfillment.type === "ed25519-sha-256") return fulfillment.publicKey.condition;
  const subconditions = fulfillment.subfulfillments.map(conditionOfFulfillment);
  subconditions.push(...fulfillment.subconditions);
  return thresholdCondition(fulfillment.subfulfillments.length, subconditions);
}
