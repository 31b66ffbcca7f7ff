import type { JsonObject } from "../json/jsonValue.js";
import { serializeCanonical } from "../json/serializeCanonical.js";
import { keccak256Hex } from "./keccak256Hex.js";
import type { LegacyTx } from "./types.js";

/**
 * The id of a legacy transaction (`util.get_hash_data`, docs/legacy-variants.md §1.3): hex
 * Keccak-256 of the serialized `transaction` object with every `fulfillments[i].fulfillment` set to
 * null, nothing else removed. So Variant B's top-level `version` is outside the id and Variant A's
 * `transaction.version` inside it.
 *
 * Serialization (docs/legacy-variants.md §1.1): python-rapidjson 0.0.6 `dumps(sort_keys=True,
 * ensure_ascii=False)`: compact, keys sorted by code point, non-ASCII raw, hashed as UTF-8. That
 * is the "python" canonical form of src/transaction, which agrees with it on strings, safe
 * integers, booleans and null. Numbers with a fraction or exponent, and integers beyond 2^53,
 * are refused by `classifyLegacy` before any id is computed: Python 3.5 and JS print some floats
 * differently and nothing of the old rapidjson can be run to settle it, while every legacy
 * field is a string, a small integer or a client payload (docs/legacy-variants.md §1.1 allows
 * refusing them).
 */
export function legacyTxId(tx: LegacyTx): string {
  const body = tx["transaction"] as JsonObject;
  const fulfillments = (body["fulfillments"] as JsonObject[]).map((fulfillment) => ({
    ...fulfillment,
    fulfillment: null,
  }));
  return keccak256Hex(serializeCanonical({ ...body, fulfillments }, "python"));
}
