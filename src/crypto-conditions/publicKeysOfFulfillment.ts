import type { Fulfillment } from "./types.js";

/**
 * The base58 public keys that signed a fulfillment: every ed25519 subfulfillment, each key once,
 * in DER order. Keys that appear only as unfulfilled subconditions are hashed away and not known.
 */
export function publicKeysOfFulfillment(fulfillment: Fulfillment): string[] {
  const keys = new Set<string>();
  collect(fulfillment, keys);
  return [...keys];
}

function collect(fulfillment: Fulfillment, keys: Set<string>): void {
  if (fulfillment.type === "ed25519-sha-256") {
    keys.add(fulfillment.publicKey.base58);
    return;
  }
  for (const sub of fulfillment.subfulfillments) collect(sub, keys);
}
