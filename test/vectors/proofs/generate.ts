// Writes verifier-vectors.json: real proofs and checkpoints from a real node (started here, on a
// free port, fed by the official JS driver), a recorded CometBFT proof (../cometbft/proof.json),
// and each kind of broken one, each with the verdict ledgerd's TypeScript code gives
// (tsVerdict.ts). It stops when a valid case is refused or a broken one accepted.
// Usage: node --import tsx test/vectors/proofs/generate.ts
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getPublicKey, sign } from "@noble/ed25519";
import { cosignatureMessage, cosignatureOf, cosignatureVerifierKeyOf } from "../../../src/proofs/cosignature.js";
import { toBase64 } from "../../../src/proofs/encoding.js";
import { signedNoteOf, noteKeyId, verifierKeyOf, type NoteSignature } from "../../../src/proofs/signedNote.js";
import { matchTxId } from "../../../src/transaction/matchTxId.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { createTx, keypair } from "../../e2e/driverScenarios.js";
import { startNodeIn } from "../../helpers/startedNode.js";
import { waitFor } from "../../helpers/waitFor.js";
import { tsVerdict, type VectorCase } from "./tsVerdict.js";

const here = dirname(fileURLToPath(import.meta.url));
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
/** A case before its verdict is recorded: whether it is meant to be valid. */
type DraftOf<C> = C extends VectorCase ? Omit<C, "expect"> & { readonly valid: boolean } : never;
type Draft = DraftOf<VectorCase>;

const clone = <T>(value: T): T => structuredClone(value);
/** A hex hash with its last digit changed. */
const flip = (hex: string): string => hex.slice(0, -1) + (hex.endsWith("0") ? "1" : "0");
/** A base64 signature with one bit of its first byte changed. */
const flipBase64 = (text: string): string => {
  const bytes = Buffer.from(text, "base64");
  bytes[0]! ^= 1;
  return bytes.toString("base64");
};
const edited = <T>(value: T, edit: (copy: Json) => void): T => {
  const copy = clone(value) as Json;
  edit(copy);
  return copy as T;
};

async function getJson(url: string): Promise<Json> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function post(baseUrl: string, tx: object, mode: "async" | "commit" = "async"): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/transactions?mode=${mode}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tx) });
  if (response.status !== 202) throw new Error(`POST: ${response.status} ${await response.text()}`);
}

/** What the node serves: a block of several transactions, their proofs, a consistency proof, the checkpoint. */
async function recordNode(baseUrl: string): Promise<Json> {
  const alice = keypair();
  // Posted together into a node that cuts a block every 300 ms: they share a block.
  const first = [0, 1, 2, 3, 4].map((i) => createTx(alice, { vectors: "proofs", i }, { i }));
  await Promise.all(first.map((tx) => post(baseUrl, tx)));
  const committed = (tx: Json) => waitFor(`${tx.id} committed`, async () => ((await getJson(`${baseUrl}/api/v1/blocks?transaction_id=${tx.id}`)) as number[])[0]);
  const firstHeight = await committed(first[4]!);
  // Keys the two canonical forms order differently (U+FFFF against U+1F600) and a control
  // character: the driver's id is its own form's (json-stable-stringify), not BigchainDB's.
  const unicode = createTx(alice, { vectors: "unicode", "\uffff": 1, "\u{1f600}": 2 }, { "c\u001f": "x\u001fy" });
  if (matchTxId(unicode as unknown as JsonObject) !== "js") throw new Error("the unicode CREATE was meant to hash in the driver's form only");
  // Then a block each: a history of several blocks, for paths of more than one node.
  const later = [...[0, 1, 2, 3, 4].map((i) => createTx(alice, { vectors: "later", i })), unicode];
  for (const tx of later) await post(baseUrl, tx, "commit");
  const lastHeight = await committed(unicode);
  const inBlock = (await Promise.all(first.map(async (tx) => ({ tx, proof: await getJson(`${baseUrl}/api/v1/proofs/transactions/${tx.id}`) })))).find((p) => p.proof.block.size >= 3 && p.proof.block.index === 1);
  if (inBlock === undefined) throw new Error("the first five did not share a block");
  const unicodeProof = await getJson(`${baseUrl}/api/v1/proofs/transactions/${unicode.id}`);
  const consistency = await getJson(`${baseUrl}/api/v1/proofs/consistency?from=${firstHeight + 2}&to=${lastHeight}`);
  const same = await getJson(`${baseUrl}/api/v1/proofs/consistency?from=${lastHeight}&to=${lastHeight}`);
  const checkpoint = await fetch(`${baseUrl}/api/v1/checkpoint`);
  const key = (await (await fetch(`${baseUrl}/api/v1/checkpoint/key`)).text()).trim();
  return { ...inBlock, unicode, unicodeProof, consistency, same, note: await checkpoint.text(), height: checkpoint.headers.get("ledgerd-checkpoint-height"), key };
}

