// The http folder owns the HTTP API of docs/http-api.md under `/api/v1`, on Fastify:
// one file of routes per resource (routes/), query parameters read as BigchainDB read them
// (parameters.ts), CORS (cors.ts), and the one map from errors to answers (errorHandler.ts).
// Routes read the Store and hand POSTed bodies to the Broadcaster; they never parse a body or
// re-serialize a stored transaction: answers are assembled from stored JSON text.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerFactory,
} from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../clock/clock.js";
import type { Broadcaster } from "../engine/broadcaster.js";
import type { CheckpointNotary } from "../ledger/checkpoints.js";
import type { Witness } from "../ledger/witness.js";
import { LedgerError } from "../errors/ledgerError.js";
import type { ApiReads, ChainReads } from "../store/store.js";
import { answerClientError, type ClientErrorContext } from "../httpWire/clientErrors.js";
import { answerWithError } from "../httpWire/errorAnswer.js";
import { gateOf } from "./connectionGate.js";
import { setCorsHeaders } from "./cors.js";
import { installErrorHandling, replyWithError, type ErrorContext } from "./errorHandler.js";
import { installLongReads } from "./longReads.js";
import { requestHeadBytesMax } from "../httpWire/limits.js";
import { httpOptionsDefault, type HttpOptions } from "./options.js";
import { parseQueryString, rejectRepeated, type Query } from "./parameters.js";
import { createPostLane, type PostLane } from "./postLane.js";
import { refuseRequest } from "./requestRules.js";
import { routeEveryMethod } from "./resource.js";
import { recordRoutes } from "./routeList.js";
import { registerApiDocsRoutes } from "./routes/apiDocs.js";
import { explorerBundleDir, registerExplorerRoutes } from "./routes/explorer.js";
import { registerBlockRoutes } from "./routes/blocks.js";
import { registerDiscoveryRoutes } from "./routes/discovery.js";
import { registerEvidenceRoutes } from "./routes/evidence.js";
import { registerLegacyRoutes, type LegacyGateway } from "./routes/legacy.js";
import { registerOutputRoutes } from "./routes/outputs.js";
import { registerProofRoutes, type SignedHeaders } from "./routes/proofs.js";
import { registerSearchRoutes } from "./routes/search.js";
import { registerTransparencyRoutes } from "./routes/transparency.js";
import { registerTransactionRoutes } from "./routes/transactions.js";
import { registerValidatorRoutes } from "./routes/validators.js";
import { registerHealthRoutes, storeReadiness, type ReadinessProbe } from "./routes/health.js";
import { echoRequestId, requestIdOf } from "./requestId.js";
import { lazyChildLogger } from "./requestLogger.js";
import { installRequestObserver, type HttpObserver } from "./requestObserver.js";

export interface HttpDeps {
  readonly broadcaster: Broadcaster;
  readonly store: ApiReads & ChainReads;
  /** Errors answered 500 are logged here with their stack; 4xx at debug. */
  readonly logger?: Logger;
  /** The earlier interface variants at the root (routes/legacy.ts); not mounted without it. */
  readonly legacy?: LegacyGateway;
  /** What `/readyz` checks (routes/health.ts); default: the store answers. */
  readonly readiness?: ReadinessProbe;
  /** Told of every answered request (the node's metrics); none: nothing is measured. */
  readonly observer?: HttpObserver;
  /** CometBFT's signed headers for the proofs (routes/proofs.ts); none under the solo engine. */
  readonly signedHeaders?: SignedHeaders;
  /** The node key's signed checkpoints (routes/transparency.ts); none: the routes answer 404. */
  readonly checkpoints?: CheckpointNotary;
  /** ledgerd as a witness of other logs (routes/transparency.ts); none: it witnesses none. */
  readonly witness?: Witness;
  /**
   * Whether POST /api/v1/transactions is answered by the POST lane (postLane.ts; default true).
   * An app whose caller adds hooks that must see every request (the read server's redirect of
   * writes) turns it off: the lane's requests never reach Fastify's hooks.
   */
  readonly postLane?: boolean;
  /** The timers of the app's own (a streamed answer's stall); Node's timers by default. */
  readonly clock?: Clock;
}

/**
 * The API as a Fastify instance, not listening (the caller listens on `options.host` and
 * `options.port`) and not yet `ready`, so more routes can still be added (the earlier
 * interface variants, docs/compatibility.md #13). `options` is merged over `httpOptionsDefault`.
 */
