// JSON schemas of transaction v2.0, written from the rules of BigchainDB's
// `common/schema/transaction_v2.0.yaml`, `transaction_create_v2.0.yaml` and
// `transaction_transfer_v2.0.yaml` (docs/bigchaindb-behaviour.md §2.3). Differences, on purpose:
// patterns are anchored and base58 uses the real alphabet (BigchainDB's are unanchored and its
// base58 class admits `O`, `I`, `l`, `^`); a CREATE may have one input per issuer
// (docs/compatibility.md #10); lists have maximum sizes (limits.ts).
import { txLimits } from "./limits.js";

const sha3Hex = { type: "string", pattern: "^[0-9a-f]{64}$" } as const;
/**
 * BigchainDB's `{43,44}` (docs/bigchaindb-behaviour.md §2.3). About 1 Ed25519 key in 1,400 has a
 * 42-character base58 form (a leading run of small bytes) and is refused, by BigchainDB as here;
 * random keys are drawn with `makeRandomKeypair`, which never returns one.
 */
export const base58KeyCharsMin = 43;
const base58Key = { type: "string", pattern: `^[1-9A-HJ-NP-Za-km-z]{${base58KeyCharsMin},44}$` } as const;
const conditionUri = {
  type: "string",
  pattern:
    "^ni:///sha-256;([a-zA-Z0-9_-]{0,86})[?]" +
    "(fpt=(ed25519|threshold)-sha-256(&)?|cost=[0-9]+(&)?|subtypes=ed25519-sha-256(&)?){2,3}$",
} as const;

// An input; `fulfills` is null in a CREATE and an output reference in a TRANSFER. BigchainDB
// does not require the key, but its signing message always has it (`Input.to_dict`), so a
// transaction without it could never verify; requiring it gives a clear schema message instead.
function inputSchema(fulfills: object): object {
  return {
    type: "object",
    additionalProperties: false,
    required: ["owners_before", "fulfillment", "fulfills"],
    properties: {
      owners_before: { type: "array", minItems: 1, maxItems: txLimits.keysMax, items: base58Key },
      fulfillment: {
        anyOf: [
          { type: "string", pattern: "^[a-zA-Z0-9_-]*$" },
          { $ref: "#/definitions/conditionDetails" },
        ],
      },
      fulfills,
    },
  };
}

const definitions = {
  conditionDetails: {
    anyOf: [
      {
        type: "object",
        additionalProperties: false,
        required: ["type", "public_key"],
        properties: { type: { const: "ed25519-sha-256" }, public_key: base58Key },
      },
      {
        type: "object",
        additionalProperties: false,
        required: ["type", "threshold", "subconditions"],
        properties: {
          type: { const: "threshold-sha-256" },
          threshold: { type: "integer", minimum: 1, maximum: txLimits.thresholdMax },
          subconditions: {
            type: "array",
            maxItems: txLimits.subconditionsMax,
            items: { $ref: "#/definitions/conditionDetails" },
          },
        },
      },
    ],
  },
  output: {
    type: "object",
    additionalProperties: false,
    required: ["amount", "condition", "public_keys"],
    properties: {
      amount: { type: "string", pattern: "^[0-9]{1,20}$" },
      condition: {
        type: "object",
        additionalProperties: false,
        required: ["details", "uri"],
        properties: { details: { $ref: "#/definitions/conditionDetails" }, uri: conditionUri },
      },
      public_keys: { type: "array", minItems: 1, maxItems: txLimits.keysMax, items: base58Key },
    },
  },
  fulfills: {
    type: "object",
    additionalProperties: false,
    required: ["output_index", "transaction_id"],
    properties: { output_index: { type: "integer", minimum: 0 }, transaction_id: sha3Hex },
  },
  metadata: { anyOf: [{ type: "object", minProperties: 1 }, { type: "null" }] },
} as const;

