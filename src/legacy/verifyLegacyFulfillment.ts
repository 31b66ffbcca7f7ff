import { verifyEd25519 } from "../crypto-conditions/verifyEd25519.js";
import type { LegacyFulfillment } from "./types.js";

/**
 * Whether a fulfillment verifies over `message` (cryptoconditions 0.4.1 `validate`): an Ed25519
 * signature is plain Ed25519 over the message bytes, no prehash (docs/legacy-variants.md §1.5); a
 * threshold needs every subfulfillment to verify and their weights to reach the threshold.
 *
 * The weights are summed as the original summed them: each fulfilled branch adds the smallest
 * weight seen so far, not its own. With the weights of 1 that `create_tx` writes this is the plain
 * count; with other weights it can only undercount, so nothing the original refused passes here.
 */
export function verifyLegacyFulfillment(fulfillment: LegacyFulfillment, message: Uint8Array): boolean {
  if (fulfillment.typeId === 4) return verifyEd25519(fulfillment.publicKey, fulfillment.signature, message);
  let smallest = Number.POSITIVE_INFINITY;
  let total = 0;
  for (const branch of fulfillment.branches) {
    if (!("fulfillment" in branch)) continue;
    smallest = Math.min(smallest, branch.weight);
    total += smallest;
  }
  if (total < fulfillment.threshold) return false;
  return fulfillment.branches.every(
    (branch) => !("fulfillment" in branch) || verifyLegacyFulfillment(branch.fulfillment, message),
  );
}
