import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { Batches, SearchHit, Store } from "../../store/store.js";
import { firstValue, parseLimit, requiredValue, type Query } from "../parameters.js";
import { longReadsOf, type LongReads } from "../longReads.js";
import { addResource, type RouteHandler } from "../resource.js";
import { quote } from "../reply.js";
import { sendJsonList } from "../streamJson.js";
import { answerFieldQuery, isFieldQuery, type FieldRoute } from "./fieldQuery.js";

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
  const assetHit = (hit: SearchHit) => `{"data": ${hit.json}, "id": ${quote(hit.id)}}`;
  const metadataHit = (hit: SearchHit) => `{"id": ${quote(hit.id)}, "metadata": ${hit.json}}`;
  const assets = searchHandler(
    options,
    reads,
    (text, limit) => store.streamSearchAssets(text, limit),
    assetHit,
  );
  const metadata = searchHandler(
    options,
    reads,
    (text, limit) => store.streamSearchMetadata(text, limit),
    metadataHit,
  );
  // Queries by field (docs/compatibility.md #25) share the paths: a `data.*` or `metadata.*`
  // parameter sends the request there; without one, the search answers exactly as before.
  const fields = { store, reads, limitMax: options.searchLimitMax };
  const byField = (handler: RouteHandler, route: FieldRoute): RouteHandler => async (request, reply) =>
    isFieldQuery(request.query as Query, route)
      ? answerFieldQuery(request, reply, fields, route)
      : handler(request, reply);
  addResource(app, "/api/v1/assets", {
    GET: byField(assets, { kind: "assets", prefix: "data.", write: assetHit }),
  });
  addResource(app, "/api/v1/metadata", {
    GET: byField(metadata, { kind: "metadata", prefix: "metadata.", write: metadataHit }),
  });
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
