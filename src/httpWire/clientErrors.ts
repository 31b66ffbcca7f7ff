// Errors Node's HTTP server raises before a request exists (its `clientError` event): llhttp's
// parse errors, headers over the limit, a request not received in time. They get the body of
// every other error, `{"message", "status"}` (docs/compatibility.md #2), written straight to the
// socket (there is no response object yet), and the connection is closed: after a framing error the
// bytes that follow cannot be trusted to start a request (request smuggling).
// Used by the HTTP API (http/httpApp.ts) and by the event stream's server (events/streamServer.ts),
// so it sits below both: neither server imports the other.
import { Buffer } from "node:buffer";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { LedgerError } from "../errors/ledgerError.js";
import { requestHeadBytesMax } from "./limits.js";

/** What Node gives `clientError` listeners: an Error, for parse errors with llhttp's code and reason. */
type ClientError = Error & { code?: string; reason?: string };

/** The socket as `clientError` gives it: a net.Socket, which Node ties to its current answer. */
type ClientSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/** What the message of a client error names. */
export interface ClientErrorContext {
  readonly requestTimeoutMs: number;
}

/** The catalog error a client error stands for. */
export function clientErrorOf(error: ClientError, context: ClientErrorContext): LedgerError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW": {
      const limit = `the limit of ${requestHeadBytesMax} bytes`;
      const message = `The request line and headers are larger than ${limit}`;
      return new LedgerError("HeadersTooLarge", message, { cause: error });
    }
    case "ERR_HTTP_REQUEST_TIMEOUT": {
      const message = `The request was not received in full within ${context.requestTimeoutMs} ms`;
      return new LedgerError("RequestTimeout", message, { cause: error });
    }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW": {
      const message = "The chunk extensions of the body are larger than the limit";
      return new LedgerError("BodyTooLarge", message, { cause: error });
    }
    // The HTTP/2 connection preface (`PRI * HTTP/2.0`): a client speaking HTTP/2 with prior knowledge.
    case "HPE_PAUSED_H2_UPGRADE":
      return new LedgerError("BadRequest", "HTTP/2 is not served here: use HTTP/1.1", { cause: error });
    default: {
      // llhttp's reason is precise and safe to echo: "Duplicate Content-Length", "Invalid
      // character in chunk size", "Invalid header token", "Invalid method encountered", ...
      const reason = error.reason ?? error.message;
      return new LedgerError("BadRequest", `Malformed HTTP/1.1 request: ${reason}`, { cause: error });
    }
  }
}

/**
 * A `clientError` listener: answers with the catalog's JSON when the socket can still take an
 * answer, then closes the connection. A socket the client already reset gets nothing.
 */
export function answerClientError(
  error: ClientError,
  socket: ClientSocket,
  context: ClientErrorContext,
  logger: Pick<Logger, "debug"> | undefined,
): void {
  if (error.code === "ECONNRESET" || socket.destroyed) {
    logger?.debug({ err: error }, "client closed the connection");
    socket.destroy();
    return;
  }
  const known = clientErrorOf(error, context);
  logger?.debug({ code: known.code, status: known.status, message: known.message }, "HTTP client error");
  // Bytes of an answer already under way on this connection cannot be followed by another
  // answer's head: then the connection is only closed (Node's own rule).
  const answering = socket._httpMessage?.headersSent === true;
  // Any origin may read it, as every other answer (cors.ts): a browser can send a URL too long.
  if (socket.writable && !answering) writeErrorAnswer(socket, known, ["Access-Control-Allow-Origin: *"]);
  closeAfterWrite(socket);
}

/** Writes a whole HTTP/1.1 error answer of the catalog's status and body, with `Connection: close`. */
export function writeErrorAnswer(socket: Duplex, error: LedgerError, headers: readonly string[] = []): void {
  const body = JSON.stringify({ message: error.httpMessage, status: error.status });
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...headers,
  ];
  socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/**
 * Ends the connection once the answer is flushed, then destroys it; `destroy()` at once could
 * drop the answer, and `end()` alone waits for a peer that may never close its side.
 */
export function closeAfterWrite(socket: Duplex): void {
  if (socket.destroyed) return;
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once("finish", () => socket.destroy());
}
