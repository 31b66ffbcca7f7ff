import { legacyEd25519Condition } from "./legacyEd25519Condition.js";
import { legacyThresholdCondition } from "./legacyThresholdCondition.js";
import type { LegacyCondition, LegacyFulfillment } from "./types.js";

/**
 * The condition a fulfillment fulfills (`Fulfillment.condition`): for Ed25519 its key; for a
 * threshold, the threshold over every branch's condition, fulfilled or not.
 */
export function legacyConditionOfFulfillment(fulfillment: LegacyFulfillment): LegacyCondition {
  if (fulfillment.typeId === 4) return legacyEd25519Condition(fulfillment.publicKey);
  return legacyThresholdCondition(
    fulfillment.threshold,
    fulfillment.branches.map((branch) => ({
      weight: branch.weight,
      condition: "fulfillment" in branch ? legacyConditionOfFulfillment(branch.fulfillment) : branch.condition,
    })),
  );
}
