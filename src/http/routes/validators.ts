import type { FastifyInstance } from "fastify";
import { Buffer } from "node:buffer";
import { LedgerError } from "../../errors/ledgerError.js";
import type { ElectionRecord, ChainReads, ValidatorSet } from "../../store/store.js";
import { electionStatus } from "../../transaction/elections.js";
import { rejectUnknown, type Query } from "../parameters.js";
import { addResource } from "../resource.js";
import { sendJson } from "../reply.js";

/**
 * The node's validator set in the spec's shape (docs/compatibility.md #1), not BigchainDB 2.2.2's
 * `public_key`/`voting_power`. The key is uppercase hex, as in the spec's documented example
 * and as CometBFT writes keys.
 */
export function registerValidatorRoutes(app: FastifyInstance, deps: { readonly store: ChainReads }): void {
  addResource(app, "/api/v1/validators", {
    GET: async (_request, reply) => {
      const validators = await deps.store.getValidators();
      const items = validators.map((v) => {
        const key = v.publicKey.toUpperCase();
        return `{"pub_key": {"data": ${JSON.stringify(key)}, "type": "ed25519"}, "power": ${v.power}}`;
      });
      return sendJson(reply, 200, `[${items.join(", ")}]`);
    },
  });

  addResource(app, "/api/v1/elections/:election_id", {
    // ledgerd's own (docs/http-api.md "Elections"): what `ledgerd election show` prints, as
    // BigchainDB's CLI printed it from its database (`Election.show_election`).
    GET: async (request, reply) => {
      rejectUnknown(request.query as Query, []);
      const id = (request.params as { election_id: string }).election_id;
      const record = /^[0-9a-f]{64}$/.test(id) ? (await deps.store.getElections([id])).get(id) : undefined;
      if (record === undefined) throw new LedgerError("NotFound", "Not found");
      // A recorded election implies a chain, so a validator set.
      const nextSet = (await deps.store.getValidatorSet())!;
      return sendJson(reply, 200, JSON.stringify(electionJson(record, nextSet)));
    },
  });
}

function electionJson(record: ElectionRecord, nextSet: ValidatorSet): object {
  return {
    election_id: record.id,
    type: "upsert-validator",
    status: electionStatus(record, nextSet.height),
    height: record.height,
    concluded_at: record.concludedAt,
    public_key: { type: "ed25519-base64", value: Buffer.from(record.validatorKey, "hex").toString("base64") },
    power: record.power,
    node_id: record.nodeId,
    votes: record.votes.toString(),
    total_power: record.total.toString(),
  };
}
