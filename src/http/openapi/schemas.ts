// The JSON Schemas (2020-12, as OpenAPI 3.1 takes them) of the answers the HTTP API gives:
// the components of openapiDocument.ts. They describe what the node writes, no more: a test
// validates real answers against them (test/unit/http/openapi.test.ts).

const hex64 = { type: "string", pattern: "^[0-9a-f]{64}$" } as const;
const decimal = { type: "string", pattern: "^(0|[1-9][0-9]*)$" } as const;
const object = { type: "object" } as const;

/** `$ref` to a component schema. */
export const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });

export const schemas = {
  Error: {
    description: "Every error (docs/errors.md): the message, and the HTTP status again.",
    type: "object",
    required: ["message", "status"],
    additionalProperties: false,
    properties: { message: { type: "string" }, status: { type: "integer", minimum: 400, maximum: 599 } },
  },
  Transaction: {
    description: "A v2.0 transaction as posted (BigchainDB's model), committed or echoed.",
    type: "object",
    required: ["id", "version", "operation", "inputs", "outputs", "asset", "metadata"],
    properties: {
      id: hex64,
      version: { const: "2.0" },
      operation: { enum: ["CREATE", "TRANSFER"] },
      inputs: { type: "array", items: object },
      outputs: { type: "array", items: object },
      asset: object,
      metadata: { type: ["object", "null"] },
    },
  },
  Output: {
    description: "An output of a key; `amount` and `asset_id` only with include=amount,asset_id.",
    type: "object",
    required: ["transaction_id", "output_index"],
    additionalProperties: false,
    properties: { transaction_id: hex64, output_index: { type: "integer", minimum: 0 }, amount: decimal, asset_id: hex64 },
  },
  Balance: {
    type: "object",
    required: ["asset_id", "amount"],
    additionalProperties: false,
    properties: { asset_id: hex64, amount: decimal },
  },
  AssetHit: {
    type: "object",
    required: ["data", "id"],
    additionalProperties: false,
    properties: { data: object, id: hex64 },
  },
  MetadataHit: {
    type: "object",
    required: ["id", "metadata"],
    additionalProperties: false,
    properties: { id: hex64, metadata: object },
  },
  Block: {
    type: "object",
    required: ["height", "transactions"],
    additionalProperties: false,
    properties: { height: { type: "integer", minimum: 1 }, transactions: { type: "array", items: { $ref: "#/components/schemas/Transaction" } } },
  },
  TransactionProof: {
    description: "docs/proofs.md: verify with ledgerd/verify or `ledgerd verify proof`.",
    type: "object",
    additionalProperties: false,
    required: ["version", "transaction_id", "block", "history", "height", "app_hash", "signed_header"],
    properties: {
      version: { const: 1 },
      transaction_id: hex64,
      block: {
        type: "object",
        additionalProperties: false,
        required: ["height", "index", "size", "path"],
        properties: { height: { type: "integer", minimum: 1 }, index: { type: "integer", minimum: 0 }, size: { type: "integer", minimum: 1 }, path: { type: "array", items: hex64 } },
      },
      history: {
        type: "object",
        additionalProperties: false,
        required: ["index", "size", "path"],
        properties: { index: { type: "integer", minimum: 0 }, size: { type: "integer", minimum: 1 }, path: { type: "array", items: hex64 } },
      },
      height: { type: "integer", minimum: 1 },
      app_hash: hex64,
      signed_header: { type: ["object", "null"], description: "CometBFT's `/commit` signed_header of height + 1; null under the solo engine." },
    },
  },
  ConsistencyProof: {
    description: "docs/proofs.md: verify with ledgerd/verify or `ledgerd verify consistency`.",
    type: "object",
    additionalProperties: false,
    required: ["version", "from", "to", "path"],
    properties: {
      version: { const: 1 },
      from: { $ref: "#/components/schemas/HistoryPoint" },
      to: { $ref: "#/components/schemas/HistoryPoint" },
      path: { type: "array", items: hex64 },
    },
  },
  ValidatorChanges: {
    description: "docs/proofs.md, Across validator changes: follow with ledgerd/verify (`trust`) or `ledgerd verify proof --genesis`.",
    type: "object",
    additionalProperties: false,
    required: ["version", "chain_id", "from_height", "to_height", "light_blocks", "next_from_height"],
    properties: {
      version: { const: 1 },
      chain_id: { type: "string" },
      from_height: { type: "integer", minimum: 1 },
      to_height: { type: "integer", minimum: 1 },
      light_blocks: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["signed_header", "validator_set"],
          properties: {
            signed_header: { type: "object", description: "CometBFT's `/commit` signed_header of this height." },
            validator_set: {
              type: "object",
              additionalProperties: false,
              required: ["validators"],
              properties: {
                validators: {
                  type: "array",
                  items: {
                    type: "object",
                    additionalProperties: false,
                    required: ["address", "pub_key", "voting_power"],
                    properties: {
                      address: { type: "string", pattern: "^[0-9A-F]{40}$" },
                      pub_key: {
                        type: "object",
                        additionalProperties: false,
                        required: ["type", "value"],
                        properties: { type: { const: "tendermint/PubKeyEd25519" }, value: { type: "string" } },
                      },
                      voting_power: { type: "string", pattern: "^[0-9]+$" },
                    },
                  },
                },
              },
            },
          },
        },
      },
      next_from_height: { type: ["integer", "null"], description: "More changes follow: ask again from this height." },
    },
  },
  HistoryPoint: {
    type: "object",
    additionalProperties: false,
    required: ["height", "size", "root", "app_hash", "signed_header"],
    properties: {
      height: { type: "integer", minimum: 1 },
      size: { type: "integer", minimum: 0 },
      root: hex64,
      app_hash: { type: "string", pattern: "^([0-9a-f]{64})?$" },
      signed_header: { type: ["object", "null"] },
    },
  },
  LatestBlock: {
    type: "object",
    required: ["app_hash", "height", "transactions"],
    additionalProperties: false,
    properties: { app_hash: { type: "string" }, height: { type: "integer", minimum: 1 }, transactions: { type: "array", items: hex64 } },
  },
  Election: {
    type: "object",
    additionalProperties: false,
    required: ["election_id", "type", "status", "height", "concluded_at", "public_key", "power", "node_id", "votes", "total_power"],
    properties: {
      election_id: { type: "string", pattern: "^[0-9a-f]{64}$" },
      type: { const: "upsert-validator" },
      status: { enum: ["ongoing", "concluded", "inconclusive"] },
      height: { type: "integer", minimum: 1 },
      concluded_at: { type: ["integer", "null"] },
      public_key: {
        type: "object",
        required: ["type", "value"],
        additionalProperties: false,
        properties: { type: { const: "ed25519-base64" }, value: { type: "string" } },
      },
      power: { type: "integer", minimum: 0 },
      node_id: { type: "string" },
      votes: { type: "string", pattern: "^[0-9]+$", description: "The committed votes, a decimal string." },
      total_power: { type: "string", pattern: "^[0-9]+$", description: "All the power the election handed out." },
    },
  },
  Evidence: {
    description: "Evidence of a validator's misbehavior that a block carried (ABCI FinalizeBlock's misbehavior).",
    type: "object",
    required: ["height", "index", "type", "validator", "infraction_height", "time", "total_voting_power"],
    additionalProperties: false,
    properties: {
      height: { type: "integer", minimum: 1, description: "The block that carried it." },
      index: { type: "integer", minimum: 0, description: "Its place in that block's evidence." },
      type: { enum: ["duplicate_vote", "light_client_attack", "unknown"] },
      validator: {
        type: "object",
        required: ["address", "power"],
        additionalProperties: false,
        properties: {
          address: { type: "string", pattern: "^[0-9A-F]*$", description: "First 20 bytes of SHA-256 of its key, hex." },
          power: { type: "integer", minimum: 0 },
        },
      },
      infraction_height: { type: "integer", minimum: 0 },
      time: { type: "string", description: "The infraction's time, RFC 3339 (UTC)." },
      total_voting_power: { type: "integer", minimum: 0 },
    },
  },
  Validator: {
    type: "object",
    required: ["pub_key", "power"],
    additionalProperties: false,
    properties: {
      pub_key: {
        type: "object",
        required: ["data", "type"],
        additionalProperties: false,
        properties: { data: { type: "string", pattern: "^[0-9A-F]{64}$" }, type: { const: "ed25519" } },
      },
      power: { type: "integer", minimum: 0 },
    },
  },
  ApiIndex: {
    description: "The v1 index: where each resource and the event stream are.",
    type: "object",
    required: ["assets", "blocks", "docs", "metadata", "outputs", "streams", "transactions", "validators"],
    additionalProperties: false,
    properties: Object.fromEntries(
      ["assets", "blocks", "docs", "metadata", "outputs", "streams", "transactions", "validators"].map((k) => [k, { type: "string" }]),
    ),
  },
  Root: {
    type: "object",
    required: ["api", "docs", "software", "version"],
    additionalProperties: false,
    properties: {
      api: { type: "object", required: ["v1"], properties: { v1: { $ref: "#/components/schemas/ApiIndex" } } },
      docs: { type: "string" },
      software: { type: "string" },
      version: { type: "string" },
    },
  },
  Live: { type: "object", required: ["ok"], additionalProperties: false, properties: { ok: { const: true } } },
  Ready: {
    type: "object",
    required: ["ready", "checks"],
    additionalProperties: false,
    properties: {
      ready: { type: "boolean" },
      reason: { type: "string" },
      checks: { type: "object", additionalProperties: { type: "string" } },
    },
  },
  LegacyTransaction: {
    description: "A transaction of interface variant A or B, in its own shape (docs/legacy-variants.md).",
    type: "object",
    required: ["id"],
    properties: { id: hex64 },
  },
  LegacyStatus: {
    type: "object",
    required: ["status"],
    additionalProperties: false,
    properties: { status: { enum: ["backlog", "valid", "invalid"] } },
  },
  OpenApi: { type: "object", required: ["openapi", "paths"], properties: { openapi: { type: "string" } } },
} as const;
