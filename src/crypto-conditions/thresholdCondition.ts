import { createHash } from "node:crypto";
import { compareDer } from "./compareDer.js";
import { CryptoConditionError } from "./cryptoConditionError.js";
import { derIntegerContent } from "./derIntegerContent.js";
import { derTlv } from "./derTlv.js";
import { encodeCondition } from "./encodeCondition.js";
import type { Condition, ConditionTypeName } from "./condition.js";

// Each subcondition adds this to the cost (draft-04 THRESHOLD-SHA-256 cost; both references).
const costPerSubcondition = 1024;

/**
 * The condition of an m-of-n threshold over `subconditions` (draft-04 THRESHOLD-SHA-256):
 * - fingerprint: sha-256 of ThresholdFingerprintContents ::= SEQUENCE { threshold [0] INTEGER,
 *   subconditions [1] SET OF Condition }, the set in DER order;
 * - cost: the sum of the `threshold` largest subcondition costs plus 1024 per subcondition;
 * - subtypes: every type below, and the subtypes of every subcondition, except threshold-sha-256
 *   itself (both references drop their own type), sorted by name.
 * Throws `parse` when there are fewer subconditions than the threshold (the references' "Insufficient
 * number of subconditions") and `limit` if the cost stops being a safe integer.
 */
export function thresholdCondition(threshold: number, subconditions: readonly Condition[]): Condition {
  if (subconditions.length < threshold) {
    throw new CryptoConditionError("parse", "fewer subconditions than the threshold");
  }
  const costs = subconditions.map((c) => c.cost).sort((a, b) => b - a);
  let cost = costPerSubcondition * subconditions.length;
  for (let i = 0; i < threshold; i++) cost += costs[i]!;
  if (!Number.isSafeInteger(cost)) throw new CryptoConditionError("limit", "threshold cost out of range");

  const subtypes = new Set<ConditionTypeName>();
  for (const c of subconditions) {
    subtypes.add(c.type);
    for (const t of c.subtypes) subtypes.add(t);
  }
  subtypes.delete("threshold-sha-256");

  const encoded = subconditions.map(encodeCondition).sort(compareDer);
  const contents = derTlv(0x30, derTlv(0x80, derIntegerContent(threshold)), derTlv(0xa1, ...encoded));
  const fingerprint = createHash("sha256").update(contents).digest();
  return { type: "threshold-sha-256", fingerprint, cost, subtypes: [...subtypes].sort() };
}
