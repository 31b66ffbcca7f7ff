import type { FastifyInstance } from "fastify";
import type { OutputEntry, ApiReads } from "../../store/store.js";
import type { HttpOptions } from "../options.js";
import { longReadsOf } from "../longReads.js";
import { parsePaging, sendList } from "../paging.js";
import {
  badParameter,
  firstValue,
  parseBool,
  parsePublicKey,
  parseTxId,
  rejectUnknown,
  requiredValue,
  type Query,
} from "../parameters.js";
import { quote } from "../reply.js";
import { queryNames } from "../queryNames.js";
import { addResource } from "../resource.js";

type Limits = Pick<HttpOptions, "searchLimitMax" | "listMax">;

export function registerOutputRoutes(app: FastifyInstance, deps: { readonly store: ApiReads }, limits: Limits): void {
  const list = { reads: longReadsOf(app), listMax: limits.listMax };
  addResource(app, "/api/v1/outputs", {
    // reqparse with strict=True (web/views/outputs.py): public_key, spent, then unknown names;
    // then ours (docs/http-api.md): include, and paging's limit and cursor.
    GET: async (request, reply) => {
      const query = request.query as Query;
      const publicKey = parsePublicKey("public_key", requiredValue(query, "public_key"));
      const spentText = firstValue(query, "spent");
      const spent = spentText === undefined ? undefined : parseBool("spent", spentText);
      const write = outputWriter(parseInclude(firstValue(query, "include")));
      const ask = parsePaging(query, limits.searchLimitMax);
      rejectUnknown(query, queryNames["GET /api/v1/outputs"]);
      return sendList(request, reply, list, ask, {
        scope: `outputs\u0000${publicKey}\u0000${String(spent)}`,
        read: (page) => deps.store.streamOutputEntries(publicKey, spent, page),
        write,
      });
    },
  });

  addResource(app, "/api/v1/balances", {
    // Ours (docs/http-api.md "Balances"): what the key alone may spend, per asset, a long read
    // paged by asset like every list (a key may be given any number of assets by anyone).
    GET: async (request, reply) => {
      const query = request.query as Query;
      const publicKey = parsePublicKey("public_key", requiredValue(query, "public_key"));
      const assetText = firstValue(query, "asset_id");
      rejectUnknown(query, queryNames["GET /api/v1/balances"]);
      const assetId = assetText === undefined ? undefined : parseTxId("asset_id", assetText);
      const ask = parsePaging(query, limits.searchLimitMax);
      return sendList(request, reply, list, ask, {
        scope: `balances\u0000${publicKey}\u0000${assetId ?? ""}`,
        read: (page) => deps.store.streamBalances(publicKey, assetId, page),
        write: (b) => `{"asset_id": ${quote(b.assetId)}, "amount": ${quote(b.amount)}}`,
      });
    },
  });
}

/** What `include` adds to each output: a comma-separated set of `amount` and `asset_id`. */
export type OutputExtra = "amount" | "asset_id";
const outputExtras: readonly OutputExtra[] = ["amount", "asset_id"];

function parseInclude(text: string | undefined): ReadonlySet<OutputExtra> {
  if (text === undefined) return new Set();
  const names = text.split(",");
  for (const name of names) {
    if (!(outputExtras as readonly string[]).includes(name)) {
      throw badParameter("include", `'${name}' is not one of ${outputExtras.join(", ")} (comma-separated)`);
    }
  }
  if (new Set(names).size !== names.length) throw badParameter("include", "names a field twice");
  return new Set(names as OutputExtra[]);
}

/**
 * Key order of BigchainDB's answer: transaction_id, output_index; then, when included, amount
 * (a decimal string, as in transactions) and asset_id, always in that order.
 */
function outputWriter(include: ReadonlySet<OutputExtra>): (entry: OutputEntry) => string {
  const amount = include.has("amount");
  const assetId = include.has("asset_id");
  return (entry) => {
    let text = `{"transaction_id": ${quote(entry.transactionId)}, "output_index": ${entry.outputIndex}`;
    if (amount) text += `, "amount": ${quote(entry.amount)}`;
    if (assetId) text += `, "asset_id": ${quote(entry.assetId)}`;
    return `${text}}`;
  };
}