export async function buildHttpApp(options: Partial<HttpOptions>, deps: HttpDeps): Promise<FastifyInstance> {
  const resolved: HttpOptions = { ...httpOptionsDefault, ...options };
  const context: ErrorContext & ClientErrorContext = {
    bodyBytesMax: resolved.bodyBytesMax,
    requestTimeoutMs: resolved.requestTimeoutMs,
  };
  // A pino Logger is a FastifyBaseLogger; typed as such, the app keeps the default type.
  const loggerInstance: FastifyBaseLogger | undefined = deps.logger;
  const state: AppState = { closing: false };
  const lane = createPostLane({
    broadcaster: deps.broadcaster,
    bodyBytesMax: resolved.bodyBytesMax,
    pipelinedRequestsMax: resolved.pipelinedRequestsMax,
    closing: () => state.closing,
    log: () => app.log,
    ...(deps.observer === undefined ? {} : { observer: deps.observer }),
    errors: context,
  });
  const app = Fastify({
    // The POST lane takes its requests before Fastify sees them (postLane.ts).
    ...(deps.postLane === false ? {} : { serverFactory: laneServerFactory(lane) }),
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    // One line per request would cost more than the request at the reads' rate; errors are
    // logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    // A request's logger is built on its first line (requestLogger.ts); few requests write one.
    childLoggerFactory: lazyChildLogger,
    bodyLimit: resolved.bodyBytesMax,
    requestTimeout: resolved.requestTimeoutMs,
    // Both `/x` and `/x/` answer, with no redirect (docs/compatibility.md #4; Flask
    // `strict_slashes=False`). The query parser is the one the POST lane uses too.
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseQueryString },
    // Errors raised before routing get the same JSON body as every other error: Fastify's
    // (a bad URL escape) here, Node's parse errors in `clientErrorHandler`.
    frameworkErrors: (error, request, reply) => replyWithError(error, request, reply, context),
    clientErrorHandler: (error, socket) => answerClientError(error, socket, context, deps.logger),
    http: {
      maxHeaderSize: requestHeadBytesMax,
      // Node would answer a missing Host itself, with an empty body; the hook below answers it.
      requireHostHeader: false,
    },
    // Shutting down is answered by our own hook below, with the catalog's body.
    return503OnClosing: false,
    // A sane X-Request-Id is kept, anything else replaced (requestId.ts); never taken raw.
    requestIdHeader: false,
    genReqId: requestIdOf,
  });

  routeEveryMethod(app);
  recordRoutes(app);
  installErrorHandling(app, context);
  installServerListeners(app, context, deps.logger);
  installBodyReading(app, resolved.bodyBytesMax);
  installRequestChecks(app, resolved.pipelinedRequestsMax, state);
  installLongReads(app, resolved.expensiveReadsMax, deps.clock);
  if (deps.observer !== undefined) installRequestObserver(app, deps.observer);

  registerDiscoveryRoutes(app, resolved);
  registerTransactionRoutes(app, deps, resolved);
  registerOutputRoutes(app, deps, resolved);
  registerSearchRoutes(app, deps, resolved);
  registerValidatorRoutes(app, deps);
  registerBlockRoutes(app, deps, resolved);
  registerEvidenceRoutes(app, deps, resolved);
  registerProofRoutes(app, deps);
  registerTransparencyRoutes(app, deps);
  registerLegacyRoutes(app, deps);
  registerHealthRoutes(app, deps.readiness ?? storeReadiness(deps.store));
  registerApiDocsRoutes(app, resolved);
  if (resolved.explorer) registerExplorerRoutes(app, explorerBundleDir());
  return app;
}

/** What the app's parts share: set when the app starts closing (a `preClose` hook). */
interface AppState {
  closing: boolean;
}

function laneServerFactory(lane: PostLane): FastifyServerFactory<Server> {
  return (handler, fastifyOptions) => laneServer(lane, handler, fastifyOptions);
}

/**
 * The HTTP server Fastify would make (its `getServerInstance` for HTTP/1.1: the `http` options,
 * its timeouts), with the POST lane in front of Fastify's handler.
 */
