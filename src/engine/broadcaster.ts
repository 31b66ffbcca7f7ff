import type { PreparedTx } from "../transaction/types.js";

/** The POST modes of the spec: when the answer comes back (ledger-node-http-api.md). */
export type BroadcastMode = "async" | "sync" | "commit";

/**
 * What the HTTP layer calls to hand a transaction to the engine, whichever engine it is. It
 * resolves with the prepared transaction once the mode's point is reached, and throws a
 * LedgerError when the transaction is refused (400), the engine is unreachable (503), or a
 * commit does not happen in time (504).
 */
export interface Broadcaster {
  broadcast(bytes: Uint8Array, mode: BroadcastMode): Promise<PreparedTx>;
}
