// The query parameters each operation reads, by name: the one list its route checks a request
// against (where BigchainDB's route was strict, an unknown name is a 400) and the OpenAPI
// document is held to (test/unit/http/openapi.test.ts). An operation not listed reads none.
// Queries by field add their `data.*` / `metadata.*` filters to the assets and metadata lists.

export const queryNames = {
  "GET /api/v1/transactions": ["operation", "asset_id", "last_tx", "limit", "cursor"],
  "POST /api/v1/transactions": ["mode"],
  "GET /api/v1/outputs": ["public_key", "spent", "include", "limit", "cursor"],
  "GET /api/v1/balances": ["public_key", "asset_id", "limit", "cursor"],
  "GET /api/v1/assets": ["search", "limit", "cursor"],
  "GET /api/v1/metadata": ["search", "limit", "cursor"],
  "GET /api/v1/blocks": ["transaction_id", "limit", "cursor"],
  "GET /api/v1/evidence": ["height", "limit", "cursor"],
  "GET /api/v1/proofs/transactions/{transaction_id}": ["height"],
  "GET /api/v1/proofs/consistency": ["from", "to"],
  "GET /api/v1/proofs/validator-changes": ["from_height", "to_height"],
  "GET /api/v1/checkpoint": ["size"],
} as const satisfies Record<string, readonly string[]>;

export type Operation = keyof typeof queryNames;
