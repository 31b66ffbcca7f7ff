// The HTTP interfaces transactions are posted through (`Door` in txKind.ts). Each kind names
// its door; each route posts through its own. A new kind posted through an existing interface
// adds nothing here.

/** `POST /api/v1/transactions`: v2.0 transactions (BigchainDB 2.x). */
export const v1Door = "v1";

/** `POST /transactions`: the earlier interface variants A and B (routes/legacy.ts). */
export const legacyDoor = "legacy";

/**
 * No route: the transactions of a state-sync snapshot whose chain was checked against a trusted
 * app hash (docs/state-sync.md), read as any kind and prepared without checking their
 * signatures. Only LedgerApp.prepareRestored uses it; nothing a client sends reaches it.
 */
export const restoredDoor = "restored";