function laneServer(
  lane: PostLane,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  fastifyOptions: Record<string, unknown>,
): Server {
  const server = createServer((fastifyOptions["http"] ?? {}) as ServerOptions, (request, response) => {
    if (!lane(request, response)) handler(request, response);
  });
  server.keepAliveTimeout = fastifyOptions["keepAliveTimeout"] as number;
  server.requestTimeout = fastifyOptions["requestTimeout"] as number;
  // Node's own idle timeout of each socket (a socket-level API, not a timer of ours to inject).
  server.setTimeout(fastifyOptions["connectionTimeout"] as number);
  const perSocket = fastifyOptions["maxRequestsPerSocket"] as number | null;
  if (perSocket !== null && perSocket > 0) server.maxRequestsPerSocket = perSocket;
  return server;
}

/**
 * Bodies are read as raw bytes whatever their Content-Type, up to `bodyBytesMax` (413 beyond):
 * BigchainDB read POST bodies with `get_json(force=True)` and dropped the Content-Type of GETs
 * (`strip_content_type_middleware.py`). The Broadcaster parses them, with its own limits on
 * depth and size, so a hostile body is a 4xx, never a 500 (docs/compatibility.md #3). The
 * header itself is dropped by `installRequestChecks`.
 */
function installBodyReading(app: FastifyInstance, bodyBytesMax: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: bodyBytesMax }, (_request, body, done) => {
    done(null, body);
  });
}

/**
 * What every request goes through before its route, in one hook: Fastify runs each hook with a
 * closure of its own, and an async one with a promise and a microtask besides, per request.
 * The request first waits for its connection's turn (connectionGate.ts), so that one waiting
 * does nothing else meanwhile; then the checks run in order, and the first that throws is the
 * answer (errorHandler.ts).
 */
function installRequestChecks(app: FastifyInstance, pipelinedRequestsMax: number, state: AppState): void {
  app.addHook("preClose", async () => {
    state.closing = true;
  });
  const checked = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    try {
      checkRequest(request, reply, state);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
  app.addHook("onRequest", (request, reply, done) => {
    const turn = gateOf(request.raw.socket, pipelinedRequestsMax).enter(reply.raw);
    if (turn === undefined) checked(request, reply, done);
    else turn.then(() => checked(request, reply, done), done);
  });
}

function checkRequest(request: FastifyRequest, reply: FastifyReply, state: Readonly<AppState>): void {
  const raw = request.raw;
  echoRequestId(request, reply);
  // Without the header, a Content-Type Fastify cannot even parse (415) cannot stop the request.
  delete raw.headers["content-type"];
  setCorsHeaders(request, reply);
  refuseRequest(raw, state.closing);
  // A query parameter given twice is a 400 on every route, before a body is read (parameters.ts
  // `rejectRepeated`). An unknown path stays a 404 whatever its query.
  if (!request.is404) rejectRepeated(request.query as Query);
}

/**
 * Node answers an `Expect` other than `100-continue` with an empty 417 unless the server listens
 * for `checkExpectation`. Fastify binds `localhost` to each of its addresses with a server of its
 * own, giving the extra ones neither this listener nor `clientErrorHandler`, so both are added
 * to those too once they listen.
 */
function installServerListeners(
  app: FastifyInstance,
  context: ClientErrorContext,
  logger: Logger | undefined,
): void {
  const install = (server: Server): void => {
    if (server.listenerCount("checkExpectation") > 0) return;
    server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
      refuseExpectation(request, response);
    });
    if (server.listenerCount("clientError") === 0) {
      server.on("clientError", (error: Error, socket: Socket) => {
        answerClientError(error, socket, context, logger);
      });
    }
  };
  install(app.server);
  app.addHook("onListen", async () => {
    for (const server of extraBindings(app)) install(server);
  });
}

function refuseExpectation(request: IncomingMessage, response: ServerResponse): void {
  const expect = request.headers.expect ?? "";
  const message = `Expect: ${expect} is not supported; only 100-continue is`;
  answerWithError(response, new LedgerError("ExpectationFailed", message), { "access-control-allow-origin": "*" });
}

/** The servers Fastify added for the other addresses of `localhost` (none for other hosts). */
function extraBindings(app: FastifyInstance): Server[] {
  const symbols = Object.getOwnPropertySymbols(app);
  const key = symbols.find((symbol) => symbol.description === "fastify.serverBindings");
  const servers: unknown = key === undefined ? [] : (app as unknown as Record<symbol, unknown>)[key];
  return Array.isArray(servers) ? (servers as Server[]) : [];
}

