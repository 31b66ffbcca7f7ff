import { METHODS } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from "fastify";
import { LedgerError } from "../errors/ledgerError.js";
import { answerOptions } from "./cors.js";
import { methodNotAllowedMessage } from "../httpWire/messages.js";

export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * Registers one path with its handlers, and answers every other method on it: OPTIONS with the
 * allowed methods (CORS preflight), anything else with a JSON 405 and `Allow`
 * (docs/compatibility.md #2). Fastify alone would answer 404 for a known path with the wrong
 * method.
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
  const others = app.supportedMethods.filter((method) => !allow.includes(method)) as HTTPMethods[];
  const allowText = allow.join(", ");
  app.route({
    method: others,
    url,
    handler: async (_request, reply) => {
      reply.header("allow", allowText);
      throw new LedgerError("MethodNotAllowed", methodNotAllowedMessage);
    },
  });
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
