// The catalog's JSON answer (`{"message", "status"}`, docs/compatibility.md #2) written to a
// response by a server of ours that answers outside Fastify's error map: the metrics server, the
// event stream's plain HTTP, an `Expect` the API refuses before routing.
import { Buffer } from "node:buffer";
import type { ServerResponse } from "node:http";
import type { LedgerError } from "../errors/ledgerError.js";

/** Answers `error` with its status and JSON body, and any `headers` besides. */
export function answerWithError(response: ServerResponse, error: LedgerError, headers: Readonly<Record<string, string>> = {}): void {
  const body = JSON.stringify({ message: error.httpMessage, status: error.status });
  response.writeHead(error.status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  response.end(body);
}