/** A key of the generator's own (fixed seed): a witness, or a signer of notes that are no checkpoint. */
function ownKey(name: string, seedByte: number) {
  const secret = new Uint8Array(32).fill(seedByte);
  return { key: { name, publicKey: getPublicKey(secret) }, secret };
}

/** The note with a witness's cosignature line added (C2SP tlog-cosignature). */
function cosigned(note: string, witness: ReturnType<typeof ownKey>, timestamp: number, spoil = false): string {
  const body = note.slice(0, note.lastIndexOf("\n\n") + 1);
  const signature = sign(cosignatureMessage(timestamp, body), witness.secret);
  if (spoil) signature[0]! ^= 1;
  const line = cosignatureOf(witness.key, timestamp, signature);
  return `${note}\u2014 ${line.name} ${toBase64(Uint8Array.of(...line.keyId, ...line.signature))}\n`;
}

function transactionCases(p: Json): Draft[] {
  const base = { kind: "transaction_proof" as const, proof: p.proof };
  const broken = (name: string, check: string, edit: (proof: Json) => void): Draft => ({ ...base, name, check, valid: false, proof: edited(p.proof, edit) });
  return [
    { ...base, name: "transaction proof, solo node, 2nd of its block", check: "valid", valid: true },
    { ...base, name: "transaction proof, with the id asked for", check: "valid", valid: true, id: p.tx.id },
    { ...base, name: "transaction proof of another id than asked", check: "id", valid: false, id: flip(p.tx.id) },
    broken("proof version 2", "version", (x) => (x.version = 2)),
    broken("proof version missing", "version", (x) => delete x.version),
    broken("tampered transaction id", "app_hash", (x) => (x.transaction_id = flip(x.transaction_id))),
    broken("transaction id not text", "transaction_id", (x) => (x.transaction_id = 7)),
    broken("wrong leaf index", "app_hash", (x) => (x.block.index = 0)),
    broken("leaf index past the block's size", "block_path", (x) => (x.block.index = x.block.size)),
    broken("block height 0", "counts", (x) => (x.block.height = 0)),
    broken("block size not a count", "counts", (x) => (x.block.size = -1)),
    broken("wrong block size", "app_hash", (x) => (x.block.size += 1)),
    broken("wrong block height", "app_hash", (x) => (x.block.height += 1)),
    broken("wrong history index", "app_hash", (x) => (x.history.index += 1)),
    broken("wrong history size (tree size)", "history_path", (x) => (x.history.size = x.history.index + 1)),
    broken("history size missing", "counts_history", (x) => delete x.history.size),
    broken("wrong block path node", "app_hash", (x) => (x.block.path[0] = flip(x.block.path[0]))),
    broken("block path node not hex", "hashes", (x) => (x.block.path[0] = "zz".repeat(32))),
    broken("block path node short", "hashes", (x) => (x.block.path[0] = x.block.path[0].slice(2))),
    broken("block path with a node too many", "block_path", (x) => x.block.path.push("00".repeat(32))),
    broken("block path not a list", "hashes", (x) => (x.block.path = "00")),
    broken("wrong history path node", "app_hash", (x) => (x.history.path[0] = flip(x.history.path[0]))),
    broken("history path not a list", "hashes", (x) => (x.history.path = null)),
    broken("wrong app hash", "app_hash", (x) => (x.app_hash = flip(x.app_hash))),
    broken("app hash missing", "counts_history", (x) => delete x.app_hash),
    broken("height before the block's", "height", (x) => (x.height = x.block.height - 1)),
    { ...base, name: "validators given, no signed header (solo)", check: "no_signed_header", valid: false, validators: [{ pub_key: { data: "cd".repeat(32), type: "ed25519-base16" }, power: 10 }] },
  ];
}

