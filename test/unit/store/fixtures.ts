// Hand-made committed transactions for the store tests. They look like BigchainDB v2.0
// transactions (the JSON is plausible, the ids are random-looking 64-hex strings) but are not
// signed: the store never checks signatures, only what the ledger hands it.

import { createHash } from "node:crypto";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { readJson } from "../../../src/json/readJson.js";
import { computeTxId } from "../../../src/transaction/computeTxId.js";
import type { BlockWrite, Validator } from "../../../src/store/store.js";
import type { CommittedOutput, CommittedTx, OutputRef } from "../../../src/transaction/committed.js";

/** A deterministic random-looking 64-hex id, one per label. */
export function hex64(label: string): string {
  return createHash("sha256").update(label).digest("hex");
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** A deterministic base58 string of 44 characters, shaped like an Ed25519 public key. */
export function publicKey(label: string): string {
  const bytes = createHash("sha512").update(`key:${label}`).digest();
  let out = "";
  for (let i = 0; i < 44; i++) out += base58Alphabet[(bytes[i] as number) % 58];
  return out;
}

export function validator(label: string, power = 10): Validator {
  return { publicKey: hex64(`validator:${label}`), power };
}

export interface OutputSpec {
  /** One key: an ed25519 condition; more: a threshold condition over all of them. */
  readonly keys: readonly string[];
  readonly amount?: bigint;
}

export interface CreateSpec {
  readonly label: string;
  readonly outputs?: readonly OutputSpec[];
  readonly data?: object | null;
  readonly metadata?: object | null;
  /** The id the body hashes to, as the API checks of what it serves; else a label's hash. */
  readonly hashedId?: boolean;
}

export function createTx(spec: CreateSpec): CommittedTx {
  let id = hex64(`tx:${spec.label}`);
  const outputs = (spec.outputs ?? [{ keys: [publicKey(spec.label)] }]).map(committedOutput);
  const data = spec.data === undefined ? { label: spec.label } : spec.data;
  const metadata = spec.metadata ?? null;
  const issuer = outputs[0]?.publicKeys[0] ?? publicKey(spec.label);
  const json = {
    asset: { data },
    id: id as string | null,
    inputs: [{ fulfillment: fakeFulfillment(id), fulfills: null, owners_before: [issuer] }],
    metadata,
    operation: "CREATE",
    outputs: outputs.map(outputJson),
    version: "2.0",
  };
  if (spec.hashedId === true) json.id = id = computeTxId(readJson(JSON.stringify({ ...json, id: null })) as JsonObject, "python");
  return {
    id,
    operation: "CREATE",
    assetId: id,
    json: JSON.stringify(json),
    assetData: data === null ? null : JSON.stringify(data),
    metadata: metadata === null ? null : JSON.stringify(metadata),
    outputs,
    spends: [],
  };
}

export interface TransferSpec {
  readonly label: string;
  readonly assetId: string;
  readonly spends: readonly OutputRef[];
  readonly outputs?: readonly OutputSpec[];
  readonly metadata?: object | null;
}

export function transferTx(spec: TransferSpec): CommittedTx {
  const id = hex64(`tx:${spec.label}`);
  const outputs = (spec.outputs ?? [{ keys: [publicKey(spec.label)] }]).map(committedOutput);
  const metadata = spec.metadata ?? null;
  const json = {
    asset: { id: spec.assetId },
    id,
    inputs: spec.spends.map((ref) => ({
      fulfillment: fakeFulfillment(`${id}:${ref.transactionId}`),
      fulfills: { output_index: ref.outputIndex, transaction_id: ref.transactionId },
      owners_before: [publicKey(ref.transactionId)],
    })),
    metadata,
    operation: "TRANSFER",
    outputs: outputs.map(outputJson),
    version: "2.0",
  };
  return {
    id,
    operation: "TRANSFER",
    assetId: spec.assetId,
    json: JSON.stringify(json),
    assetData: null,
    metadata: metadata === null ? null : JSON.stringify(metadata),
    outputs,
    spends: spec.spends,
  };
}

export function block(
  height: number,
  txs: readonly CommittedTx[],
  validators?: readonly Validator[],
): BlockWrite {
  const appHash = txs.length === 0 ? "" : hex64(`app:${height}:${txs.map((t) => t.id).join()}`);
  return validators === undefined ? { height, appHash, txs } : { height, appHash, txs, validators };
}

export function ref(tx: CommittedTx, outputIndex: number): OutputRef {
  return { transactionId: tx.id, outputIndex };
}

function committedOutput(spec: OutputSpec, outputIndex: number): CommittedOutput {
  const keys = [...spec.keys];
  const threshold = keys.length > 1;
  const fingerprint = Buffer.from(hex64(`cond:${keys.join()}`), "hex").toString("base64url");
  const conditionUri = threshold
    ? `ni:///sha-256;${fingerprint}?fpt=threshold-sha-256&cost=${132096 * keys.length}` +
      "&subtypes=ed25519-sha-256"
    : `ni:///sha-256;${fingerprint}?fpt=ed25519-sha-256&cost=131072`;
  return { outputIndex, amount: spec.amount ?? 1n, conditionUri, publicKeys: keys };
}

function outputJson(output: CommittedOutput): object {
  const ed25519 = (key: string) => ({ public_key: key, type: "ed25519-sha-256" });
  const keys = output.publicKeys;
  const details =
    keys.length === 1
      ? ed25519(keys[0] as string)
      : { subconditions: keys.map(ed25519), threshold: keys.length, type: "threshold-sha-256" };
  return {
    amount: output.amount.toString(),
    condition: { details, uri: output.conditionUri },
    public_keys: keys,
  };
}

function fakeFulfillment(label: string): string {
  return `pGSAI${createHash("sha512").update(label).digest("base64url")}`;
}
