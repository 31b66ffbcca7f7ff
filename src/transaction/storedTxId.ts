import { isJsonObject } from "../json/jsonValue.js";
import { readJsonOrNull } from "../json/readJson.js";
import { matchTxId } from "./matchTxId.js";

/**
 * The id a stored transaction's text hashes to in one of its canonical forms (its `id` field,
 * checked), or null. What verify-chain recomputes, and what the API checks before it serves a
 * transaction by its id (STYLE rule 2): a database checks the structure of its pages, never the
 * bytes of its rows, and a flipped bit inside a stored transaction would otherwise be served as
 * committed. One parse and one sha3-256.
 */
export function storedTxId(json: string): string | null {
  const body = readJsonOrNull(json);
  if (!isJsonObject(body) || matchTxId(body) === null) return null;
  return body["id"] as string;
}
