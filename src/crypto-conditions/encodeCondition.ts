import { derIntegerContent } from "./derIntegerContent.js";
import { derTlv } from "./derTlv.js";
import { encodeSubtypes } from "./encodeSubtypes.js";
import { conditionTypeIds, type Condition } from "./condition.js";

/**
 * The DER of a condition: `[typeId] { [0] fingerprint, [1] cost }`, plus `[2] subtypes` for a
 * compound (threshold) condition (draft-04 Condition, SimpleSha256Condition and
 * CompoundSha256Condition, implicit tags, so the SEQUENCE becomes constructed context tags).
 */
export function encodeCondition(condition: Condition): Uint8Array {
  const fingerprint = derTlv(0x80, condition.fingerprint);
  const cost = derTlv(0x81, derIntegerContent(condition.cost));
  const tag = 0xa0 | conditionTypeIds[condition.type];
  if (condition.type === "ed25519-sha-256") return derTlv(tag, fingerprint, cost);
  return derTlv(tag, fingerprint, cost, derTlv(0x82, encodeSubtypes(condition.subtypes)));
}
