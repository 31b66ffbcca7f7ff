import { LegacyWriter } from "./legacyWriter.js";
import type { LegacyCondition } from "./types.js";

/**
 * The binary condition of cryptoconditions 0.4.1 (`Condition.serialize_binary`), which threshold
 * fingerprints and fulfillments embed: `uint16(type) ‖ varuint(bitmask) ‖ varoctets(hash) ‖
 * varuint(max fulfillment length)`. For an Ed25519 key: `00 04 | 01 20 | 20 <key> | 01 60`.
 */
export function encodeLegacyConditionBinary(condition: LegacyCondition): Uint8Array {
  return new LegacyWriter()
    .uint16(condition.typeId)
    .varUint(condition.bitmask)
    .varOctets(condition.hash)
    .varUint(condition.maxFulfillmentLength)
    .finish();
}
