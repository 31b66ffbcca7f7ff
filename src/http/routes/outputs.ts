import type { FastifyInstance } from "fastify";
import type { Store } from "../../store/store.js";
import type { OutputRef } from "../../transaction/committed.js";
import { firstValue, parseBool, parsePublicKey, rejectUnknown, requiredValue, type Query } from "../parameters.js";
import { addResource } from "../resource.js";
import { longReadsOf } from "../longReads.js";
import { quote } from "../reply.js";
import { sendJsonList } from "../streamJson.js";

export function registerOutputRoutes(app: FastifyInstance, deps: { readonly store: Store }): void {
  addResource(app, "/api/v1/outputs", {
    // reqparse with strict=True (web/views/outputs.py): public_key, spent, then unknown names.
    GET: async (request, reply) => {
      const query = request.query as Query;
      const publicKey = parsePublicKey("public_key", requiredValue(query, "public_key"));
      const spentText = firstValue(query, "spent");
      const spent = spentText === undefined ? undefined : parseBool("spent", spentText);
      rejectUnknown(query, ["public_key", "spent"]);
      const refs = deps.store.streamOutputsByPublicKey(publicKey, spent);
      // Key order of BigchainDB's answer: transaction_id, output_index.
      return sendJsonList(reply, longReadsOf(app), refs, writeOutputRef);
    },
  });
}

function writeOutputRef(ref: OutputRef): string {
  return `{"transaction_id": ${quote(ref.transactionId)}, "output_index": ${ref.outputIndex}}`;
}
