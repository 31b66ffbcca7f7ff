import { METHODS } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import FindMyWay from "find-my-way";
import { answerOptions } from "./cors.js";

export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Each app's paths, with the methods each allows (`knownPathAt`). */
const pathsOf = new WeakMap<FastifyInstance, FindMyWay.Instance<FindMyWay.HTTPVersion.V1>>();

/**
 * Registers one path with its handlers, and answers every other method on it: OPTIONS with the
 * allowed methods (CORS preflight), anything else with a JSON 405 and `Allow`
 * (docs/compatibility.md #2) through the not-found handler, which asks `knownPathAt`: Fastify alone
 * would answer 404 for a known path with the wrong method. (A route of each other method on each
 * path did the same with ~35 router entries a path: a third of the app's build, measured.)
 */
export function addResource(
  app: FastifyInstance,
  url: string,
  handlers: Partial<Record<"GET" | "POST", RouteHandler>>,
): void {
  const methods = Object.keys(handlers) as ("GET" | "POST")[];
  // Fastify answers HEAD for every GET route by itself (exposeHeadRoutes), as Flask did.
  const allow = [...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"];
  for (const method of methods) app.route({ method, url, handler: handlers[method]! });
  app.route({ method: "OPTIONS", url, handler: answerOptions(allow) });
  let paths = pathsOf.get(app);
  if (paths === undefined) {
    // Matched as Fastify's router matches (httpApp.ts `routerOptions`).
    paths = FindMyWay({ ignoreTrailingSlash: true });
    pathsOf.set(app, paths);
  }
  paths.on("GET", url, () => undefined, { allow: allow.join(", "), pattern: url } satisfies KnownPath);
}

/** A resource's path as registered, and the methods it allows (its `Allow`). */
export interface KnownPath {
  readonly pattern: string;
  readonly allow: string;
}

/**
 * The resource at `url` (a request's path and query) in `app`, or null when no resource has
 * that path: a request no route took is a 405 on a known path, a 404 on another.
 */
export function knownPathAt(app: FastifyInstance, url: string): KnownPath | null {
  const found = pathsOf.get(app)?.find("GET", url);
  return found == null ? null : (found.store as KnownPath);
}

/**
 * Makes every method Node's parser takes one `addResource` can answer 405 to: Fastify knows nine,
 * so a known path met with PROPFIND, SEARCH, LOCK... answered 404, and QUERY, whose body Fastify
 * reads only with a Content-Type (RFC 10008; the header is dropped, httpApp.ts), 400 "must
 * provide a Content-Type header". No route takes a body with any of them, so none is read.
 * CONNECT never reaches a route: Node hands it to the server's `connect` event, and without a
 * listener closes the connection. Call before any route, and before the 404 handler is set.
 */
export function routeEveryMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (method === "CONNECT") continue;
    const known = app.supportedMethods.includes(method as HTTPMethods);
    if (known && method !== "QUERY") continue;
    app.addHttpMethod(method, { hasBody: false, overrideExisting: known });
  }
}
