import { emptyJsonObject, isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { quoteJsonKey, quoteJsonString } from "../json/quoteJsonString.js";
import type { CanonicalForm } from "../json/canonicalForm.js";
import { canonicalKeys, serializeCanonical } from "../json/serializeCanonical.js";

/** The two canonical texts a transaction is hashed over, both with `"id": null`. */
export interface TxPreimages {
  /**
   * What the id hashes (fulfillments in): `Transaction.validate_id`, docs/bigchaindb-behaviour.md
   * §2.1.
   */
  readonly id: string;
  /**
   * What every input's signature digest starts with (fulfillments null),
   * docs/bigchaindb-behaviour.md §2.2; null when `inputs` is not a list of objects (the schema
   * check rejects such a transaction).
   */
  readonly message: string | null;
}

// Top-level keys of a v2.0 transaction, in canonical order (the same by code point and UTF-16).
const standardKeys = ["asset", "id", "inputs", "metadata", "operation", "outputs", "version"] as const;

/**
 * Both preimages in one pass. For a transaction with exactly the standard keys (every valid
 * one), the members other than `inputs` are written once and shared by both texts; anything
 * else takes the general path.
 */
export function txPreimages(tx: JsonObject, form: CanonicalForm): TxPreimages {
  const inputs = tx["inputs"];
  const inputObjects = Array.isArray(inputs) && inputs.every(isJsonObject) ? (inputs as JsonObject[]) : null;
  if (!hasStandardKeys(tx) || inputObjects === null || !inputObjects.every((input) => "fulfillment" in input)) {
    return generalPreimages(tx, inputObjects, form);
  }
  const head = `{"asset":${serializeCanonical(tx["asset"]!, form)},"id":null,"inputs":`;
  const tail =
    `,"metadata":${serializeCanonical(tx["metadata"]!, form)}` +
    `,"operation":${serializeCanonical(tx["operation"]!, form)}` +
    `,"outputs":${serializeCanonical(tx["outputs"]!, form)}` +
    `,"version":${serializeCanonical(tx["version"]!, form)}}`;
  const written = writeInputs(inputObjects, form);
  return { id: head + written.signed + tail, message: head + written.unsigned + tail };
}

/**
 * The inputs list twice in one pass: as posted, and with every `fulfillment` null (each input
 * has the key; the caller checked).
 */
function writeInputs(inputs: readonly JsonObject[], form: CanonicalForm): { signed: string; unsigned: string } {
  let signed = "[";
  let unsigned = "[";
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    const keys = canonicalKeys(input, form);
    const open = i === 0 ? "{" : ",{";
    signed += open;
    unsigned += open;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const name = `${k === 0 ? "" : ","}${quoteJsonKey(key, form)}:`;
      if (key === "fulfillment") {
        signed += name + serializeCanonical(input[key]!, form);
        unsigned += `${name}null`;
      } else {
        const member = name + serializeCanonical(input[key]!, form);
        signed += member;
        unsigned += member;
      }
    }
    signed += "}";
    unsigned += "}";
  }
  return { signed: `${signed}]`, unsigned: `${unsigned}]` };
}

/** Any other shape, written whole: the id and signature checks then reject it. */
function generalPreimages(tx: JsonObject, inputs: readonly JsonObject[] | null, form: CanonicalForm): TxPreimages {
  const body = Object.assign(emptyJsonObject(), tx, { id: null });
  const id = serializeCanonical(body, form);
  if (inputs === null) return { id, message: null };
  const message = serializeCanonical(Object.assign(body, { inputs: inputs.map(withoutFulfillment) }), form);
  return { id, message };
}

function hasStandardKeys(tx: JsonObject): boolean {
  let count = 0;
  for (const key in tx) {
    if (!(standardKeys as readonly string[]).includes(key)) return false;
    count++;
  }
  return count === standardKeys.length;
}

function withoutFulfillment(input: JsonValue): JsonObject {
  return Object.assign(emptyJsonObject(), input as JsonObject, { fulfillment: null });
}
