import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { Batches, SearchHit, Store } from "../../store/store.js";
import { firstValue, parseLimit, requiredValue, type Query } from "../parameters.js";
import { longReadsOf, type LongReads } from "../longReads.js";
import { addResource, type RouteHandler } from "../resource.js";
import { quote } from "../reply.js";
import { sendJsonList } from "../streamJson.js";

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
  const reads = longReadsOf(app);
  // BigchainDB's shapes: `{"data": ..., "id": ...}` and `{"id": ..., "metadata": ...}`.
  const assets = searchHandler(
    options,
    reads,
    (text, limit) => store.streamSearchAssets(text, limit),
    (hit) => `{"data": ${hit.json}, "id": ${quote(hit.id)}}`,
  );
  const metadata = searchHandler(
    options,
    reads,
    (text, limit) => store.streamSearchMetadata(text, limit),
    (hit) => `{"id": ${quote(hit.id)}, "metadata": ${hit.json}}`,
  );
  addResource(app, "/api/v1/assets", { GET: assets });
  addResource(app, "/api/v1/metadata", { GET: metadata });
}

function searchHandler(
  options: SearchRouteOptions,
  reads: LongReads,
  search: (text: string, limit: number | undefined) => Batches<SearchHit>,
  write: (hit: SearchHit) => string,
): RouteHandler {
  return async (request, reply) => {
    const query = request.query as Query;
    // reqparse order (web/views/assets.py): search (required), then limit, then the empty check.
    const text = requiredValue(query, "search");
    const limit = parseLimit("limit", firstValue(query, "limit"), options.searchLimitMax);
    if (text === "") throw new LedgerError("BadParameter", "text_search cannot be empty");
    return sendJsonList(reply, reads, search(text, limit), write);
  };
}
