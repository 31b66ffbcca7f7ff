import { encodeBase64Url } from "../crypto-conditions/encodeBase64Url.js";
import { encodeLegacyConditionBinary } from "./encodeLegacyConditionBinary.js";
import { LegacyWriter } from "./legacyWriter.js";
import type { LegacyFulfillment } from "./types.js";

const empty = new Uint8Array(0);

/**
 * The fulfillment URI of cryptoconditions 0.4.1 (`Fulfillment.serialize_uri`,
 * docs/legacy-variants.md §1.4): `cf:<hex type>:<base64url payload, unpadded>`. Payloads:
 * - Ed25519: the 32-byte key and the 64-byte signature (so the URI is 128 characters);
 * - threshold: `varuint(threshold) ‖ varuint(count) ‖ sorted[varuint(weight) ‖
 *   varoctets(subfulfillment binary or "") ‖ varoctets(condition binary or "")]`, sorted by
 *   length, then bytes. The branches are written as given: which to fulfil is the signer's choice.
 */
export function encodeLegacyFulfillment(fulfillment: LegacyFulfillment): string {
  return `cf:${fulfillment.typeId.toString(16)}:${encodeBase64Url(payloadOf(fulfillment))}`;
}

function payloadOf(fulfillment: LegacyFulfillment): Uint8Array {
  if (fulfillment.typeId === 4) {
    return new LegacyWriter().bytes(fulfillment.publicKey).bytes(fulfillment.signature).finish();
  }
  const entries = fulfillment.branches.map((branch) => {
    const entry = new LegacyWriter().varUint(branch.weight);
    if ("fulfillment" in branch) entry.varOctets(binaryOf(branch.fulfillment)).varOctets(empty);
    else entry.varOctets(empty).varOctets(encodeLegacyConditionBinary(branch.condition));
    return entry.finish();
  });
  entries.sort(compareBuffers);
  const writer = new LegacyWriter().varUint(fulfillment.threshold).varUint(entries.length);
  for (const entry of entries) writer.bytes(entry);
  return writer.finish();
}

/** `Fulfillment.serialize_binary`: `uint16(type) ‖ varoctets(payload)`. */
function binaryOf(fulfillment: LegacyFulfillment): Uint8Array {
  return new LegacyWriter().uint16(fulfillment.typeId).varOctets(payloadOf(fulfillment)).finish();
}

function compareBuffers(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
