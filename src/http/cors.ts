// CORS as BigchainDB had it: `CORS(app)` from flask-cors with its defaults
// (docs/bigchaindb-behaviour.md §1.1). Every answer, errors included, allows any origin: the
// request's `Origin` is echoed with `Vary: Origin`, or `*` is sent when there is none. Preflight
// OPTIONS is answered on every known path. Written here instead of a dependency.
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Set on every request by the app's checks (httpApp.ts), and by the error handler for errors
 * Fastify raises before any hook runs.
 */
export function setCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(corsHeaders(request.headers.origin));
}

/** The CORS headers of an answer to a request whose `Origin` is `origin`. */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return anyOrigin;
  // A page of another origin (the explorer pointed at this node) pages with `Link`, which a
  // browser hides from scripts unless it is exposed (docs/compatibility.md #32); a checkpoint's
  // height ties it to a signed header (docs/transparency.md).
  return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": "Link, Ledgerd-Checkpoint-Height" };
}

const anyOrigin: Readonly<Record<string, string>> = Object.freeze({ "access-control-allow-origin": "*" });

/**
 * The OPTIONS answer of a path whose methods are `allow`: 204 with `Allow`, plus, for a CORS
 * preflight (it names `Access-Control-Request-Method`), the methods and the requested headers,
 * all of which are allowed (flask-cors `allow_headers='*'`).
 */
export function answerOptions(allow: readonly string[]) {
  const allowText = allow.join(", ");
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header("allow", allowText);
    if (request.headers["access-control-request-method"] !== undefined) {
      reply.header("access-control-allow-methods", allowText);
      const requested = request.headers["access-control-request-headers"];
      if (requested !== undefined && requested !== "") {
        reply.header("access-control-allow-headers", requested);
      }
    }
    return reply.code(204).send();
  };
}
