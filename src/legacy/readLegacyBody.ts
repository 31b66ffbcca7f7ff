import { LedgerError, reject, type Rejection } from "../errors/ledgerError.js";
import type { JsonObject, JsonValue } from "../json/jsonValue.js";
import { readJson } from "../json/readJson.js";
import { classifyLegacy } from "./classifyLegacy.js";
import type { LegacyOperation, LegacyTx, LegacyVariant } from "./types.js";
import { JsonError } from "../json/jsonError.js";

export interface LegacyBody {
  readonly tx: LegacyTx;
  readonly variant: LegacyVariant;
  readonly operation: LegacyOperation;
}

/**
 * A POSTed body as the legacy routes first read it (docs/legacy-variants.md §7.5): JSON whatever
 * the Content-Type said (`get_json(force=True)`), then its variant and whole shape
 * (`classifyLegacy`), so that a CREATE can be re-made by the node and anything else refused
 * with a 400 rather than the originals' 500. Nothing is verified here: a CREATE's signature is
 * never checked (it is thrown away, docs/legacy-variants.md §1.6), and a TRANSFER is checked by the
 * ledger.
 */
export function readLegacyBody(bytes: Uint8Array | string): LegacyBody | Rejection {
  let body: JsonValue;
  try {
    body = readJson(bytes);
  } catch (error) {
    if (error instanceof LedgerError || error instanceof JsonError) return reject(error.code, error.message);
    throw error;
  }
  const variant = classifyLegacy(body);
  if (typeof variant !== "string") return variant;
  const tx = body as LegacyTx;
  const operation = (tx["transaction"] as JsonObject)["operation"] as LegacyOperation;
  return { tx, variant, operation };
}
