import { LedgerError, reject, type Rejection } from "../errors/ledgerError.js";
import type { JsonLimits } from "./readJson.js";
import { readJson } from "./readJson.js";
import { prepareTx } from "./prepareTx.js";
import type { PreparedTx } from "./types.js";

/** `readJson` then `prepareTx`: bytes as they arrive (HTTP body or ABCI tx) to a prepared tx. */
export function prepareTxBytes(bytes: Uint8Array | string, limits?: Partial<JsonLimits>): PreparedTx | Rejection {
  let body;
  try {
    body = readJson(bytes, limits);
  } catch (error) {
    if (error instanceof LedgerError) return reject(error.code, error.message);
    throw error;
  }
  return prepareTx(body);
}

export function isRejection(value: PreparedTx | Rejection): value is Rejection {
  return "code" in value;
}
