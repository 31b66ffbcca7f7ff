import { Buffer } from "node:buffer";
import type { JsonObject } from "../../json/jsonValue.js";
import { electionPublicKey } from "../elections.js";
import { makeCreate } from "./makeCreate.js";
import { makeTransfer } from "./makeTransfer.js";

export interface ElectionSpec {
  /** The validator that proposes it (base58): its one input. */
  readonly proposer: string;
  /** The validator set in force: each validator's key (base58) and power becomes an output. */
  readonly voters: readonly { readonly publicKey: string; readonly power: number }[];
  /** The validator to add, change or remove: its Ed25519 key as CometBFT writes it, base64. */
  readonly validatorKeyBase64: string;
  readonly power: number;
  readonly nodeId: string;
  /** A uuid that makes two elections of the same change different transactions. */
  readonly seed: string;
}

/**
 * An unsigned VALIDATOR_ELECTION, as `bigchaindb election new upsert-validator` made it: the key
 * as upper-case hex (`ed25519-base16`), one output per validator holding its power.
 */
export function makeValidatorElection(spec: ElectionSpec): JsonObject {
  const create = makeCreate({
    issuers: [spec.proposer],
    outputs: spec.voters.map((v) => ({ publicKeys: [v.publicKey], amount: BigInt(v.power) })),
    assetData: {
      public_key: { value: Buffer.from(spec.validatorKeyBase64, "base64").toString("hex").toUpperCase(), type: "ed25519-base16" },
      power: spec.power,
      node_id: spec.nodeId,
      seed: spec.seed,
    },
    metadata: null,
  });
  return { ...create, operation: "VALIDATOR_ELECTION" };
}

/**
 * An unsigned VOTE, as `bigchaindb election approve` made it: every output of the election the
 * voter holds, sent to the election's public key as one output of the first one's amount.
 */
export function makeVote(election: JsonObject, voter: string): JsonObject {
  const outputs = election["outputs"] as JsonObject[];
  const mine = outputs.flatMap((output, outputIndex) =>
    (output["public_keys"] as string[]).includes(voter) ? [{ output, outputIndex }] : [],
  );
  const first = mine[0];
  if (first === undefined) throw new Error("The key you provided does not match any of the eligible voters in this election.");
  const transfer = makeTransfer({
    spends: mine.map(({ outputIndex }) => ({ tx: election, outputIndex })),
    outputs: [{ publicKeys: [electionPublicKey(election["id"] as string)], amount: first.output["amount"] as string }],
    metadata: null,
  });
  return { ...transfer, operation: "VOTE" };
}
