// The earlier interface variants A and B (docs/compatibility.md #13-#16, docs/legacy-variants.md
// §7), mounted at the root beside /api/v1, both on the same paths and told apart by the body's
// shape:
//   POST /transactions            both variants: 201 with the stored transaction plus `assignee`
//   GET  /transactions/{tx_id}     both variants: 200 only when committed (`valid`), else 404
//   GET  /transactions/{tx_id}/status   `valid`, `backlog` or `invalid`; 404 when unknown
// Trailing slashes are optional and the POST's Content-Type is ignored, as everywhere
// (docs/compatibility.md #4; Flask's `get_json(force=True)`). Refusals are thrown and answered by
// the one error handler: 400 `{"message":"Invalid transaction (<Code>): ...","status":400}`, and
// 404 `{"message":"Not found","status":404}` (Variant A's `make_error` text; B's HTML page is not
// kept, docs/legacy-variants.md §7.5).
import type { FastifyInstance } from "fastify";
import { LedgerError } from "../../errors/ledgerError.js";
import type { Store } from "../../store/store.js";
import { addResource } from "../resource.js";
import { quote, sendJson } from "../reply.js";

/**
 * The statuses ledgerd reports (docs/compatibility.md #16; `undecided` never: blocks are final).
 */
export type LegacyStatus = "valid" | "backlog" | "invalid";

export interface LegacyPosted {
  /** The transaction as stored (compact JSON, no `assignee`): for a CREATE, the node's remake. */
  readonly json: string;
  /** This node's public key, base58: the node that accepted it (docs/legacy-variants.md §7.3). */
  readonly assignee: string;
}

/**
 * The node's side of the legacy routes, in whichever process holds the ledger and the node key:
 * what a POST does (re-make a CREATE, check, hand to the engine) and a status (which needs the
 * pending pool). GET reads the store directly.
 */
export interface LegacyGateway {
  /**
   * A posted body of either variant: a CREATE is re-made and signed by this node
   * (docs/compatibility.md #15), then the transaction goes through the engine in `sync` semantics.
   * Throws a LedgerError (400) when the body or the transaction is refused.
   */
  post(bytes: Uint8Array): Promise<LegacyPosted>;
  /** `backlog` while pending, `valid` once committed, `invalid` when its block refused it; else null. */
  status(id: string): Promise<LegacyStatus | null>;
}

export interface LegacyRouteDeps {
  readonly store: Pick<Store, "getLegacyTransaction">;
  /** Without it (tests of other routes with stub services), the legacy routes are not mounted. */
  readonly legacy?: LegacyGateway;
}

/** Legacy ids are Keccak-256 hex: 64 lowercase hex digits; anything else names nothing. */
const legacyIdPattern = /^[0-9a-f]{64}$/;

export function registerLegacyRoutes(app: FastifyInstance, deps: LegacyRouteDeps): void {
  const gateway = deps.legacy;
  if (gateway === undefined) return;

  addResource(app, "/transactions", {
    POST: async (request, reply) => {
      const body = request.body;
      const bytes = body instanceof Uint8Array ? body : new Uint8Array(0);
      const posted = await gateway.post(bytes);
      return sendJson(reply, 201, withAssignee(posted));
    },
  });

  addResource(app, "/transactions/:tx_id", {
    // Only a committed transaction, in its native shape, without `assignee`
    // (docs/legacy-variants.md §7.4).
    GET: async (request, reply) => {
      const id = (request.params as { tx_id: string }).tx_id;
      const json = legacyIdPattern.test(id) ? await deps.store.getLegacyTransaction(id) : null;
      if (json === null) throw notFound();
      return sendJson(reply, 200, json);
    },
  });

  addResource(app, "/transactions/:tx_id/status", {
    GET: async (request, reply) => {
      const id = (request.params as { tx_id: string }).tx_id;
      const status = legacyIdPattern.test(id) ? await gateway.status(id) : null;
      if (status === null) throw notFound();
      return sendJson(reply, 200, `{"status":${quote(status)}}`);
    },
  });
}

function notFound(): LedgerError {
  return new LedgerError("NotFound", "Not found");
}

/**
 * The stored transaction with `assignee` added at the top, without parsing it again: keys sorted
 * as the originals' responses have them (`assignee` < `id`, docs/legacy-variants.md §6 examples).
 */
function withAssignee(posted: LegacyPosted): string {
  // The stored text is a JSON object with at least an `id`: `{"id":...}`.
  if (!posted.json.startsWith("{")) throw new Error("a stored legacy transaction is not a JSON object");
  return `{"assignee":${quote(posted.assignee)},${posted.json.slice(1)}`;
}
