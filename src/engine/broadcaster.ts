import type { PreparedLegacyTx } from "../legacy/types.js";
import type { PreparedTx } from "../transaction/types.js";

/** The POST modes of the spec: when the answer comes back (docs/http-api.md). */
export type BroadcastMode = "async" | "sync" | "commit";

/**
 * What the HTTP layer calls to hand a transaction to the engine, whichever engine it is. It
 * resolves with the prepared transaction once the mode's point is reached, and throws a
 * LedgerError when the transaction is refused (400), the engine is unreachable (503), or a
 * commit does not happen in time (504). Only v2.0 transactions: a body of the legacy shape gets
 * the v2.0 rejection it always got.
 */
export interface Broadcaster {
  broadcast(bytes: Uint8Array, mode: BroadcastMode): Promise<PreparedTx>;
}

/**
 * The same engine path for a legacy transaction (variants A and B, docs/compatibility.md #13-#16),
 * in `sync` semantics: it resolves once the engine has the ledger's verdict (accepted: status
 * `backlog` until its block commits) and throws a LedgerError as `broadcast` does. Only legacy
 * transactions: a v2.0 body is an unknown legacy shape.
 */
export interface LegacyBroadcaster {
  broadcastLegacy(bytes: Uint8Array): Promise<PreparedLegacyTx>;
}
