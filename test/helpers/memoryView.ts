// A LedgerView over transactions applied in memory, for validateTx in unit tests without a
// store: the ledger's own block overlay over an empty committed state (the ledger tests use a
// real SQLite store).
import { BlockOverlay } from "../../src/ledger/kinds/v2/blockOverlay.js";

export class MemoryView extends BlockOverlay {
  constructor() {
    super({ ids: new Set(), outputs: new Map(), elections: null });
  }
}
