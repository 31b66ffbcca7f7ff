import type { FastifyInstance } from "fastify";
import type { Batches, ChainReads, EvidenceEntry } from "../../store/store.js";
import type { HttpOptions } from "../options.js";
import { longReadsOf } from "../longReads.js";
import { parsePaging, sendList } from "../paging.js";
import { badParameter, firstValue, parseBlockHeight, rejectUnknown, type Query } from "../parameters.js";
import { queryNames } from "../queryNames.js";
import { quote } from "../reply.js";
import { addResource } from "../resource.js";

type Limits = Pick<HttpOptions, "searchLimitMax" | "listMax">;

/**
 * Ours (docs/http-api.md "Evidence"): the evidence of validators' misbehavior CometBFT proved
 * and committed (a validator that signed two votes for one height and round, a light client
 * attack), in commit order, with `height` only what that block carried; a list like every other.
 */
export function registerEvidenceRoutes(app: FastifyInstance, deps: { readonly store: ChainReads }, limits: Limits): void {
  const list = { reads: longReadsOf(app), listMax: limits.listMax };
  addResource(app, "/api/v1/evidence", {
    GET: async (request, reply) => {
      const query = request.query as Query;
      const heightText = firstValue(query, "height");
      const ask = parsePaging(query, limits.searchLimitMax);
      rejectUnknown(query, queryNames["GET /api/v1/evidence"]);
      const height = heightText === undefined ? undefined : parseBlockHeight("height", heightText);
      if (height === null) throw badParameter("height", `A block height is at most ${Number.MAX_SAFE_INTEGER}`);
      return sendList(request, reply, list, ask, {
        scope: `evidence\u0000${height ?? ""}`,
        read: (page): Batches<EvidenceEntry> => deps.store.streamEvidence(height, page),
        write: evidenceJson,
      });
    },
  });
}

/** One evidence, its keys in this order; the address as CometBFT writes it (uppercase hex). */
function evidenceJson(e: EvidenceEntry): string {
  return (
    `{"height": ${e.height}, "index": ${e.index}, "type": ${quote(e.type)}, ` +
    `"validator": {"address": ${quote(e.validatorAddress)}, "power": ${e.power}}, ` +
    `"infraction_height": ${e.infractionHeight}, "time": ${quote(e.time)}, "total_voting_power": ${e.totalPower}}`
  );
}