function cometCases(recorded: Json): Draft[] {
  const trusted = { kind: "transaction_proof" as const, validators: recorded.validators, chain_id: recorded.chain_id };
  const broken = (name: string, check: string, edit: (proof: Json) => void): Draft => ({ ...trusted, name, check, valid: false, proof: edited(recorded.proof, edit) });
  const sh = (x: Json) => x.signed_header;
  const others = recorded.validators.map((v: Json, i: number) => ({ ...v, pub_key: { ...v.pub_key, value: toBase64(getPublicKey(new Uint8Array(32).fill(i + 1))) } }));
  return [
    { ...trusted, name: "CometBFT proof, signed by the genesis validators", check: "valid", valid: true, proof: recorded.proof },
    { kind: "transaction_proof", name: "CometBFT proof, unsigned check", check: "valid", valid: true, proof: recorded.proof },
    { ...trusted, name: "CometBFT proof, another chain", check: "chain_id", valid: false, proof: recorded.proof, chain_id: "another-chain" },
    { ...trusted, name: "CometBFT proof, other validators (wrong keys)", check: "power", valid: false, proof: recorded.proof, validators: others },
    broken("CometBFT proof, no signed header", "no_signed_header", (x) => (x.signed_header = null)),
    broken("header of another height", "header_height", (x) => (sh(x).header.height = "9")),
    broken("header with another app hash", "header_app_hash", (x) => (sh(x).header.app_hash = flip(sh(x).header.app_hash).toUpperCase())),
    broken("header height not an integer", "malformed", (x) => (sh(x).header.height = "two")),
    broken("commit of another height", "commit_height", (x) => (sh(x).commit.height = "3")),
    broken("header field tampered (data hash)", "header_hash", (x) => (sh(x).header.data_hash = flip(sh(x).header.data_hash || "00".repeat(32)))),
    broken("header time tampered", "header_hash", (x) => (sh(x).header.time = sh(x).header.time.replace(/\.\d+Z$/, ".5Z"))),
    broken("header time not RFC 3339", "malformed", (x) => (sh(x).header.time = "yesterday")),
    broken("bad signature", "signature", (x) => (sh(x).commit.signatures[0].signature = flipBase64(sh(x).commit.signatures[0].signature))),
    broken("signature not 64 bytes of base64", "signature_form", (x) => (sh(x).commit.signatures[2].signature = "AAAA")),
    broken("signed timestamp changed", "signature", (x) => (sh(x).commit.signatures[3].timestamp = "2020-01-01T00:00:00Z")),
    broken("one of four signatures left (the others absent)", "power", (x) => {
      for (const s of sh(x).commit.signatures.slice(2)) Object.assign(s, { block_id_flag: 1, signature: null });
    }),
    broken("CometBFT proof, wrong leaf (tampered id)", "app_hash", (x) => (x.transaction_id = flip(x.transaction_id))),
  ];
}

/** Proofs checked from a genesis through the validator set's two changes (../cometbft/validatorChanges.json). */
function trustCases(recorded: Json): Draft[] {
  const blocks = recorded.validator_changes.light_blocks as Json[];
  const trust = { genesis: recorded.genesis, light_blocks: blocks };
  const base = { kind: "transaction_proof" as const, proof: recorded.proof, trust };
  const headerMs = Date.parse(recorded.proof.signed_header.header.time);
  const genesisMs = Date.parse(recorded.genesis.genesis_time);
  const withBlocks = (edit: (copy: Json[]) => void) => ({ ...trust, light_blocks: edited(blocks, edit) });
  const firstSig = (b: Json) => b.signed_header.commit.signatures.find((s: Json) => s.signature !== null);
  return [
    { ...base, name: "CometBFT proof followed from the genesis through two set changes", check: "valid", valid: true },
    { ...base, name: "followed within the trust period", check: "valid", valid: true, trust: { ...trust, trust_period_ms: 86_400_000, now_ms: headerMs + 1000 } },
    { ...base, name: "trust period over", check: "trust_period", valid: false, trust: { ...trust, trust_period_ms: 1000, now_ms: genesisMs + 3_600_000 } },
    { ...base, name: "trust period without the time now", check: "trust_period", valid: false, trust: { ...trust, trust_period_ms: 1000 } },
    { ...base, name: "header from the future", check: "future", valid: false, trust: { ...trust, now_ms: genesisMs - 60_000 } },
    { ...base, name: "the last set change left out", check: "changes_short", valid: false, trust: withBlocks((x) => x.pop()) },
    { ...base, name: "a light block's set with another power", check: "set_hash", valid: false, trust: withBlocks((x) => (x[0].validator_set.validators[0].voting_power = "7")) },
    { ...base, name: "a light block's bad signature", check: "signature", valid: false, trust: withBlocks((x) => (firstSig(x[0]).signature = flipBase64(firstSig(x[0]).signature))) },
    { ...base, name: "light blocks not a list", check: "changes_list", valid: false, trust: { ...trust, light_blocks: {} } },
    { ...base, name: "genesis of another chain", check: "chain_id", valid: false, trust: { ...trust, genesis: { ...recorded.genesis, chain_id: "another-chain" } } },
    { ...base, name: "genesis time not RFC 3339", check: "root_time", valid: false, trust: { ...trust, genesis: { ...recorded.genesis, genesis_time: "today" } } },
  ];
}

