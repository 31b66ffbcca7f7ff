import { conditionUriOfDetails } from "../../crypto-conditions/conditionUriOfDetails.js";
import type { JsonObject } from "../../json/jsonValue.js";

/**
 * An output as the drivers make it: one key gives an ed25519-sha-256 condition; several keys
 * give an n-of-n threshold-sha-256 condition over them (or m-of-n with `threshold`).
 */
export function makeOutput(publicKeys: readonly string[], amount: bigint | string, threshold?: number): JsonObject {
  if (publicKeys.length === 0) throw new RangeError("an output needs at least one public key");
  const details = publicKeys.length === 1 && threshold === undefined ? ed25519Details(publicKeys[0]!) : {
    type: "threshold-sha-256",
    threshold: threshold ?? publicKeys.length,
    subconditions: publicKeys.map(ed25519Details),
  };
  return {
    condition: { details, uri: conditionUriOfDetails(details) },
    amount: String(amount),
    public_keys: [...publicKeys],
  };
}

function ed25519Details(publicKey: string): JsonObject {
  return { type: "ed25519-sha-256", public_key: publicKey };
}
