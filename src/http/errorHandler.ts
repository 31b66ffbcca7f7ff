// The ONLY place where errors become HTTP answers (STYLE rule 6; Lodestar `api/rest/base.ts`).
// Routes throw LedgerError; this module answers `{"message": <text>, "status": <code>}`
// (docs/compatibility.md #2) with the catalog's status. Fastify's own request errors (body too
// large, a bad URL, a broken Content-Length) are translated to catalog codes first, so they get the
// same body. Anything else is our bug: 500 with a fixed message, logged with its stack
// (docs/compatibility.md #3).
import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LedgerError } from "../errors/ledgerError.js";
import { setCorsHeaders } from "./cors.js";
import { loggedUrlCharsMax } from "./limits.js";
import { echoRequestId } from "./requestId.js";
import { sendJson } from "./reply.js";
import { methodNotAllowedMessage, unknownPathMessage } from "../httpWire/messages.js";
import { knownPathAt } from "./resource.js";
import { JsonError } from "../json/jsonError.js";

const internalBody = JSON.stringify({ message: "Internal Server Error", status: 500 });

/** What the messages name. */
export interface ErrorContext {
  readonly bodyBytesMax: number;
}

/** Routes every error and every unmatched request of `app` through `replyWithError`. */
export function installErrorHandling(app: FastifyInstance, context: ErrorContext): void {
  app.setErrorHandler((error, request, reply) => replyWithError(error, request, reply, context));
  app.setNotFoundHandler((request, reply) => {
    // No route took it: a method the path does not allow (405, naming those it does), or a path
    // that is not the API's.
    const known = knownPathAt(app, request.url);
    if (known === null) return replyWithError(new LedgerError("NotFound", unknownPathMessage), request, reply, context);
    reply.header("allow", known.allow);
    replyWithError(new LedgerError("MethodNotAllowed", methodNotAllowedMessage), request, reply, context);
  });
}

/**
 * Answers an error. Also given to Fastify as `frameworkErrors`, which covers the errors raised
 * before routing (a malformed percent-escape in the URL, a path parameter over the length limit).
 */
export function replyWithError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  context: ErrorContext,
): void {
  const answer = errorAnswer(error, request.raw, request.log, context);
  if (answer === null) return;
  if (!reply.hasHeader("access-control-allow-origin")) setCorsHeaders(request, reply);
  echoRequestId(request, reply);
  sendJson(reply, answer.status, answer.body);
}

/** What an error is answered: its status and JSON body. */
export interface ErrorAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * The answer to an error, logged as its kind asks, or null when the client is gone and nothing
 * can be answered. Shared by Fastify's requests (`replyWithError`) and those the POST lane
 * answers itself (postLane.ts).
 */
export function errorAnswer(
  error: unknown,
  request: IncomingMessage,
  log: FastifyBaseLogger,
  context: ErrorContext,
): ErrorAnswer | null {
  const where = { method: request.method, url: loggedUrl(request.url ?? "") };
  if (isClientAbort(error, request)) {
    // Nothing can be answered, and it is not the node's fault: an error line means a bug.
    log.debug(where, "client closed the connection");
    return null;
  }
  const known = asLedgerError(error, context);
  if (known === null) {
    log.error({ err: error, ...where }, "internal error in the HTTP API");
    return { status: 500, body: internalBody };
  }
  const status = known.status;
  // BigchainDB logs every error answer (`make_error`); a client's mistake is not the node's, so
  // 4xx go to debug, the node's refusals (503, 504) are warnings, and a coded 500 is a bug.
  const message = known.httpMessage;
  const fields = { code: known.code, status, ...where, message };
  if (status === 500) log.error({ ...fields, err: known }, "internal error in the HTTP API");
  else if (status > 500) log.warn(fields, "HTTP API error");
  else log.debug(fields, "HTTP API error");
  return { status, body: JSON.stringify({ message, status }) };
}

/** A URL as logged: at most `loggedUrlCharsMax` characters, and how many more there were. */
export function loggedUrl(url: string): string {
  if (url.length <= loggedUrlCharsMax) return url;
  return `${url.slice(0, loggedUrlCharsMax)}... (${url.length - loggedUrlCharsMax} more characters)`;
}

/** The catalog error an error stands for, or null when it is a bug (answered 500). */
export function asLedgerError(error: unknown, context: ErrorContext): LedgerError | null {
  if (error instanceof LedgerError) return error;
  if (error instanceof JsonError) return new LedgerError(error.code, error.message, { cause: error });
  if (!isFastifyError(error)) return null;
  const status = error.statusCode ?? 500;
  // Fastify's request errors are the client's: each gets the catalog code of its status.
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE" || status === 413) {
    const message = `The request body is larger than the limit of ${context.bodyBytesMax} bytes`;
    return new LedgerError("BodyTooLarge", message, { cause: error });
  }
  // Every path parameter is an id or a height: one longer than the router takes names nothing.
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return new LedgerError("NotFound", "Not found", { cause: error });
  }
  if (status === 415) return new LedgerError("UnsupportedMediaType", error.message, { cause: error });
  if (status >= 400 && status < 500) return new LedgerError("BadRequest", error.message, { cause: error });
  return null;
}

/**
 * Codes of the errors a request meets when its client hangs up: Node's `aborted` (ECONNRESET)
 * while a body is read or a request waits for its turn, EPIPE and closed-stream errors while
 * an answer is written.
 */
const clientAbortCodes: ReadonlySet<unknown> = new Set([
  "ECONNRESET",
  "EPIPE",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_STREAM_DESTROYED",
]);

/** The client closed its connection before the request was over: one of those, socket gone. */
function isClientAbort(error: unknown, request: IncomingMessage): boolean {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  const socket = request.socket as IncomingMessage["socket"] | null;
  return clientAbortCodes.has(code) && (request.destroyed || socket === null || socket.destroyed);
}

function isFastifyError(error: unknown): error is FastifyError {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("FST_");
}
