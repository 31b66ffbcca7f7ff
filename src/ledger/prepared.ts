// What the prepare step (the stateless half of validation, on worker threads, cached by exact
// bytes) gives for the two kinds of transaction one ledger holds: v2.0 transactions and the
// earlier interface variants A and B (docs/compatibility.md #13-#14). Both results are plain data,
// so they cross a worker-thread boundary by structured clone.
import { LedgerError, reject, type Rejection } from "../errors/ledgerError.js";
import { prepareLegacy } from "../legacy/prepareLegacy.js";
import type { PreparedLegacyTx } from "../legacy/types.js";
import { isJsonObject, type JsonValue } from "../json/jsonValue.js";
import { prepareTx } from "../transaction/prepareTx.js";
import { readJson, type JsonReadInfo } from "../json/readJson.js";
import type { PreparedTx } from "../transaction/types.js";
import { JsonError } from "../json/jsonError.js";

export type Prepared = PreparedTx | PreparedLegacyTx;

/** `current`: v2.0 (`/api/v1`); `legacy`: variant A or B (the routes at the root). */
export type TxKind = "current" | "legacy";

/** The prepared result a kind gives. */
export type PreparedOf<K extends TxKind> = K extends "legacy" ? PreparedLegacyTx : PreparedTx;

export function isLegacy(tx: Prepared): tx is PreparedLegacyTx {
  return "variant" in tx;
}

export function kindOf(tx: Prepared): TxKind {
  return isLegacy(tx) ? "legacy" : "current";
}

/**
 * A body of the legacy shape: a top-level `transaction` object, which both variants have and a
 * v2.0 transaction cannot (its schema allows no such member). Which variant, or whether the
 * shape is mixed, is `classifyLegacy`'s business.
 */
export function hasLegacyShape(body: JsonValue): boolean {
  return isJsonObject(body) && isJsonObject(body["transaction"]);
}

/**
 * Bytes as they arrive (HTTP body or ABCI tx) to a prepared transaction. Without `kind` the
 * body's shape decides (ABCI: a block carries both kinds); with it, the body is read as that
 * kind only, so a legacy body posted to `/api/v1` gets exactly the v2.0 answer it always got,
 * and a v2.0 body posted to the legacy routes is an unknown legacy shape.
 */
export function prepareBytes(bytes: Uint8Array | string, kind?: TxKind): Prepared | Rejection {
  let body: JsonValue;
  const info: JsonReadInfo = { text: "", compact: false };
  try {
    body = readJson(bytes, undefined, info);
  } catch (error) {
    if (error instanceof LedgerError || error instanceof JsonError) return reject(error.code, error.message);
    throw error;
  }
  // A compact text is the transaction as posted, exactly; anything else is written compactly.
  const posted = info.compact ? info.text : undefined;
  const legacy = kind === undefined ? hasLegacyShape(body) : kind === "legacy";
  return legacy ? prepareLegacy(body, posted) : prepareTx(body, posted);
}
