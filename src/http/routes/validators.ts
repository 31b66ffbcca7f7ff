import type { FastifyInstance } from "fastify";
import type { Store } from "../../store/store.js";
import { addResource } from "../resource.js";
import { sendJson } from "../reply.js";

/**
 * The node's validator set in the spec's shape (docs/compatibility.md #1), not BigchainDB 2.2.2's
 * `public_key`/`voting_power`. The key is uppercase hex, as in the spec's documented example
 * and as CometBFT writes keys.
 */
export function registerValidatorRoutes(app: FastifyInstance, deps: { readonly store: Store }): void {
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
}