function consistencyCases(c: Json, same: Json): Draft[] {
  const base = { kind: "consistency_proof" as const, proof: c };
  const broken = (name: string, check: string, edit: (proof: Json) => void): Draft => ({ ...base, name, check, valid: false, proof: edited(c, edit) });
  return [
    { ...base, name: "consistency proof, solo node", check: "valid", valid: true },
    { ...base, name: "consistency proof of a history with itself", check: "valid", valid: true, proof: same },
    broken("consistency proof version 0", "version", (x) => (x.version = 0)),
    broken("wrong consistency path node", "consistency", (x) => (x.path[0] = flip(x.path[0]))),
    broken("consistency path with a node too many", "consistency", (x) => x.path.push("00".repeat(32))),
    broken("consistency path node not hex", "hashes", (x) => (x.path[0] = "g".repeat(64))),
    broken("to root tampered", "point_app_hash", (x) => (x.to.root = flip(x.to.root))),
    broken("from app hash tampered", "point_app_hash", (x) => (x.from.app_hash = flip(x.from.app_hash))),
    broken("from root not hex", "point_root", (x) => (x.from.root = "xy")),
    broken("to lacks its size", "point", (x) => delete x.to.size),
    broken("from after to (swapped)", "order", (x) => ([x.from, x.to] = [x.to, x.from])),
    { ...base, name: "consistency, validators given, no signed header", check: "no_signed_header", valid: false, validators: [{ pub_key: { data: "cd".repeat(32), type: "ed25519-base16" }, power: 10 }] },
  ];
}

function bodyCases(p: Json, unicode: Json, unicodeProof: Json): Draft[] {
  const base = { kind: "transaction" as const, transaction: p.tx, proof: p.proof, id: p.tx.id };
  return [
    { ...base, name: "transaction with its proof", check: "valid", valid: true },
    { kind: "transaction", name: "driver-form id (unicode keys, control character)", check: "valid", valid: true, transaction: unicode, proof: unicodeProof, id: unicode.id },
    { ...base, name: "tampered body (metadata)", check: "body_hash", valid: false, transaction: edited(p.tx, (x) => (x.metadata.i += 100)) },
    { ...base, name: "tampered body (signature)", check: "body_hash", valid: false, transaction: edited(p.tx, (x) => (x.inputs[0].fulfillment = x.inputs[0].fulfillment.slice(0, -4) + "AAAA")) },
    { ...base, name: "another transaction answered", check: "answered_id", valid: false, transaction: unicode },
    { ...base, name: "proof of another transaction", check: "id", valid: false, proof: unicodeProof },
  ];
}

