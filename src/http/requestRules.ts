// The refusals every request meets before its route, whichever way it came in: through Fastify
// (httpApp.ts `checkRequest`) or the POST lane (postLane.ts).
import type { IncomingMessage } from "node:http";
import { LedgerError } from "../errors/ledgerError.js";

/** Throws the catalog's refusal of a request the node will not take, whatever its route. */
export function refuseRequest(request: IncomingMessage, closing: boolean): void {
  // While closing, requests that still arrive on open connections get 503 from the catalog.
  if (closing) throw new LedgerError("ShuttingDown", "The node is shutting down");
  // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without a Host header. Node's
  // own check answers with an empty body, so it is turned off and done here, in the catalog's shape.
  if (request.httpVersionMajor === 1 && request.httpVersionMinor === 1 && request.headers.host === undefined) {
    throw new LedgerError("BadRequest", "An HTTP/1.1 request must carry a Host header");
  }
}
