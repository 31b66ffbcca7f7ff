// The engine folder owns how blocks are decided: solo/ (one embedded validator, the node's own
// key) and cometbft/ (ledgerd as an ABCI application behind CometBFT). Both drive the ledger
// through the same ABCI calls, and both take transactions through this Broadcaster.
import type { Door, PreparedBase } from "../ledger/txKind.js";

/** The POST modes of the spec: when the answer comes back (docs/http-api.md). */
export type BroadcastMode = "async" | "sync" | "commit";

/**
 * What the HTTP layer calls to hand a transaction to the engine, whichever engine it is and
 * whatever its kind. `door` is the interface it was posted through (ledger/doors.ts): the bytes
 * are read only as the kinds of that door, so a body of another door's shape gets the
 * rejection it always got; without one, as any kind (by its shape). It resolves with the
 * prepared transaction once the mode's point is reached, and throws a LedgerError when the
 * transaction is refused (400), the engine is unreachable (503), or a commit does not happen in
 * time (504).
 */
export interface Broadcaster {
  broadcast(bytes: Uint8Array, mode: BroadcastMode, door?: Door): Promise<PreparedBase>;
}
