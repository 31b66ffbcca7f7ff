// POST /api/v1/transactions, the node's one hot request, answered without the framework. A POST
// costs the node's process ~1.6x in Fastify what it costs in bare node:http (`bench httpLayer`:
// 130 against 79 µs on one day, 0.28 of a raw Ed25519 verify of difference), and each posted
// transaction is otherwise worth about three verifies in all, so the lane is a tenth of what a
// transaction costs the node. Every other request, and these requests when they do not come over
// a socket (`app.inject`), go to Fastify.
//
// It answers what Fastify's route answers, byte for byte, by the same parts: the connection's
// turn (connectionGate.ts), the same refusals (requestRules.ts) and headers, the same
// query parser, the body read under the same limit with Fastify's errors for it, the route's
// own function (`postTransaction`) and the one error map (errorHandler.ts `errorAnswer`).
// test/unit/http/postLane.test.ts holds both to the same answers.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { Broadcaster } from "../engine/broadcaster.js";
import { gateOf } from "./connectionGate.js";
import { corsHeaders } from "./cors.js";
import { errorAnswer, type ErrorContext } from "./errorHandler.js";
import { parseQueryString, rejectRepeated, type Query } from "./parameters.js";
import { requestIdHeader, requestIdOf } from "./requestId.js";
import type { HttpObserver } from "./requestObserver.js";
import { lazyChildLogger } from "./requestLogger.js";
import { refuseRequest } from "./requestRules.js";
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
    const post: LanePost = { deps, request, response, queryText: query, id: requestIdOf(request), started: performance.now() };
    const turn = gateOf(request.socket, deps.pipelinedRequestsMax).enter(response);
    if (turn === undefined) startPost(post);
    else turn.then(() => startPost(post), (error: unknown) => answerError(post, error, false));
    return true;
  };
}

/** One request in the lane. */
interface LanePost {
  readonly deps: PostLaneDeps;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly queryText: string;
  readonly id: string;
  readonly started: number;
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

/** The checks, then the body; its read calls back rather than awaits (a promise less per POST). */
function startPost(post: LanePost): void {
  let query: Query;
  try {
    refuseRequest(post.request, post.deps.closing());
    query = parseQueryString(post.queryText);
    rejectRepeated(query);
  } catch (error) {
    answerError(post, error, false);
    return;
  }
  readBody(post.request, post.deps.bodyBytesMax, (error, body) => {
    // Fastify closes the connection after a body it could not read: the client may send more.
    if (error !== null) answerError(post, error, true);
    else
      finishPost(post, query, body).catch((failure: unknown) => {
        // finishPost answers every error; one here is a bug in answering, and the client is not
        // left waiting for it.
        post.deps.log().error({ err: failure, reqId: post.id }, "internal error in the POST lane");
        post.response.destroy();
      });
  });
}

async function finishPost(post: LanePost, query: Query, body: Uint8Array | undefined): Promise<void> {
  let json: Buffer;
  try {
    json = Buffer.from(await postTransaction(post.deps.broadcaster, query, body), "utf8");
  } catch (error) {
    answerError(post, error, false);
    return;
  }
  if (post.response.destroyed) return;
  writeAnswer(post, 202, json, false);
}

function answerError(post: LanePost, error: unknown, bodyError: boolean): void {
  const log = lazyChildLogger(post.deps.log(), { reqId: post.id }, {});
  const answer = errorAnswer(error, post.request, log, post.deps.errors);
  if (answer === null || post.response.headersSent || post.response.destroyed) return;
  // Fastify closes the connection after a body it could not read, and once it is closing.
  writeAnswer(post, answer.status, Buffer.from(answer.body, "utf8"), bodyError || post.deps.closing());
}

/** The answer, with the headers every answer carries (httpApp.ts `checkRequest`); observed. */
function writeAnswer(post: LanePost, status: number, body: Buffer, close: boolean): void {
  const headers: OutgoingHttpHeaders = { [requestIdHeader]: post.id };
  const cors = corsHeaders(post.request.headers.origin);
  for (const name in cors) headers[name] = cors[name];
  if (close) headers["connection"] = "close";
  headers["content-type"] = "application/json";
  headers["content-length"] = body.length;
  post.response.writeHead(status, headers);
  post.response.end(body);
  post.deps.observer?.request("POST", laneRoute, status, (performance.now() - post.started) / 1000);
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
function readBody(request: IncomingMessage, limit: number, done: (error: Error | null, body: Uint8Array | undefined) => void): void {
  const declaredText = request.headers["content-length"];
  if (request.headers["transfer-encoding"] === undefined && (declaredText === undefined || declaredText === "0")) {
    done(null, undefined);
    return;
  }
  const declared = Number(declaredText);
  if (declared > limit) {
    done(tooLarge(), undefined);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = (): void => {
    request.removeListener("data", onData);
    request.removeListener("end", onEnd);
    request.removeListener("error", onEnd);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      stop();
      done(tooLarge(), undefined);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (error?: Error & { statusCode?: number }): void => {
    stop();
    if (error !== undefined) {
      if (!(typeof error.statusCode === "number" && error.statusCode >= 400)) error.statusCode = 400;
      done(error, undefined);
    } else if (!Number.isNaN(declared) && received !== declared) {
      done(new BodyError("FST_ERR_CTP_INVALID_CONTENT_LENGTH", "Request body size did not match Content-Length", 400), undefined);
    } else {
      done(null, chunks.length === 1 ? Buffer.from(chunks[0]!) : Buffer.concat(chunks, received));
    }
  };
  request.on("data", onData);
  request.on("end", onEnd);
  request.on("error", onEnd);
}

function tooLarge(): BodyError {
  return new BodyError("FST_ERR_CTP_BODY_TOO_LARGE", "Request body is too large", 413);
}
