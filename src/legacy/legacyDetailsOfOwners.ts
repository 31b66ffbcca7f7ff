import type { JsonObject } from "../json/jsonValue.js";
import { ed25519Bitmask } from "./legacyEd25519Condition.js";
import { thresholdBitmask } from "./legacyThresholdCondition.js";

/**
 * The `condition.details` that `create_tx` writes for a list of owners (docs/legacy-variants.md
 * §1.4, §1.6): the Ed25519 details of a single owner, or an n-of-n threshold of weight-1 Ed25519
 * subfulfillments, in the owners' order, for several. Keys in sorted order, as the originals
 * printed them.
 */
export function legacyDetailsOfOwners(owners: readonly string[]): JsonObject {
  if (owners.length === 0) throw new RangeError("a legacy condition needs at least one owner");
  if (owners.length === 1) return ed25519Details(owners[0]!);
  return {
    bitmask: thresholdBitmask | ed25519Bitmask,
    subfulfillments: owners.map((owner) => ({ ...ed25519Details(owner), weight: 1 })),
    threshold: owners.length,
    type: "fulfillment",
    type_id: 2,
  };
}

function ed25519Details(publicKey: string): JsonObject {
  return { bitmask: ed25519Bitmask, public_key: publicKey, signature: null, type: "fulfillment", type_id: 4 };
}
