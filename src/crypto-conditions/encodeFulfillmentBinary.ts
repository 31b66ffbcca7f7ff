import assert from "node:assert/strict";
import { compareDer } from "./compareDer.js";
import { derTlv } from "./derTlv.js";
import { encodeCondition } from "./encodeCondition.js";
import type { Fulfillment } from "./types.js";

/**
 * The DER of a fulfillment (draft-04 Fulfillment CHOICE, implicit tags):
 * ed25519 `A4 64 80 20 <pub32> 81 40 <sig64>`; threshold `A2 { A0 {subfulfillments} A1 {subconditions} }`
 * with both SETs OF in DER order, which is how the JS reference writes them
 * (`ThresholdSha256.getAsn1JsonPayload` sorts each with `compareConditions`), so a driver's
 * fulfillment re-encodes byte for byte.
 */
export function encodeFulfillmentBinary(fulfillment: Fulfillment): Uint8Array {
  if (fulfillment.type === "ed25519-sha-256") {
    assert.equal(fulfillment.publicKey.bytes.length, 32, "an Ed25519 public key is 32 bytes");
    assert.equal(fulfillment.signature.length, 64, "an Ed25519 signature is 64 bytes");
    return derTlv(0xa4, derTlv(0x80, fulfillment.publicKey.bytes), derTlv(0x81, fulfillment.signature));
  }
  assert(fulfillment.subfulfillments.length >= 1, "a threshold fulfillment has a subfulfillment");
  const subfulfillments = fulfillment.subfulfillments.map(encodeFulfillmentBinary).sort(compareDer);
  const subconditions = fulfillment.subconditions.map(encodeCondition).sort(compareDer);
  return derTlv(0xa2, derTlv(0xa0, ...subfulfillments), derTlv(0xa1, ...subconditions));
}