function checkpointCases(r: Json): Draft[] {
  const body = r.note.slice(0, r.note.lastIndexOf("\n\n") + 1) as string;
  const sigLines = r.note.slice(body.length + 1) as string;
  const origin = r.key.split("+")[0] as string;
  const w1 = ownKey("witness.example/one", 11);
  const w2 = ownKey("witness.example/two", 12);
  const [v1, v2] = [cosignatureVerifierKeyOf(w1.key), cosignatureVerifierKeyOf(w2.key)];
  const mine = ownKey("vectors.example/log", 13);
  const signedBy = (text: string): string => signedNoteOf(text, [{ name: mine.key.name, keyId: noteKeyId(mine.key), signature: sign(new TextEncoder().encode(text), mine.secret) } satisfies NoteSignature]);
  const base = { kind: "checkpoint" as const, note: r.note, height: r.height, key: r.key };
  const [, size, root] = body.split("\n") as [string, string, string];
  const otherKey = verifierKeyOf({ name: origin, publicKey: getPublicKey(new Uint8Array(32).fill(14)) });
  const line = sigLines.trimEnd().split(" ");
  return [
    { ...base, name: "checkpoint of a solo node", check: "valid", valid: true },
    { ...base, name: "checkpoint cosigned by a witness", check: "valid", valid: true, note: cosigned(r.note, w1, 1_700_000_000), witnesses: [v1] },
    { ...base, name: "checkpoint cosigned by one of two, quorum 1", check: "valid", valid: true, note: cosigned(r.note, w1, 1_700_000_000), witnesses: [v1, v2], quorum: 1 },
    { ...base, name: "checkpoint cosigned by one of two, quorum 2", check: "quorum", valid: false, note: cosigned(r.note, w1, 1_700_000_000), witnesses: [v1, v2] },
    { ...base, name: "witness cosignature that does not verify", check: "quorum", valid: false, note: cosigned(r.note, w1, 1_700_000_000, true), witnesses: [v1] },
    { ...base, name: "witness cosignature with timestamp 0", check: "quorum", valid: false, note: cosigned(r.note, w1, 0), witnesses: [v1] },
    { ...base, name: "checkpoint, wrong key (same name)", check: "note_signature", valid: false, key: otherKey },
    { ...base, name: "checkpoint, not a verifier key", check: "verifier_key", valid: false, key: "not a key" },
    { ...base, name: "checkpoint, verifier key with a wrong ID", check: "verifier_key", valid: false, key: r.key.replace(/\+[0-9a-f]{8}\+/, "+00000000+") },
    { ...base, name: "checkpoint, bad signature", check: "note_signature", valid: false, note: `${body}\n${line[0]} ${line[1]} ${flipBase64(line[2]!)}\n` },
    { ...base, name: "checkpoint, wrong tree size", check: "note_signature", valid: false, note: r.note.replace(`\n${size}\n`, `\n${Number(size) + 1}\n`) },
    { ...base, name: "checkpoint, wrong root", check: "note_signature", valid: false, note: r.note.replace(root, toBase64(new Uint8Array(32))) },
    { ...base, name: "checkpoint, truncated (no final newline)", check: "note_signature", valid: false, note: r.note.slice(0, -1) },
    { ...base, name: "checkpoint, truncated (no signature lines)", check: "note_signature", valid: false, note: `${body}\n` },
    { ...base, name: "checkpoint, garbled signature line", check: "note_signature", valid: false, note: `${body}\n${line[0]} ${line[1]} !!!\n` },
    { ...base, name: "checkpoint, a control character", check: "note_signature", valid: false, note: r.note.replace("\n", "\u0001\n") },
    { ...base, name: "checkpoint, no height given", check: "height", valid: false, height: null },
    { ...base, name: "signed note that is no checkpoint", check: "checkpoint_body", valid: false, key: verifierKeyOf(mine.key), note: signedBy("hello\n") },
    { ...base, name: "checkpoint of another origin", check: "checkpoint_body", valid: false, key: verifierKeyOf(mine.key), note: signedBy(`other.example/log\n${size}\n${root}\n`) },
    { ...base, name: "checkpoint with a size of leading zeroes", check: "checkpoint_body", valid: false, key: verifierKeyOf(mine.key), note: signedBy(`${mine.key.name}\n0${size}\n${root}\n`) },
    { ...base, name: "checkpoint signed by the generator's key", check: "valid", valid: true, key: verifierKeyOf(mine.key), note: signedBy(`${mine.key.name}\n${size}\n${root}\n`) },
  ];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-vectors-"));
  const node = await startNodeIn(dir, { "engine.block_interval_ms": "300" });
  let recorded: Json;
  try {
    recorded = await recordNode(node.baseUrl);
  } finally {
    await node.handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const comet = JSON.parse(readFileSync(join(here, "../cometbft/proof.json"), "utf8"));
  const drafts = [
    ...transactionCases(recorded),
    ...cometCases(comet),
    ...trustCases(JSON.parse(readFileSync(join(here, "../cometbft/validatorChanges.json"), "utf8"))),
    ...consistencyCases(recorded.consistency, recorded.same),
    ...bodyCases(recorded, recorded.unicode, recorded.unicodeProof),
    ...checkpointCases(recorded),
  ];
  const cases: VectorCase[] = [];
  for (const { valid, ...draft } of drafts) {
    const expect = await tsVerdict({ ...draft, expect: { ok: valid, reason: "" } } as VectorCase);
    if (expect.ok !== valid) throw new Error(`${draft.name}: the TypeScript verifier says ${JSON.stringify(expect)}`);
    cases.push({ ...draft, expect } as VectorCase);
  }
  const about = "Shared vectors of ledgerd's proof and checkpoint verifiers (docs/client-python.md); written by generate.ts";
  writeFileSync(join(here, "verifier-vectors.json"), `${JSON.stringify({ about, cases }, null, 2)}\n`);
  console.log(`${cases.length} cases written`);
}

await main();
