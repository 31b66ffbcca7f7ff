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
import { nodeKeyFileName, readNodeKey } from "../node/nodeKey.js";

/** What `ledgerd election new upsert-validator` proposes. */
export interface UpsertValidatorArgs {
  /** The validator's Ed25519 key as CometBFT writes it (`priv_validator_key.json` pub_key), base64. */
  readonly publicKey: string;
  readonly power: number;
  readonly nodeId: string;
}

/** Where an election command goes and what it signs with. */
export interface ElectionNode {
  /** The node's HTTP API: `--url`, else `apiBase` of the node's settings. */
  readonly api: string;
  /** The data_dir holding the key that signs (`node_key.json`): a validator's for new and approve. */
  readonly dataDir: string;
}

/** The node's HTTP API as this machine reaches it. */
export function apiBase(config: Config): string {
  // The loaded settings hold a valid address (the config schema checks it).
  const bind = parseHostPort(config.server.bind)!;
  return `http://${clientHostOf(bind)}:${bind.port}`;
}

/**
 * The validator's key. Without one the fix is the validator's data_dir, not `ledgerd init`: init
 * makes a new key, and a new key is no validator's (the election would be refused).
 */
function nodeKeypair(dataDir: string): Keypair {
  const key = readNodeKey(dataDir);
  if (key === null) {
    throw new Error(
      `no ${nodeKeyFileName} in ${dataDir}: the election commands sign with a validator's key; give --data_dir ` +
        "the data_dir of a validator's ledgerd (in a testnet DIR/node0/ledgerd; on a network's machine the one " +
        "`ledgerd network init` or `ledgerd init --validator-key` made)",
    );
  }
  return makeKeypair(key.seed);
}

/** fetch, with an unreachable node named by its address and the cause (fetch says only "fetch failed"). */
async function request(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new Error(`cannot reach the node at ${url}: ${causeOf(error)} (is its ledgerd running? --url names another node)`);
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  // "localhost" tries ::1 and 127.0.0.1: one error each, in an AggregateError without a message.
  const errors = cause instanceof AggregateError ? (cause.errors as unknown[]) : [cause];
  return errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; ");
}

async function bodyOf(url: string, response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${url}: ${response.status}, an answer that is not JSON (is it a ledgerd node's API?)`);
  }
}

async function getJson(url: string): Promise<unknown> {
  const response = await request(url);
  const body = await bodyOf(url, response);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${describe(body)}`);
  return body;
}

async function postCommit(base: string, tx: JsonObject): Promise<void> {
  const url = `${base}/api/v1/transactions?mode=commit`;
  const response = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(tx),
  });
  if (response.status !== 202) throw new Error(`the node refused it: ${response.status} ${describe(await bodyOf(url, response))}`);
}

function describe(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : JSON.stringify(body);
}

/** Proposes a validator change; returns the election's id once committed. */
export async function newUpsertValidatorElection(node: ElectionNode, args: UpsertValidatorArgs): Promise<string> {
  const key = nodeKeypair(node.dataDir);
  const validators = (await getJson(`${node.api}/api/v1/validators`)) as { pub_key: { data: string }; power: number }[];
  const voters = validators.map((v) => ({ publicKey: encodeBase58(Buffer.from(v.pub_key.data, "hex")), power: v.power }));
  if (!voters.some((v) => v.publicKey === key.publicKey)) {
    throw new Error(`the key in ${node.dataDir} (${key.publicKey}) is not a validator's at ${node.api}: only a validator proposes; give --data_dir a validator's data_dir`);
  }
  const unsigned = makeValidatorElection({
    proposer: key.publicKey,
    voters,
    validatorKeyBase64: args.publicKey,
    power: args.power,
    nodeId: args.nodeId,
    seed: randomUUID(),
  });
  const election = signTx(unsigned, [key]);
  await postCommit(node.api, election);
  return election["id"] as string;
}

/** Votes for an election with this node's tokens; returns the vote's id once committed. */
export async function approveElection(node: ElectionNode, electionId: string): Promise<string> {
  const key = nodeKeypair(node.dataDir);
  const election = (await getJson(`${node.api}/api/v1/transactions/${encodeURIComponent(electionId)}`)) as JsonObject;
  const vote = signTx(makeVote(election, key.publicKey), [key]);
  await postCommit(node.api, vote);
  return vote["id"] as string;
}

/** The election as the node reports it (GET /api/v1/elections/<id>). */
export async function showElection(api: string, electionId: string): Promise<Record<string, unknown>> {
  return (await getJson(`${api}/api/v1/elections/${encodeURIComponent(electionId)}`)) as Record<string, unknown>;
}
