// POST /api/v1/transactions, the node's one hot request, answered without the framework. A POST
// costs the node's process ~1.6x in Fastify what it costs in bare node:http (`bench httpLayer`:
// 130 against 79 µs on one day, 0.28 of a raw Ed25519 verify of difference), and each posted
// transaction is otherwise worth about three verifies in all, so the lane is a tenth of what a
// transaction costs the node. Every other request, and these requests when they do not come over
// a socket (`app.inject`), go to Fastify.
//
// It answers what Fastify's route answers, byte for byte, by the same parts: the connection's
// turn (connectionGate.ts), the same checks and headers (httpApp.ts `checkRequest`), the same
// query parser, the body read under the same limit with Fastify's errors for it, the route's
// own function (`postTransaction`) and the one error map (errorHandler.ts `errorAnswer`).
// test/unit/http/postLane.test.ts holds both to the same answers.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { Broadcaster } from "../engine/broadcaster.js";
import { LedgerError } from "../errors/ledgerError.js";
import { gateOf } from "./connectionGate.js";
import { corsHeaders } from "./cors.js";
import { errorAnswer, type ErrorContext } from "./errorHandler.js";
import { parseQueryString, rejectRepeated } from "./parameters.js";
import { requestIdHeader, requestIdOf } from "./requestId.js";
import type { HttpObserver } from "./requestObserver.js";
import { lazyChildLogger } from "./requestLogger.js";
import { postTransaction } from "./routes/transactions.js";

/** The route the lane answers, as the metrics name it. */
export const laneRoute = "/api/v1/transactions";

export interface PostLaneDeps {
  readonly broadcaster: Broadcaster;
  readonly bodyBytesMax: number;
  readonly pipelinedRequestsMax: number;
  /** True once the app is closing: requests are refused 503 (httpApp.ts). */
  readonly closing: () => boolean;
  /** The app's logger; a request's lines carry its id, as Fastify's do. */
  readonly log: () => FastifyBaseLogger;
  readonly observer?: HttpObserver;
  readonly errors: ErrorContext;
}

/** Answers the request and returns true when it is the lane's; false leaves it to Fastify. */
export type PostLane = (request: IncomingMessage, response: ServerResponse) => boolean;

export function createPostLane(deps: PostLaneDeps): PostLane {
  return (request, response) => {
    if (request.method !== "POST") return false;
    const query = laneQuery(request.url ?? "");
    if (query === null) return false;
    const started = performance.now();
    const id = requestIdOf(request);
    const turn = gateOf(request.socket, deps.pipelinedRequestsMax).enter(response);
    const answer = (): void => {
      answerPost(deps, request, response, query, id, started).catch((error: unknown) => {
        // answerPost answers every error; one here is a bug in answering, and the client is not
        // left waiting for it.
        deps.log().error({ err: error, reqId: id }, "internal error in the POST lane");
        response.destroy();
      });
    };
    if (turn === undefined) answer();
    else turn.then(answer, (error: unknown) => answerError(deps, request, response, id, started, error, {}));
    return true;
  };
}

/** The query string of a URL the lane answers (Fastify's route with `ignoreTrailingSlash`), or null. */
function laneQuery(url: string): string | null {
  // The path ends at the first `?` or `#`, and the query is all after it, as find-my-way splits.
  let end = url.length;
  for (let i = 1; i < url.length; i++) {
    const code = url.charCodeAt(i);
    if (code === 63 || code === 35) {
      end = i;
      break;
    }
  }
  const path = end === url.length ? url : url.slice(0, end);
  if (path !== laneRoute && path !== `${laneRoute}/`) return null;
  return end === url.length ? "" : url.slice(end + 1);
}

async function answerPost(
  deps: PostLaneDeps,
  request: IncomingMessage,
  response: ServerResponse,
  queryText: string,
  id: string,
  started: number,
): Promise<void> {
  let bodyError = false;
  try {
    checkLaneRequest(deps, request);
    const query = parseQueryString(queryText);
    rejectRepeated(query);
    bodyError = true;
    const body = await readBody(request, deps.bodyBytesMax);
    bodyError = false;
    const json = Buffer.from(await postTransaction(deps.broadcaster, query, body), "utf8");
    if (response.destroyed) return;
    writeAnswer(response, 202, json, headersOf(request, id));
    deps.observer?.request("POST", laneRoute, 202, (performance.now() - started) / 1000);
  } catch (error) {
    // Fastify closes the connection after a body it could not read (the client may send more),
    // and once it is closing.
    const close = bodyError || deps.closing();
    answerError(deps, request, response, id, started, error, close ? { connection: "close" } : {});
  }
}

/** httpApp.ts `checkRequest`, for a request Fastify does not see. */
function checkLaneRequest(deps: PostLaneDeps, request: IncomingMessage): void {
  if (deps.closing()) throw new LedgerError("ShuttingDown", "The node is shutting down");
  if (request.httpVersionMajor === 1 && request.httpVersionMinor === 1 && request.headers.host === undefined) {
    throw new LedgerError("BadRequest", "An HTTP/1.1 request must carry a Host header");
  }
}

function answerError(
  deps: PostLaneDeps,
  request: IncomingMessage,
  response: ServerResponse,
  id: string,
  started: number,
  error: unknown,
  extra: OutgoingHttpHeaders,
): void {
  const log = lazyChildLogger(deps.log(), { reqId: id }, {});
  const answer = errorAnswer(error, request, log, deps.errors);
  if (answer === null || response.headersSent || response.destroyed) return;
  writeAnswer(response, answer.status, Buffer.from(answer.body, "utf8"), { ...headersOf(request, id), ...extra });
  deps.observer?.request("POST", laneRoute, answer.status, (performance.now() - started) / 1000);
}

/** The headers every answer carries (httpApp.ts `checkRequest`), in the order Fastify sends them. */
function headersOf(request: IncomingMessage, id: string): OutgoingHttpHeaders {
  return { [requestIdHeader]: id, ...corsHeaders(request.headers.origin) };
}

function writeAnswer(response: ServerResponse, status: number, body: Buffer, headers: OutgoingHttpHeaders): void {
  headers["content-type"] = "application/json";
  headers["content-length"] = body.length;
  response.writeHead(status, headers);
  response.end(body);
}

// Fastify's errors for a body it cannot take, so that errorAnswer maps them as it maps Fastify's.
class BodyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

/**
 * The body as Fastify's buffer parser reads it: refused at once when the declared length is over
 * the limit, when more than the limit arrives, or when what arrived is not what was declared.
 * No body is undefined.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const declaredText = request.headers["content-length"];
  const declared = Number(declaredText);
  if (request.headers["transfer-encoding"] === undefined && (declaredText === undefined || declaredText === "0")) {
    return Promise.resolve(undefined);
  }
  if (declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        stop();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (error?: Error & { statusCode?: number }): void => {
      stop();
      if (error !== undefined) {
        if (!(typeof error.statusCode === "number" && error.statusCode >= 400)) error.statusCode = 400;
        reject(error);
        return;
      }
      if (!Number.isNaN(declared) && received !== declared) {
        reject(new BodyError("FST_ERR_CTP_INVALID_CONTENT_LENGTH", "Request body size did not match Content-Length", 400));
        return;
      }
      resolve(Buffer.concat(chunks, received));
    };
    const stop = (): void => {
      request.removeListener("data", onData);
      request.removeListener("end", onEnd);
      request.removeListener("error", onEnd);
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onEnd);
  });
}

function tooLarge(): BodyError {
  return new BodyError("FST_ERR_CTP_BODY_TOO_LARGE", "Request body is too large", 413);
}
