import { emptyJsonObject, type JsonObject } from "../json/jsonValue.js";
import type { CanonicalForm } from "../json/canonicalForm.js";
import { serializeCanonical } from "../json/serializeCanonical.js";
import { sha3Hex } from "./sha3Hex.js";

/**
 * The transaction id in one canonical form: hex sha3-256 of the canonical JSON of the
 * transaction with `"id": null`, fulfillments included (docs/bigchaindb-behaviour.md §2.1,
 * `Transaction.validate_id`). The input is not changed. Throws LedgerError("BadJson") where the
 * python form cannot be written.
 */
export function computeTxId(tx: JsonObject, form: CanonicalForm): string {
  const body: JsonObject = Object.assign(emptyJsonObject(), tx);
  body["id"] = null;
  return sha3Hex(serializeCanonical(body, form));
}
