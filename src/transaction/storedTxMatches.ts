import { isJsonObject } from "../json/jsonValue.js";
import { readJsonOrNull } from "../json/readJson.js";
import { matchTxId } from "./matchTxId.js";

/**
 * Whether the text a store gives back for `id` is a transaction that hashes to `id` in one of
 * its canonical forms (STYLE rule 2: a read checks back what the write made true). A database
 * checks the structure of its pages, never the bytes of its rows: a flipped bit inside a stored
 * transaction would otherwise be served as committed. One parse and one sha3-256.
 */
export function storedTxMatches(id: string, json: string): boolean {
  const tx = readJsonOrNull(json);
  return isJsonObject(tx) && tx["id"] === id && matchTxId(tx) !== null;
}