// The outputs of an election or a vote: BigchainDB's election and vote schemas admit only
// single-key (ed25519) conditions there (`transaction_validator_election_v2.0.yaml`,
// `transaction_vote_v2.0.yaml`).
const ed25519ConditionUri = {
  type: "string",
  pattern:
    "^ni:///sha-256;([a-zA-Z0-9_-]{0,86})[?]" +
    "(fpt=ed25519-sha-256(&)?|cost=[0-9]+(&)?|subtypes=ed25519-sha-256(&)?){2,3}$",
} as const;
const ed25519Output = {
  allOf: [
    { $ref: "#/definitions/output" },
    { type: "object", properties: { condition: { type: "object", properties: { uri: ed25519ConditionUri } } } },
  ],
} as const;

/**
 * `asset.data` of a validator election (`transaction_validator_election_v2.0.yaml`). BigchainDB's
 * `power` refers to a `positiveInteger` its schema never defines: a negative or non-integer power
 * passed or crashed its validation (test/vectors/elections). Here it is an integer from 0 (a
 * removal) to the largest a JavaScript number holds exactly (docs/compatibility.md #11).
 */
const upsertValidatorData = {
  type: "object",
  additionalProperties: false,
  required: ["node_id", "public_key", "power"],
  properties: {
    node_id: { type: "string" },
    seed: { type: "string" },
    public_key: {
      type: "object",
      additionalProperties: false,
      required: ["value", "type"],
      properties: {
        value: { type: "string" },
        type: { enum: ["ed25519-base16", "ed25519-base32", "ed25519-base64"] },
      },
    },
    power: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
} as const;

type SchemaOperation = "CREATE" | "TRANSFER" | "VALIDATOR_ELECTION" | "VOTE";

function transactionSchema(operation: SchemaOperation): object {
  // An election is a CREATE of BigchainDB's schema (one input); a vote is a TRANSFER.
  const create = operation === "CREATE" || operation === "VALIDATOR_ELECTION";
  const election = operation === "VALIDATOR_ELECTION";
  const data = election ? upsertValidatorData : { anyOf: [{ type: "object" }, { type: "null" }] };
  return {
    type: "object",
    additionalProperties: false,
    required: ["id", "inputs", "outputs", "operation", "metadata", "asset", "version"],
    properties: {
      id: sha3Hex,
      operation: { const: operation },
      version: { type: "string", pattern: "^2\\.0$" },
      metadata: { $ref: "#/definitions/metadata" },
      asset: create
        ? {
            type: "object",
            additionalProperties: false,
            required: ["data"],
            properties: { data },
          }
        : {
            type: "object",
            additionalProperties: false,
            required: ["id"],
            properties: { id: sha3Hex },
          },
      inputs: {
        type: "array",
        minItems: 1,
        maxItems: election ? 1 : txLimits.inputsMax,
        items: inputSchema(create ? { type: "null" } : { $ref: "#/definitions/fulfills" }),
      },
      outputs: {
        type: "array",
        minItems: 1,
        maxItems: txLimits.outputsMax,
        items: operation === "CREATE" || operation === "TRANSFER" ? { $ref: "#/definitions/output" } : ed25519Output,
      },
    },
    definitions,
  };
}

/**
 * The operations BigchainDB 2.x knows. ledgerd refuses CHAIN_MIGRATION_ELECTION
 * (docs/compatibility.md #11).
 */
export const knownOperations = [
  "CREATE",
  "TRANSFER",
  "VALIDATOR_ELECTION",
  "CHAIN_MIGRATION_ELECTION",
  "VOTE",
] as const;

export const createSchema = transactionSchema("CREATE");
export const transferSchema = transactionSchema("TRANSFER");
export const validatorElectionSchema = transactionSchema("VALIDATOR_ELECTION");
export const voteSchema = transactionSchema("VOTE");

/** The operations whose bodies a schema checks (all but the refused chain migration), and each one's schema. */
export const checkedOperationSchemas = {
  CREATE: createSchema,
  TRANSFER: transferSchema,
  VALIDATOR_ELECTION: validatorElectionSchema,
  VOTE: voteSchema,
} as const;
export type CheckedOperation = keyof typeof checkedOperationSchemas;
