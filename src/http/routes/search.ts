import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { Batches, FieldHit, SearchHit, ApiReads } from "../../store/store.js";
import type { HttpOptions } from "../options.js";
import { parsePaging, sendList, type ListDeps } from "../paging.js";
import { requiredValue, type Query } from "../parameters.js";
import { longReadsOf } from "../longReads.js";
import { addResource, type RouteHandler } from "../resource.js";
import { quote } from "../reply.js";
import { answerFieldQuery, isFieldQuery, type FieldRoute } from "./fieldQuery.js";

export type SearchRouteOptions = Pick<HttpOptions, "searchLimitMax" | "listMax">;

/**
 * Text search over assets and metadata (docs/compatibility.md #12). The stored JSON text of each
 * hit goes into the answer as it is. Unknown parameters are ignored, as BigchainDB ignored them.
 */
export function registerSearchRoutes(
  app: FastifyInstance,
  deps: { readonly store: ApiReads },
  options: SearchRouteOptions,
): void {
  const store = deps.store;
  const reads = longReadsOf(app);
  // BigchainDB's shapes: `{"data": ..., "id": ...}` and `{"id": ..., "metadata": ...}`.
  const assetHit = (hit: SearchHit) => `{"data": ${hit.json}, "id": ${quote(hit.id)}}`;
  const metadataHit = (hit: SearchHit) => `{"id": ${quote(hit.id)}, "metadata": ${hit.json}}`;
  const list = { reads, listMax: options.listMax };
  const assets = searchHandler(options, list, "assets", store, assetHit);
  const metadata = searchHandler(options, list, "metadata", store, metadataHit);
  // Queries by field (docs/compatibility.md #25) share the paths: a `data.*` or `metadata.*`
  // parameter sends the request there; without one, the search answers exactly as before.
  const fields = { store, ...list, limitMax: options.searchLimitMax };
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
  list: ListDeps,
  kind: "assets" | "metadata",
  store: ApiReads,
  write: (hit: SearchHit) => string,
): RouteHandler {
  return async (request, reply) => {
    const query = request.query as Query;
    // reqparse order (web/views/assets.py): search (required), then limit, then the empty check.
    const text = requiredValue(query, "search");
    const ask = parsePaging(query, options.searchLimitMax);
    if (text === "") throw new LedgerError("BadParameter", "text_search cannot be empty");
    return sendList<FieldHit>(request, reply, list, ask, {
      scope: `search\u0000${kind}\u0000${text}`,
      read: (page) => {
        // A page, or the rest of a walk after a cursor (then all that is ranked is at most
        // database.search_ranked_matches_max, so "no limit" is a bounded read).
        if (page.limit !== undefined || page.after !== undefined) {
          return store.streamSearchPage(kind, text, { ...page, limit: page.limit ?? Number.MAX_SAFE_INTEGER });
        }
        // Unpaged: every ranked match, best first.
        const all = kind === "assets" ? store.streamSearchAssets(text, undefined) : store.streamSearchMetadata(text, undefined);
        return withoutPositions(all);
      },
      write,
    });
  };
}

/** The hits of an unpaged search, which no cursor continues. */
async function* withoutPositions(batches: Batches<SearchHit>): Batches<FieldHit> {
  for await (const batch of batches) yield batch.map((hit) => ({ ...hit, position: "" }));
}
