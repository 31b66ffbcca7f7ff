import { conditionTypeIds, type ConditionTypeName } from "./condition.js";

/**
 * The contents octets of a compound condition's `subtypes` BIT STRING: the unused-bit count, then
 * one bit per type id, bit 0 being the top bit of the first octet. Written exactly as the JS
 * reference writes it (`Condition.getAsn1Json`): `1 + (maxId >> 3)` octets with `7 - maxId % 8`
 * unused bits, where an empty set counts as maxId 0. For ed25519 alone that is `03 08`.
 */
export function encodeSubtypes(subtypes: readonly ConditionTypeName[]): Uint8Array {
  let maxId = 0;
  for (const name of subtypes) maxId = Math.max(maxId, conditionTypeIds[name]);
  const out = new Uint8Array(2 + (maxId >>> 3));
  out[0] = 7 - (maxId % 8);
  for (const name of subtypes) {
    const id = conditionTypeIds[name];
    out[1 + (id >>> 3)]! |= 1 << (7 - (id % 8));
  }
  return out;
}
