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
  const target = request.url ?? "";
  // RFC 9112 §3.2: a request target has no fragment. The router would read a `#` as the start of
  // the query (`/api/v1/assets#search=...`), so the target is refused rather than guessed at.
  if (target.includes("#")) {
    throw new LedgerError("BadRequest", "A request target holds no '#' (a fragment is not sent): encode it as %23");
  }
  // The query parser keeps a value whose escapes are not UTF-8 as its raw text, so `%FF` would
  // ask what `%25FF` asks, and a `Link` could not give it back: such a query is refused.
  if (!escapesAreUtf8(target)) {
    throw new LedgerError("BadRequest", "The query's %-escapes must encode UTF-8 text");
  }
}

/**
 * True when the %-escapes of the URL's query decode as UTF-8 (RFC 3986 §2.5). A `%` without two
 * hex digits after it stays a literal `%`, as the query parser and WHATWG URL read it.
 */
function escapesAreUtf8(url: string): boolean {
  const at = url.indexOf("?");
  if (at < 0 || !url.includes("%", at)) return true;
  try {
    decodeURIComponent(url.slice(at + 1).replace(/%(?![0-9A-Fa-f]{2})/g, "%25"));
    return true;
  } catch {
    return false;
  }
}
