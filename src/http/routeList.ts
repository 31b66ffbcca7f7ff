// What an app serves, as the operations the API describes: each path with the methods given
// handlers (GET, POST), not the OPTIONS and 405 answers every path gets, nor the HEAD Fastify
// adds beside each GET. The OpenAPI test holds the document to it.
import type { FastifyInstance } from "fastify";

const lists = new WeakMap<FastifyInstance, string[]>();

/** Records every route `app` is given from now on; call before registering any. */
export function recordRoutes(app: FastifyInstance): void {
  const list: string[] = [];
  lists.set(app, list);
  app.addHook("onRoute", (route) => {
    // An operation is one method's route (resource.ts); the 405 answer takes many methods at once.
    const method = route.method;
    if (method === "GET" || method === "POST") list.push(`${method} ${route.url}`);
  });
}

/** `METHOD /path` of each operation, path parameters as Fastify writes them (`:id`). */
export function routesOf(app: FastifyInstance): readonly string[] {
  return lists.get(app) ?? [];
}
