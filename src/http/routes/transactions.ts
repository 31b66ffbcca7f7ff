import type { FastifyInstance } from "fastify";
import type { Broadcaster } from "../../engine/broadcaster.js";
import { LedgerError } from "../../errors/ledgerError.js";
import { v1Door } from "../../ledger/doors.js";
import type { ApiReads } from "../../store/store.js";
import type { Operation } from "../../transaction/committed.js";
import { storedTxId } from "../../transaction/storedTxId.js";
import { storeDamaged } from "../../store/storeDamaged.js";
import type { HttpOptions } from "../options.js";
import { parsePaging, sendList } from "../paging.js";
import {
  badParameter,
  firstValue,
  parseBool,
  parseMode,
  parseOperation,
  parseTxId,
  requiredValue,
  type Query,
} from "../parameters.js";
import { addResource } from "../resource.js";
import { longReadsOf } from "../longReads.js";
import { sendJson } from "../reply.js";
import { sendJsonList } from "../streamJson.js";

export interface TransactionRouteDeps {
  readonly broadcaster: Broadcaster;
  readonly store: ApiReads;
}

/** Ids are stored as 64 lowercase hex digits; anything else names no transaction. */
const storedIdPattern = /^[0-9a-f]{64}$/;

export function registerTransactionRoutes(
  app: FastifyInstance,
  deps: TransactionRouteDeps,
  limits: Pick<HttpOptions, "searchLimitMax" | "listMax">,
): void {
  const list = { reads: longReadsOf(app), listMax: limits.listMax };
  addResource(app, "/api/v1/transactions/:transaction_id", {
    // Only a committed transaction is found (spec, States rule 1); any other id is 404.
    GET: async (request, reply) => {
      const id = (request.params as { transaction_id: string }).transaction_id;
      const json = storedIdPattern.test(id) ? await deps.store.getTransaction(id) : null;
      if (json === null) throw new LedgerError("NotFound", "Not found");
      // Never bytes other than the committed ones (docs/errors.md StoreDamaged).
      if (storedTxId(json) !== id) throw storeDamaged(null, `the stored transaction ${id} does not hash to its id`);
      return sendJson(reply, 200, json);
    },
  });

  addResource(app, "/api/v1/transactions", {
    // reqparse order (web/views/transactions.py): operation, asset_id, last_tx; others ignored.
    GET: async (request, reply) => {
      const query = request.query as Query;
      const operationText = firstValue(query, "operation");
      const operation = operationText === undefined ? undefined : parseOperation("operation", operationText);
      const assetId = parseTxId("asset_id", requiredValue(query, "asset_id"));
      const lastText = firstValue(query, "last_tx");
      const lastOnly = lastText === undefined ? false : parseBool("last_tx", lastText);
      const ask = parsePaging(query, limits.searchLimitMax);
      if (lastOnly) {
        // One transaction at most: nothing to page.
        if (ask.limit !== undefined || ask.cursor !== undefined) {
          throw badParameter("last_tx", "answers one transaction: give no limit or cursor with it");
        }
        const options: { operation?: Operation; lastOnly: boolean } = { lastOnly };
        if (operation !== undefined) options.operation = operation;
        return sendJsonList(reply, list.reads, deps.store.streamTransactionsByAsset(assetId, options), (json) => json);
      }
      // The asset's history in commit order, which is a spend order (docs/http-api.md).
      return sendList(request, reply, list, ask, {
        scope: `history\u0000${assetId}\u0000${operation ?? ""}`,
        read: (page) => deps.store.streamAssetHistory(assetId, operation, page),
        write: (entry) => entry.json,
      });
    },
    // Requests over a socket are answered by the POST lane (postLane.ts), with the same function.
    POST: async (request, reply) => {
      const body = request.body;
      const json = await postTransaction(deps.broadcaster, request.query as Query, body instanceof Uint8Array ? body : undefined);
      return sendJson(reply, 202, json);
    },
  });
}

/**
 * `POST /api/v1/transactions`: the mode is read first, then the Broadcaster parses and validates
 * the body as it came, whatever its Content-Type says (BigchainDB `get_json(force=True)`), and
 * throws a coded LedgerError on any refusal. Resolves with the answer's JSON: the posted
 * transaction (spec: 202 in every mode). No body is an empty one.
 */
export async function postTransaction(broadcaster: Broadcaster, query: Query, body: Uint8Array | undefined): Promise<string> {
  const mode = parseMode("mode", firstValue(query, "mode"));
  const tx = await broadcaster.broadcast(body ?? new Uint8Array(0), mode, v1Door);
  return tx.json;
}
