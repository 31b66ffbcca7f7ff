// The JSON schemas of an export's lines (exportFormat.ts): the header and a block's line. Their
// checks are ajv's code, generated from these by `npm run generate:validators`.
import { chainIdCharsMax } from "../config/schema.js";
import { commitmentVersions } from "../proofs/commitment.js";

export const exportFormat = "ledgerd-export";
export const exportVersion = 1;

/** Validators in the header's first set: CometBFT's `MaxVotesCount`. */
export const exportValidatorsMax = 10_000;

const safeInteger = (minimum: number) => ({ type: "integer", minimum, maximum: Number.MAX_SAFE_INTEGER }) as const;

export const headerSchema = {
  type: "object",
  additionalProperties: false,
  required: ["format", "version", "chain_id", "validators", "from", "to"],
  properties: {
    format: { const: exportFormat },
    version: { const: exportVersion },
    // A chain id the setting engine.chain_id cannot name is a ledger no node starts on.
    chain_id: { type: "string", minLength: 1, maxLength: chainIdCharsMax },
    validators: {
      type: "array",
      // A chain without a validator makes no block.
      minItems: 1,
      maxItems: exportValidatorsMax,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["publicKey", "power"],
        properties: { publicKey: { type: "string", pattern: "^[0-9a-f]{64}$" }, power: safeInteger(1) },
      },
    },
    commitment: { enum: [...commitmentVersions] },
    // ABCI's uint64, in decimal.
    app_version: { type: "string", pattern: "^(0|[1-9][0-9]{0,19})$" },
    rule_heights: { type: "object", additionalProperties: safeInteger(1) },
    from: { const: 1 },
    to: safeInteger(0),
  },
} as const;

export const blockSchema = {
  type: "object",
  additionalProperties: false,
  required: ["height", "app_hash", "txs"],
  properties: {
    height: safeInteger(1),
    // "" while a v1 chain's history is empty (docs/proofs.md), else a hash in hex.
    app_hash: { type: "string", pattern: "^([0-9a-f]{64})?$" },
    txs: { type: "array", items: { type: "string" } },
    evidence: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["type", "validator_address", "power", "infraction_height", "time", "total_power"],
        properties: {
          type: { enum: ["duplicate_vote", "light_client_attack", "unknown"] },
          validator_address: { type: "string", pattern: "^[0-9A-F]*$" },
          power: safeInteger(0),
          infraction_height: safeInteger(0),
          time: { type: "string" },
          total_power: safeInteger(0),
        },
      },
    },
  },
} as const;

