import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { ApiReads, ChainReads } from "../../store/store.js";
import type { HttpOptions } from "../options.js";
import { parsePaging, refuseCursor } from "../paging.js";
import { parseHeight, rejectUnknown, requiredValue, type Query } from "../parameters.js";
import { queryNames } from "../queryNames.js";
import { addResource } from "../resource.js";
import { longReadsOf } from "../longReads.js";
import { sendJson } from "../reply.js";
import { sendJsonList } from "../streamJson.js";

export function registerBlockRoutes(
  app: FastifyInstance,
  deps: { readonly store: ApiReads & ChainReads },
  limits: Pick<HttpOptions, "searchLimitMax">,
): void {
  addResource(app, "/api/v1/blocks/latest", {
    // Planetmint's addition (docs/compatibility.md #26): the last committed block as Planetmint
    // stores it, `{"app_hash": ..., "height": h, "transactions": [ids]}`; 404 before the first.
    // A static path: it wins over `:block_height`, where `latest` was a 400.
    GET: async (request, reply) => {
      rejectUnknown(request.query as Query, []);
      const { height } = await deps.store.getChainState();
      const block = height === 0 ? null : await deps.store.getBlock(height);
      if (block === null) throw new LedgerError("NotFound", "Not found");
      const ids = block.txIds.map((id) => JSON.stringify(id)).join(", ");
      const body = `{"app_hash": ${JSON.stringify(block.appHash)}, "height": ${block.height}, "transactions": [${ids}]}`;
      return sendJson(reply, 200, body);
    },
  });

  addResource(app, "/api/v1/blocks/:block_height", {
    // `{"height": h, "transactions": [...]}`, no app_hash (docs/bigchaindb-behaviour.md §1.7).
    GET: async (request, reply) => {
      const text = (request.params as { block_height: string }).block_height;
      const height = parseHeight("block_height", text);
      const txs = height === null ? null : await deps.store.streamBlockTransactions(height);
      if (txs === null) throw new LedgerError("NotFound", "Not found");
      const frame = { open: `{"height": ${height}, "transactions": [`, close: "]}" };
      return sendJsonList(reply, longReadsOf(app), txs, (json) => json, frame);
    },
  });

  addResource(app, "/api/v1/blocks", {
    // reqparse with strict=True (web/views/blocks.py). `transaction_id` is any string, even
    // empty, with no validation: an id that names nothing is 200 `[]`.
    GET: async (request, reply) => {
      const query = request.query as Query;
      const id = requiredValue(query, "transaction_id");
      // Paging's parameters, for one list shape everywhere: a list of at most one height has
      // one page, so no cursor was ever given for it.
      refuseCursor(parsePaging(query, limits.searchLimitMax));
      rejectUnknown(query, queryNames["GET /api/v1/blocks"]);
      const height = /^[0-9a-f]{64}$/.test(id) ? await deps.store.getBlockHeightOfTransaction(id) : null;
      return sendJson(reply, 200, height === null ? "[]" : `[${height}]`);
    },
  });
}
