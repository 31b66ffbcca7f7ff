// The http folder owns the HTTP API of ledger-node-http-api.md under `/api/v1`, on Fastify:
// one file of routes per resource (routes/), query parameters read as BigchainDB read them
// (parameters.ts), CORS (cors.ts), and the one map from errors to answers (errorHandler.ts).
// Routes read the Store and hand POSTed bodies to the Broadcaster; they never parse a body or
// re-serialize a stored transaction: answers are assembled from stored JSON text.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Broadcaster } from "../engine/broadcaster.js";
import { LedgerError } from "../errors/ledgerError.js";
import type { Store } from "../store/store.js";
import { installCors } from "./cors.js";
import { installErrorHandling, replyWithError, type ErrorContext } from "./errorHandler.js";
import { httpOptionsDefault, type HttpOptions } from "./options.js";
import { registerBlockRoutes } from "./routes/blocks.js";
import { registerDiscoveryRoutes } from "./routes/discovery.js";
import { registerLegacyRoutes, type LegacyGateway } from "./routes/legacy.js";
import { registerOutputRoutes } from "./routes/outputs.js";
import { registerSearchRoutes } from "./routes/search.js";
import { registerTransactionRoutes } from "./routes/transactions.js";
import { registerValidatorRoutes } from "./routes/validators.js";
import { registerHealthRoutes, storeReadiness, type ReadinessProbe } from "./routes/health.js";
import { installRequestIdEcho, requestIdOf } from "./requestId.js";
import { installRequestObserver, type HttpObserver } from "./requestObserver.js";

export interface HttpDeps {
  readonly broadcaster: Broadcaster;
  readonly store: Store;
  /** Errors answered 500 are logged here with their stack; 4xx at debug. */
  readonly logger?: Logger;
  /** The earlier interface variants at the root (routes/legacy.ts); not mounted without it. */
  readonly legacy?: LegacyGateway;
  /** What `/readyz` checks (routes/health.ts); default: the store answers. */
  readonly readiness?: ReadinessProbe;
  /** Told of every answered request (the node's metrics); none: nothing is measured. */
  readonly observer?: HttpObserver;
}

/**
 * The API as a Fastify instance, not listening (the caller listens on `options.host` and
 * `options.port`) and not yet `ready`, so more routes can still be added (the earlier
 * interface variants, DECISIONS #13). `options` is merged over `httpOptionsDefault`.
 */
export async function buildHttpApp(options: Partial<HttpOptions>, deps: HttpDeps): Promise<FastifyInstance> {
  const resolved: HttpOptions = { ...httpOptionsDefault, ...options };
  const context: ErrorContext = { bodyBytesMax: resolved.bodyBytesMax };
  // A pino Logger is a FastifyBaseLogger; typed as such, the app keeps the default type.
  const loggerInstance: FastifyBaseLogger | undefined = deps.logger;
  const app = Fastify({
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    // One line per request would cost more than the request at the reads' rate; errors are
    // logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: resolved.bodyBytesMax,
    requestTimeout: resolved.requestTimeoutMs,
    // Both `/x` and `/x/` answer, with no redirect (DECISIONS #4; Flask `strict_slashes=False`).
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before routing get the same JSON body as every other error.
    frameworkErrors: (error, request, reply) => replyWithError(error, request, reply, context),
    // Shutting down is answered by our own hook below, with the catalog's body.
    return503OnClosing: false,
    // A sane X-Request-Id is kept, anything else replaced (requestId.ts); never taken raw.
    requestIdHeader: false,
    genReqId: requestIdOf,
  });

  installErrorHandling(app, context);
  installBodyReading(app, resolved.bodyBytesMax);
  installShutdownRefusal(app);
  installCors(app);
  installRequestIdEcho(app);
  if (deps.observer !== undefined) installRequestObserver(app, deps.observer);

  registerDiscoveryRoutes(app, resolved);
  registerTransactionRoutes(app, deps);
  registerOutputRoutes(app, deps);
  registerSearchRoutes(app, deps, resolved);
  registerValidatorRoutes(app, deps);
  registerBlockRoutes(app, deps);
  registerLegacyRoutes(app, deps);
  registerHealthRoutes(app, deps.readiness ?? storeReadiness(deps.store));
  return app;
}

/**
 * Bodies are read as raw bytes whatever their Content-Type, up to `bodyBytesMax` (413 beyond):
 * BigchainDB read POST bodies with `get_json(force=True)` and dropped the Content-Type of GETs
 * (`strip_content_type_middleware.py`). The Broadcaster parses them, with its own limits on
 * depth and size, so a hostile body is a 4xx, never a 500 (DECISIONS #3).
 */
function installBodyReading(app: FastifyInstance, bodyBytesMax: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: bodyBytesMax }, (_request, body, done) => {
    done(null, body);
  });
  // Without the header, a Content-Type Fastify cannot even parse (415) cannot stop the request.
  app.addHook("onRequest", async (request) => {
    delete request.raw.headers["content-type"];
  });
}

/** While closing, requests that still arrive on open connections get 503 from the catalog. */
function installShutdownRefusal(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async () => {
    if (closing) throw new LedgerError("ShuttingDown", "The node is shutting down");
  });
}
