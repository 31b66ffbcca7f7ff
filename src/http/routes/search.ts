import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { SearchHit, Store } from "../../store/store.js";
import { firstValue, parseLimit, requiredValue, type Query } from "../parameters.js";
import { addResource, type RouteHandler } from "../resource.js";
import { quote, sendJson } from "../reply.js";

export interface SearchRouteOptions {
  readonly searchLimitMax: number;
}

/**
 * Text search over assets and metadata (docs/compatibility.md #12). The stored JSON text of each
 * hit goes into the answer as it is. Unknown parameters are ignored, as BigchainDB ignored them.
 */
export function registerSearchRoutes(
  app: FastifyInstance,
  deps: { readonly store: Store },
  options: SearchRouteOptions,
): void {
  const store = deps.store;
  // BigchainDB's shapes: `{"data": ..., "id": ...}` and `{"id": ..., "metadata": ...}`.
  const assets = searchHandler(
    options,
    (text, limit) => store.searchAssets(text, limit),
    (hit) => `{"data": ${hit.json}, "id": ${quote(hit.id)}}`,
  );
  const metadata = searchHandler(
    options,
    (text, limit) => store.searchMetadata(text, limit),
    (hit) => `{"id": ${quote(hit.id)}, "metadata": ${hit.json}}`,
  );
  addResource(app, "/api/v1/assets", { GET: assets });
  addResource(app, "/api/v1/metadata", { GET: metadata });
}

function searchHandler(
  options: SearchRouteOptions,
  search: (text: string, limit: number) => Promise<SearchHit[]>,
  write: (hit: SearchHit) => string,
): RouteHandler {
  return async (request, reply) => {
    const query = request.query as Query;
    // reqparse order (web/views/assets.py): search (required), then limit, then the empty check.
    const text = requiredValue(query, "search");
    const limit = parseLimit("limit", firstValue(query, "limit"), options.searchLimitMax);
    if (text === "") throw new LedgerError("BadParameter", "text_search cannot be empty");
    const hits = await search(text, limit);
    return sendJson(reply, 200, `[${hits.map(write).join(", ")}]`);
  };
}
