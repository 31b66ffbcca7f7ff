import type { FastifyInstance } from "fastify";
import type { HttpOptions } from "../options.js";
import { addResource } from "../resource.js";
import { sendJson } from "../reply.js";

/**
 * The v1 index with paths under `prefix`, keys sorted as Flask's `jsonify` sorts them; only
 * `validators` has no trailing slash (docs/bigchaindb-behaviour.md §1.3).
 */
export function apiV1Index(options: HttpOptions, prefix: string): Record<string, string> {
  return {
    assets: `${prefix}assets/`,
    blocks: `${prefix}blocks/`,
    docs: options.apiDocsUrl,
    metadata: `${prefix}metadata/`,
    outputs: `${prefix}outputs/`,
    streams: options.streamsUrl,
    transactions: `${prefix}transactions/`,
    validators: `${prefix}validators`,
  };
}

export function rootDocument(options: HttpOptions): Record<string, unknown> {
  return {
    api: { v1: apiV1Index(options, "/api/v1/") },
    docs: options.docsUrl,
    software: options.software,
    version: options.version,
  };
}

/** GET `/` and GET `/api/v1/`: fixed for the life of the app, so written once. */
export function registerDiscoveryRoutes(app: FastifyInstance, options: HttpOptions): void {
  const root = JSON.stringify(rootDocument(options));
  const v1 = JSON.stringify(apiV1Index(options, "/"));
  addResource(app, "/", { GET: async (_request, reply) => sendJson(reply, 200, root) });
  addResource(app, "/api/v1", { GET: async (_request, reply) => sendJson(reply, 200, v1) });
}
