import { createHash } from "node:crypto";
import { LedgerError } from "../errors/ledgerError.js";
import { emptyJsonObject, isJsonObject, JsonNumber, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import type { CanonicalForm } from "../json/canonicalForm.js";
import { serializeCanonical } from "../json/serializeCanonical.js";
import { serializeNumber } from "../json/serializeNumber.js";

/**
 * The 32-byte digest each input's fulfillment signs (docs/bigchaindb-behaviour.md §2.2,
 * `Transaction._input_valid`): sha3-256 of msg, followed for a spending input by
 * `fulfills.transaction_id` and the decimal `fulfills.output_index`, where msg is the canonical
 * JSON of the transaction with `"id": null` and every `inputs[].fulfillment` null. One entry per
 * input, in order. The input is not changed.
 *
 * Meant to run after the schema check; a shape it cannot read still fails as a coded error.
 */
export function signingDigests(tx: JsonObject, form: CanonicalForm): Uint8Array[] {
  const inputs = tx["inputs"];
  if (!Array.isArray(inputs)) throw shapeError("inputs is not an array");
  const unsigned: JsonObject[] = inputs.map((input, index) => {
    if (!isJsonObject(input)) throw shapeError(`inputs[${index}] is not an object`);
    const copy: JsonObject = Object.assign(emptyJsonObject(), input);
    copy["fulfillment"] = null;
    return copy;
  });
  const body: JsonObject = Object.assign(emptyJsonObject(), tx);
  body["id"] = null;
  body["inputs"] = unsigned;
  // The message is hashed once; each input continues from a copy of that state.
  const prefix = createHash("sha3-256").update(serializeCanonical(body, form), "utf8");
  return unsigned.map((input, index) => {
    const hash = prefix.copy();
    const suffix = fulfillsSuffix(input["fulfills"], index, form);
    if (suffix !== "") hash.update(suffix, "utf8");
    return new Uint8Array(hash.digest());
  });
}

/** `'{}{}'.format(txid, output)` in Python, string concatenation in the JS driver. */
function fulfillsSuffix(
  fulfills: JsonValue | undefined,
  index: number,
  form: CanonicalForm,
): string {
  if (fulfills === null || fulfills === undefined) return "";
  const where = `inputs[${index}].fulfills`;
  if (!isJsonObject(fulfills)) throw shapeError(`${where} is neither null nor an object`);
  const transactionId = fulfills["transaction_id"];
  const outputIndex = fulfills["output_index"];
  if (typeof transactionId !== "string") {
    throw shapeError(`${where}.transaction_id is not a string`);
  }
  if (typeof outputIndex !== "number" && !(outputIndex instanceof JsonNumber)) {
    throw shapeError(`${where}.output_index is not a number`);
  }
  return transactionId + serializeNumber(outputIndex, form);
}

function shapeError(what: string): LedgerError {
  return new LedgerError("SchemaValidationError", `Cannot compute the signing message: ${what}`);
}
