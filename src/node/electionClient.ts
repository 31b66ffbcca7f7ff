// `ledgerd election new | approve | show` (README.md, "Changing the validator set"): the
// node's own key signs, as BigchainDB's CLI signed with the validator's key, and the transaction
// goes to the node's HTTP API with mode=commit, so the command returns once it is committed.
import { randomUUID } from "node:crypto";
import { Buffer } from "node:buffer";
import { clientHostOf, parseHostPort } from "../config/parseHostPort.js";
import type { Config } from "../config/schema.js";
import { encodeBase58 } from "../crypto-conditions/encodeBase58.js";
import type { JsonObject } from "../json/jsonValue.js";
import { makeValidatorElection, makeVote } from "../transaction/builders/makeElection.js";
import { makeKeypair, type Keypair } from "../transaction/builders/makeKeypair.js";
import { signTx } from "../transaction/builders/signTx.js";
import { readNodeKey } from "./nodeKey.js";

/** What `ledgerd election new upsert-validator` proposes. */
export interface UpsertValidatorArgs {
  /** The validator's Ed25519 key as CometBFT writes it (`priv_validator_key.json` pub_key), base64. */
  readonly publicKey: string;
  readonly power: number;
  readonly nodeId: string;
}

/** The node's HTTP API as this machine reaches it. */
export function apiBase(config: Config): string {
  // The loaded settings hold a valid address (the config schema checks it).
  const bind = parseHostPort(config.server.bind)!;
  return `http://${clientHostOf(bind)}:${bind.port}`;
}

function nodeKeypair(config: Config): Keypair {
  const key = readNodeKey(config.data_dir);
  if (key === null) throw new Error(`no node key in ${config.data_dir}: run \`ledgerd init\` first`);
  return makeKeypair(key.seed);
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  const body = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`${url}: ${response.status} ${describe(body)}`);
  return body;
}

async function postCommit(base: string, tx: JsonObject): Promise<void> {
  const response = await fetch(`${base}/api/v1/transactions?mode=commit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(tx),
  });
  if (response.status !== 202) throw new Error(`the node refused it: ${response.status} ${describe(await response.json())}`);
}

function describe(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : JSON.stringify(body);
}

/** Proposes a validator change; returns the election's id once committed. */
export async function newUpsertValidatorElection(config: Config, args: UpsertValidatorArgs): Promise<string> {
  const base = apiBase(config);
  const key = nodeKeypair(config);
  const validators = (await getJson(`${base}/api/v1/validators`)) as { pub_key: { data: string }; power: number }[];
  const voters = validators.map((v) => ({ publicKey: encodeBase58(Buffer.from(v.pub_key.data, "hex")), power: v.power }));
  const unsigned = makeValidatorElection({
    proposer: key.publicKey,
    voters,
    validatorKeyBase64: args.publicKey,
    power: args.power,
    nodeId: args.nodeId,
    seed: randomUUID(),
  });
  const election = signTx(unsigned, [key]);
  await postCommit(base, election);
  return election["id"] as string;
}

/** Votes for an election with this node's tokens; returns the vote's id once committed. */
export async function approveElection(config: Config, electionId: string): Promise<string> {
  const base = apiBase(config);
  const key = nodeKeypair(config);
  const election = (await getJson(`${base}/api/v1/transactions/${encodeURIComponent(electionId)}`)) as JsonObject;
  const vote = signTx(makeVote(election, key.publicKey), [key]);
  await postCommit(base, vote);
  return vote["id"] as string;
}

/** The election as the node reports it (GET /api/v1/elections/<id>). */
export async function showElection(config: Config, electionId: string): Promise<Record<string, unknown>> {
  return (await getJson(`${apiBase(config)}/api/v1/elections/${encodeURIComponent(electionId)}`)) as Record<string, unknown>;
}
