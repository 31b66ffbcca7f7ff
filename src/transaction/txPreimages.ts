import { isJsonObject, type JsonObject, type JsonValue } from "./jsonValue.js";
import { serializeCanonical, type CanonicalForm } from "./serializeCanonical.js";

/** The two canonical texts a transaction is hashed over, both with `"id": null`. */
export interface TxPreimages {
  /** What the id hashes (fulfillments in): `Transaction.validate_id`, behaviour §2.1. */
  readonly id: string;
  /**
   * What every input's signature digest starts with (fulfillments null), behaviour §2.2; null
   * when `inputs` is not a list of objects (the schema check rejects such a transaction).
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
  const unsignedInputs = Array.isArray(inputs) && inputs.every(isJsonObject) ? inputs.map(withoutFulfillment) : null;
  if (!hasStandardKeys(tx)) {
    const body = Object.assign(Object.create(null) as JsonObject, tx, { id: null });
    const id = serializeCanonical(body, form);
    const message = unsignedInputs === null ? null : serializeCanonical(Object.assign(body, { inputs: unsignedInputs }), form);
    return { id, message };
  }
  const head = `{"asset":${serializeCanonical(tx["asset"]!, form)},"id":null,"inputs":`;
  const tail =
    `,"metadata":${serializeCanonical(tx["metadata"]!, form)}` +
    `,"operation":${serializeCanonical(tx["operation"]!, form)}` +
    `,"outputs":${serializeCanonical(tx["outputs"]!, form)}` +
    `,"version":${serializeCanonical(tx["version"]!, form)}}`;
  return {
    id: head + serializeCanonical(inputs!, form) + tail,
    message: unsignedInputs === null ? null : head + serializeCanonical(unsignedInputs, form) + tail,
  };
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
  return Object.assign(Object.create(null) as JsonObject, input as JsonObject, { fulfillment: null });
}
