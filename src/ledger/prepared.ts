// The prepare step: the stateless half of validation, on worker threads, cached by exact bytes.
// Bytes as they arrive (HTTP body or ABCI tx) are read as JSON once, then handed to the kind
// that takes them (kinds/registry.ts). Results are plain data, so they cross a worker-thread
// boundary by structured clone.
import { LedgerError, reject, type Rejection } from "../errors/ledgerError.js";
import { JsonError } from "../json/jsonError.js";
import type { JsonValue } from "../json/jsonValue.js";
import { readJson, type JsonReadInfo } from "../json/readJson.js";
import { prepareBody } from "./kinds/registry.js";
import { restoredDoor } from "./doors.js";
import type { Door, PreparedBase } from "./txKind.js";

/**
 * Bytes to a prepared transaction. Without `door` the body's shape decides (ABCI: a block
 * carries every kind); with it, the body is read only as the kinds posted through that door, so
 * a legacy body posted to `/api/v1` gets exactly the v2.0 answer it always got, and a v2.0 body
 * posted to the legacy routes is an unknown legacy shape.
 */
export function prepareBytes(bytes: Uint8Array | string, door?: Door): PreparedBase | Rejection {
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
  // A restore's transactions: any kind, their signatures taken as checked (doors.ts).
  if (door === restoredDoor) return prepareBody(body, posted, undefined, true);
  return prepareBody(body, posted, door);
}
