import { LedgerError, reject, type Rejection } from "../errors/ledgerError.js";
import type { JsonLimits, JsonReadInfo } from "../json/readJson.js";
import { readJson } from "../json/readJson.js";
import { prepareTx } from "./prepareTx.js";
import type { PreparedTx } from "./types.js";
import { JsonError } from "../json/jsonError.js";

/** `readJson` then `prepareTx`: bytes as they arrive (HTTP body or ABCI tx) to a prepared tx. */
export function prepareTxBytes(bytes: Uint8Array | string, limits?: Partial<JsonLimits>): PreparedTx | Rejection {
  let body;
  const info: JsonReadInfo = { text: "", compact: false };
  try {
    body = readJson(bytes, limits, info);
  } catch (error) {
    if (error instanceof LedgerError || error instanceof JsonError) return reject(error.code, error.message);
    throw error;
  }
  // A compact text is the transaction as posted, exactly; anything else is written compactly.
  return prepareTx(body, info.compact ? info.text : undefined);
}

export function isRejection(value: PreparedTx | Rejection): value is Rejection {
  return "code" in value;
}
