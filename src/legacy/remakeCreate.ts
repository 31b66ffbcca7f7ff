import assert from "node:assert/strict";
import { encodeBase58 } from "../crypto-conditions/encodeBase58.js";
import { publicKeyFromSeed } from "../crypto-conditions/publicKeyFromSeed.js";
import { isJsonObject, type JsonObject } from "../json/jsonValue.js";
import { createLegacyTx } from "./createLegacyTx.js";
import { legacyNames } from "./legacyNames.js";
import { signLegacyTx } from "./signLegacyTx.js";
import type { LegacySigner, LegacyTx, LegacyVariant } from "./types.js";

/**
 * What the originals did with a posted CREATE (`util.transform_create` and the node's signing,
 * docs/legacy-variants.md §1.6; docs/compatibility.md #15): throw away the client's transaction,
 * its id, signature, conditions, uuid and timestamp, and make a new one in the same variant, signed
 * by this node: `owners_before` = [the node's key]; the new owners = the client's first
 * fulfillment's `owners_before` / `current_owners` (several give an n-of-n threshold); the payload
 * = the client's `data.payload` when `data` is a non-empty object holding one, else null. The
 * client's signature is never checked: clients cannot create assets, only the federation can.
 *
 * `client` must have passed `classifyLegacy` as a CREATE of `variant`; `timestamp` and `uuid`
 * come from the caller's clock and random source. The response carries the new id.
 */
export function remakeCreate(
  client: LegacyTx,
  variant: LegacyVariant,
  node: LegacySigner,
  timestamp: string,
  uuid: string,
): LegacyTx {
  // A node key whose halves disagree would sign CREATEs that never verify: a configuration bug.
  const derived = encodeBase58(publicKeyFromSeed(node.seed));
  assert.equal(derived, node.publicKey, "the node key's seed and public key disagree");
  const transaction = client["transaction"] as JsonObject;
  const first = (transaction["fulfillments"] as JsonObject[])[0]!;
  const owners = first[legacyNames[variant].ownersBefore] as string[];
  const data = transaction["data"];
  // Python: `if transaction['data'] and 'payload' in transaction['data']`; an empty dict is falsy.
  const payload = isJsonObject(data) && Object.keys(data).length > 0 && "payload" in data ? data["payload"]! : null;
  const unsigned = createLegacyTx({
    variant,
    operation: "CREATE",
    fulfillments: [{ ownersBefore: [node.publicKey], input: null }],
    ownersAfter: owners,
    payload: isJsonObject(payload) ? payload : null,
    timestamp,
    uuid,
  });
  return signLegacyTx(unsigned, variant, [node]);
}
