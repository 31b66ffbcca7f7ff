// State sync's ABCI side (snapshotSync.ts, docs/state-sync.md) on real ledgers: a SQLite ledger
// of both kinds of transaction (CREATEs, TRANSFERs, legacy ones, an empty block, a validator
// election concluded by its vote) is snapshotted to files and offered to an empty ledger as
// CometBFT would offer it. Each refusal of OfferSnapshot, a chunk that does not hash to the
// metadata (fetched again, its sender refused), and a forged ledger that holds together but does
// not give the trusted app hash (refused with nothing written); a sound snapshot restores a
// ledger that verify-chain passes and that reads the same as the one it was taken from (the
// validator sets and the election too), into SQLite and into a real PostgreSQL.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ResponseApplySnapshotChunk_Result as Apply, ResponseOfferSnapshot_Result as Offer, type Snapshot } from "cosmjs-types/tendermint/abci/types";
import type { Logger } from "pino";
import { SnapshotFiles } from "../../../src/engine/cometbft/snapshotFiles.js";
import { SnapshotSync, type GenesisFacts } from "../../../src/engine/cometbft/snapshotSync.js";
import { encodeMetadata, snapshotFormat, snapshotHash, type SnapshotMetadata } from "../../../src/ledger/snapshotFormat.js";
import { verifyChain } from "../../../src/ledger/verifyChain.js";
import type { Store } from "../../../src/store/store.js";
import { corruptChunk, editMetadata, forgeLedger, readSnapshotMetadata } from "../../helpers/snapshotForgery.js";
import { writeMixedLedger } from "../../helpers/mixedLedger.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { hexKey } from "../../helpers/legacyFactory.js";
import { makeValidatorElection, makeVote } from "../../../src/transaction/builders/makeElection.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { prepareBytes } from "../../../src/ledger/prepared.js";
import { restoredDoor } from "../../../src/ledger/doors.js";
import { restoreSnapshot } from "../../../src/ledger/snapshotRestore.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { computeTxId } from "../../../src/transaction/computeTxId.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { openLedger, type LedgerFixture } from "./ledgerFixture.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { PostgresStore } from "../../../src/store/postgres/postgresStore.js";
import { startPostgres } from "../../helpers/postgres.js";
import { syntheticSignedHeader, type SyntheticValidator } from "../../helpers/syntheticChain.js";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";

const height = 12;
let source: LedgerFixture;
let served: string;
let genesis: GenesisFacts;
const warnings: string[] = [];
const logger = {
  info: () => undefined,
  warn: (fields: object, msg?: string) => void warnings.push(`${msg ?? ""} ${JSON.stringify(fields)}`),
} as unknown as Pick<Logger, "info" | "warn">;

before(async () => {
  source = await openLedger();
  await writeMixedLedger(source.store);
  await writeElection(source.store);
  genesis = { chainId: "verify", validators: await source.store.getValidators(1) };
  served = mkdtempSync(join(tmpdir(), "ledgerd-snapshots-"));
  const sync = new SnapshotSync({ intervalBlocks: 4, keep: 2, chainId: "verify" }, { files: new SnapshotFiles(served), store: source.store, ledger: source.ledger, genesis: async () => genesis, headerStore: source.store });
  sync.committed(4);
  sync.committed(height); // none: the one of 4 is still being taken
  await sync.settled();
  assert.deepEqual((await sync.list()).snapshots.map((s) => Number(s.height)), [4]);
  sync.committed(8);
  await sync.settled();
  sync.committed(height);
  await sync.settled();
  assert.deepEqual((await sync.list()).snapshots.map((s) => Number(s.height)), [12, 8]);
  // One the node's stop interrupts is not kept.
  const elsewhere = mkdtempSync(join(tmpdir(), "ledgerd-snapshots-stopped-"));
  const stopped = new SnapshotSync({ intervalBlocks: 4, keep: 2, chainId: "verify" }, { files: new SnapshotFiles(elsewhere), store: source.store, ledger: source.ledger, genesis: async () => genesis, headerStore: source.store });
  stopped.committed(height);
  await stopped.close();
  assert.deepEqual((await stopped.list()).snapshots, []);
  rmSync(elsewhere, { recursive: true, force: true });
});

after(async () => {
  await source.close();
  rmSync(served, { recursive: true, force: true });
});

/** A copy of the served snapshot of `height`, to spoil. */
function copyOfSnapshot(): string {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-snapshot-copy-"));
  cpSync(join(served, String(height)), join(dir, String(height)), { recursive: true });
  return dir;
}

/** The snapshot of `at` (`height` unless named) in `dir` as CometBFT offers it. */
async function offered(dir: string, at = height): Promise<Snapshot> {
  const kept = (await new SnapshotFiles(dir).list()).find((s) => s.height === at)!;
  return { ...kept, height: BigInt(kept.height) };
}

/** An empty ledger with its own SnapshotSync, as a joining node has them. */
async function joiner(): Promise<{ fixture: LedgerFixture; sync: SnapshotSync; close: () => Promise<void> }> {
  const fixture = await openLedger();
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-joiner-"));
  const sync = new SnapshotSync({ intervalBlocks: 0, keep: 2, chainId: "verify" }, { files: new SnapshotFiles(dir), store: fixture.store, ledger: fixture.ledger, genesis: async () => genesis, headerStore: fixture.store, logger });
  return { fixture, sync, close: async () => { await fixture.close(); rmSync(dir, { recursive: true, force: true }); } };
}

const trustedAppHash = async (at = height): Promise<Uint8Array> => Buffer.from((await source.store.getBlockHead(at))!.appHash, "hex");

/** Every chunk of the snapshot of `at` in `dir`, applied in order; the last answer. */
async function applyAll(sync: SnapshotSync, dir: string, at = height): Promise<Apply> {
  const chunks = readSnapshotMetadata(join(dir, String(at))).chunks.length;
  let result = Apply.UNKNOWN;
  for (let index = 0; index < chunks; index++) {
    const chunk = readFileSync(join(dir, String(at), `${index}.chunk`));
    result = (await sync.apply({ index, chunk, sender: "peer-a" })).result;
  }
  return result;
}

/** The same answers from both stores, for every read a restored node must give as the source does. */
async function assertSameLedger(a: Store, b: Store): Promise<void> {
  assert.deepEqual(await b.getChainState(), await a.getChainState());
  assert.deepEqual(await b.getElections([electionId]), await a.getElections([electionId]));
  assert.equal((await b.getElections([electionId])).get(electionId)?.concludedAt, 10);
  for (let h = 1; h <= height; h++) {
    const contents = await a.getBlockContents(h);
    assert.deepEqual(await b.getBlockContents(h), contents);
    assert.deepEqual(await b.getBlock(h), await a.getBlock(h));
    assert.deepEqual(await b.getValidatorSet(h), await a.getValidatorSet(h));
    for (const tx of contents!.txs) {
      if (tx.kind === "v2") assert.equal(await b.getTransaction(tx.id), await a.getTransaction(tx.id));
      else assert.equal(await b.getLegacyTransaction(tx.id), await a.getLegacyTransaction(tx.id));
    }
  }
  const all = async (batches: AsyncIterable<readonly unknown[]>): Promise<unknown[]> => {
    const items: unknown[] = [];
    for await (const batch of batches) items.push(...batch);
    return items;
  };
  const key = (await a.getBlockContents(1))!.txs[0]!.json.match(/"public_keys":\["([^"]+)"/)![1]!;
  assert.deepEqual(await all(b.streamOutputEntries(key, undefined)), await all(a.streamOutputEntries(key, undefined)));
  assert.deepEqual(await all(b.streamBalances(key, undefined)), await all(a.streamBalances(key, undefined)));
  assert.deepEqual(await all(b.streamSearchMetadata("tamper", undefined)), await all(a.streamSearchMetadata("tamper", undefined)));
  assert.deepEqual(await all(b.streamSearchAssets("note", undefined)), await all(a.streamSearchAssets("note", undefined)));
}

/**
 * After the mixed ledger's 8 blocks: at 9 an election of a newcomer (power 1) by the one
 * validator, at 10 its vote, which concludes it (the set changes from 11), CREATEs at 11 and 12.
 */
async function writeElection(store: Store): Promise<void> {
  const node = keypairOf("verify-node");
  const ledger = await LedgerApp.open({}, { store, pool: new PreparePool({ ...preparePoolOptionsDefault, threads: 0 }) });
  const unsigned = makeValidatorElection({
    proposer: node.publicKey,
    voters: [{ publicKey: node.publicKey, power: 10 }],
    validatorKeyBase64: Buffer.from(hexKey(keypairOf("newcomer").publicKey), "hex").toString("base64"),
    power: 1,
    nodeId: "0".repeat(40),
    seed: "snapshot-election",
  });
  const election = signTx(unsigned, [node]);
  electionId = election["id"] as string;
  const blocks = [[election], [signTx(makeVote(election, node.publicKey), [node])], [create(node, 1n, { at: 11 })], [create(node, 1n, { at: 12 })]];
  for (const txs of blocks) {
    const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs.map(bytesOf));
    assert.ok(finalized.results.every((r) => r === null), JSON.stringify(finalized.results));
    await ledger.commit();
  }
  assert.equal((await store.getValidators(11)).length, 2, "the election concluded");
}

let electionId = "";

describe("state sync through ABCI", () => {
  it("refuses at OfferSnapshot what cannot restore this node's chain, each with its reason", async () => {
    const node = await joiner();
    try {
      const appHash = await trustedAppHash();
      const snapshot = await offered(served);
      const spoiled = (change: (m: SnapshotMetadata) => SnapshotMetadata): Snapshot => {
        const metadata = encodeMetadata(change(readSnapshotMetadata(join(served, String(height)))));
        return { ...snapshot, metadata, hash: snapshotHash(metadata) };
      };
      const cases: [string, Snapshot, Uint8Array, Offer, RegExp][] = [
        ["a format this release does not restore", { ...snapshot, format: 3 }, appHash, Offer.REJECT_FORMAT, /format 3; this node restores formats 1, 2/],
        ["a hash that is not its metadata's", { ...snapshot, hash: new Uint8Array(32) }, appHash, Offer.REJECT, /does not hash to its hash/],
        ["another chain", spoiled((m) => ({ ...m, chain_id: "other" })), appHash, Offer.REJECT, /of chain other; this node's is verify/],
        ["BigchainDB's rule", spoiled((m) => ({ ...m, commitment: "bigchaindb" })), appHash, Offer.REJECT, /BigchainDB's app hash rule/],
        ["a protocol version this release does not run", spoiled((m) => ({ ...m, app_version: "99" })), appHash, Offer.REJECT, /runs protocol version 99 after height \d+; this release runs up to 1/],
        ["another app hash than the light client's", snapshot, new Uint8Array(32), Offer.REJECT, /light client verified 0000/],
        ["another first validator set", spoiled((m) => ({ ...m, validators: [{ publicKey: "cd".repeat(32), power: 10 }] })), appHash, Offer.REJECT, /not this node's genesis's/],
        ["another chunk count", { ...snapshot, chunks: 2 }, appHash, Offer.REJECT, /lists 1 chunks, the snapshot 2/],
      ];
      for (const [what, offer, hash, result, reason] of cases) {
        warnings.length = 0;
        assert.equal((await node.sync.offer({ snapshot: offer, appHash: hash })).result, result, what);
        assert.match(warnings.join("\n"), reason, what);
      }
      assert.equal(node.fixture.ledger.info().height, 0);
    } finally {
      await node.close();
    }
  });

  it("lists a kept snapshot under the format it was taken in, one of the release before as format 1, and serves its chunks for that format only", async () => {
    const dir = copyOfSnapshot();
    try {
      const sync = new SnapshotSync({ intervalBlocks: 4, keep: 2, chainId: "verify" }, { files: new SnapshotFiles(dir), store: source.store, ledger: source.ledger, genesis: async () => genesis, headerStore: source.store });
      const load = async (format: number) => (await sync.load({ height: BigInt(height), format, chunk: 0 })).chunk.length > 0;
      assert.deepEqual((await sync.list()).snapshots.map((s) => s.format), [snapshotFormat]);
      assert.deepEqual([await load(1), await load(snapshotFormat)], [false, true]);
      rmSync(join(dir, String(height), "format"));
      assert.deepEqual((await sync.list()).snapshots.map((s) => s.format), [1]);
      assert.deepEqual([await load(1), await load(snapshotFormat)], [true, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fetches a chunk that does not hash to the metadata again, refusing its sender; then restores a ledger that reads as the source", async () => {
    const node = await joiner();
    const bad = copyOfSnapshot();
    try {
      corruptChunk(join(bad, String(height)));
      assert.equal((await node.sync.offer({ snapshot: await offered(served), appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      const refused = await node.sync.apply({ index: 0, chunk: readFileSync(join(bad, String(height), "0.chunk")), sender: "peer-a" });
      assert.deepEqual(refused, { result: Apply.RETRY, refetchChunks: [0], rejectSenders: ["peer-a"] });
      assert.equal(node.fixture.ledger.info().height, 0);
      assert.equal(await applyAll(node.sync, served), Apply.ACCEPT);
      // The restored chain runs the source's protocol version (what CometBFT compares after a restore).
      const appVersion = source.ledger.protocolVersionAt(height + 1);
      assert.deepEqual(node.fixture.ledger.info(), { height, appHash: Buffer.from(await trustedAppHash()).toString("hex"), appVersion });
      const report = await verifyChain(node.fixture.store);
      assert.equal(report.fault, null, JSON.stringify(report.fault));
      await assertSameLedger(source.store, node.fixture.store);
    } finally {
      await node.close();
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it("refuses a forged ledger that does not give the trusted app hash, writing nothing, and restores a sound snapshot after it", async () => {
    const node = await joiner();
    const forged = copyOfSnapshot();
    try {
      await forgeLedger(join(forged, String(height)));
      assert.equal((await node.sync.offer({ snapshot: await offered(forged), appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      warnings.length = 0;
      assert.equal(await applyAll(node.sync, forged), Apply.REJECT_SNAPSHOT);
      assert.match(warnings.join("\n"), /recomputed from its transactions, the light client verified/);
      assert.equal(node.fixture.ledger.info().height, 0);
      assert.equal((await node.fixture.store.getChainState()).chainId, null);
      // The next snapshot CometBFT offers restores on the same, still empty, ledger.
      assert.equal((await node.sync.offer({ snapshot: await offered(served), appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      assert.equal(await applyAll(node.sync, served), Apply.ACCEPT);
      await assertSameLedger(source.store, node.fixture.store);
    } finally {
      await node.close();
      rmSync(forged, { recursive: true, force: true });
    }
  });

  it("refuses a snapshot whose blocks do not hold together, at the chunk, and a ledger that is not empty", async () => {
    const node = await joiner();
    const edited = copyOfSnapshot();
    try {
      editMetadata(join(edited, String(height)), (m) => ({ ...m, txs: m.txs + 1 }));
      assert.equal((await node.sync.offer({ snapshot: await offered(edited), appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      warnings.length = 0;
      assert.equal(await applyAll(node.sync, edited), Apply.REJECT_SNAPSHOT);
      assert.match(warnings.join("\n"), /the metadata says/);
      assert.equal(await applyAll(node.sync, served), Apply.ABORT, "no chunk without an accepted snapshot");
      await node.fixture.ledger.initChain("another-chain", genesis.validators);
      warnings.length = 0;
      assert.equal((await node.sync.offer({ snapshot: await offered(served), appHash: await trustedAppHash() })).result, Offer.ABORT);
      assert.match(warnings.join("\n"), /not empty/);
    } finally {
      await node.close();
      rmSync(edited, { recursive: true, force: true });
    }
  });

  it("resumes a restore a stop left (the blocks it wrote kept), and refuses to resume over a ledger of another history or under other rules", async () => {
    const node = await joiner();
    const other = await joiner();
    try {
      // The restore of 8 blocks stands for one stopped there: the snapshot of 12 goes on from it.
      assert.equal((await node.sync.offer({ snapshot: await offered(served, 8), appHash: await trustedAppHash(8) })).result, Offer.ACCEPT);
      assert.equal(await applyAll(node.sync, served, 8), Apply.ACCEPT);
      const files = mkdtempSync(join(tmpdir(), "ledgerd-joiner-again-"));
      const again = new SnapshotSync({ intervalBlocks: 0, keep: 2, chainId: "verify" }, { files: new SnapshotFiles(files), store: node.fixture.store, ledger: node.fixture.ledger, genesis: async () => genesis, headerStore: node.fixture.store, logger });
      // The rules are outside the app hash: the same chain's snapshot claiming another genesis
      // version (or rule heights) than the stopped restore began with does not resume it.
      const honest = await offered(served);
      const otherRules = readSnapshotMetadata(join(served, String(height)));
      const claimed = encodeMetadata({ ...otherRules, app_version: otherRules.app_version === "0" ? "1" : "0" });
      warnings.length = 0;
      assert.equal((await again.offer({ snapshot: { ...honest, metadata: claimed, hash: snapshotHash(claimed) }, appHash: await trustedAppHash() })).result, Offer.ABORT);
      assert.match(warnings.join("\n"), /began under other rules/);
      assert.equal((await again.offer({ snapshot: honest, appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      assert.equal(await applyAll(again, served), Apply.ACCEPT);
      rmSync(files, { recursive: true, force: true });
      await assertSameLedger(source.store, node.fixture.store);
      // A block of its own at height 1: the snapshot's chain does not pass through it.
      await other.fixture.ledger.initChain("verify", genesis.validators);
      await other.fixture.ledger.finalizeBlock(1, [bytesOf(create(keypairOf("not-the-chain's")))]);
      await other.fixture.ledger.commit();
      assert.equal((await other.sync.offer({ snapshot: await offered(served), appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      warnings.length = 0;
      assert.equal(await applyAll(other.sync, served), Apply.REJECT_SNAPSHOT);
      assert.match(warnings.join("\n"), /another history/);
      assert.equal(other.fixture.ledger.info().height, 1);
    } finally {
      await node.close();
      await other.close();
    }
  });

  it("reports the restore's own error when ending the bulk load after it fails too", async () => {
    const node = await joiner();
    try {
      const metadata = readSnapshotMetadata(join(served, String(height)));
      const store = node.fixture.store;
      const headers = {
        store: {
          getValidators: (h: number) => store.getValidators(h),
          putSignedHeaders: (list: Parameters<Store["putSignedHeaders"]>[0]) => store.putSignedHeaders(list),
          beginBulkLoad: () => store.beginBulkLoad(),
          endBulkLoad: async () => { await store.endBulkLoad(); throw new Error("the bulk load's end failed"); },
        },
        onRefused: () => undefined,
      };
      const chunks = (async function* () { yield readFileSync(join(served, String(height), "0.chunk")); throw new Error("the chunk's file cannot be read"); })();
      await assert.rejects(restoreSnapshot(node.fixture.ledger, metadata, chunks, headers), /the chunk's file cannot be read/);
    } finally {
      await node.close();
    }
  });

  it("prepares a restore's transactions without checking signatures, and only a restore's: a CheckTx still refuses the same bytes", async () => {
    // A CREATE carrying another transaction's signature, its id recomputed: only the signature fails.
    const signed = create(keypairOf("snapshot-owner"), 1n, { signature: "swapped" });
    const other = create(keypairOf("snapshot-owner"), 1n, { signature: "other" });
    const inputs = signed["inputs"] as JsonObject[];
    const swapped: JsonObject = { ...signed, inputs: [{ ...inputs[0]!, fulfillment: (other["inputs"] as JsonObject[])[0]!["fulfillment"]! }] };
    const forged = { ...swapped, id: computeTxId(swapped, "python") };
    const bytes = Buffer.from(writeJson(forged));
    const restored = prepareBytes(bytes, restoredDoor) as { signaturesValid?: boolean };
    assert.equal(restored.signaturesValid, true);
    assert.equal((prepareBytes(bytes) as { signaturesValid?: boolean }).signaturesValid, false);
    const node = await joiner();
    try {
      await node.fixture.ledger.initChain("verify", genesis.validators);
      assert.equal((node.fixture.ledger.prepareRestored(bytes.toString("utf8")) as { signaturesValid?: boolean }).signaturesValid, true);
      const checked = await node.fixture.ledger.checkTx(bytes);
      assert.equal(checked.ok, false);
    } finally {
      await node.close();
    }
  });

  it("prepares a restored transaction as a replay does without hashing its id again, and restores only the chunks the first pass checked", async () => {
    const owner = keypairOf("snapshot-forms");
    const plain = create(owner, 1n);
    // A control character with a hex letter: the two canonical forms differ, the id names one.
    const escaped = create(owner, 1n, { note: "a\u001f" });
    // Outputs of one key (their URI and key taken as the body states them) and of two (a
    // threshold condition, derived as a replay derives it).
    const split = transfer([{ tx: create(owner, 2n), outputIndex: 0 }], [owner], [
      { publicKeys: [keypairOf("snapshot-heir").publicKey], amount: 1n },
      { publicKeys: [owner.publicKey, keypairOf("snapshot-heir").publicKey], amount: 1n },
    ]);
    const cases = [
      { tx: plain, form: "python" },
      { tx: split, form: "python" },
      { tx: { ...escaped, id: computeTxId(escaped, "python") }, form: "python" },
      { tx: { ...escaped, id: computeTxId(escaped, "js") }, form: "js" },
    ];
    for (const { tx, form } of cases) {
      const bytes = Buffer.from(writeJson(tx));
      const { signaturesValid: _restored, ...restored } = prepareBytes(bytes, restoredDoor) as { signaturesValid?: boolean; form?: string };
      const { signaturesValid: _replayed, ...replayed } = prepareBytes(bytes) as { signaturesValid?: boolean; form?: string };
      assert.deepEqual(restored, replayed);
      assert.equal(restored.form, form);
    }
    const node = await joiner();
    try {
      const metadata = readSnapshotMetadata(join(served, String(height)));
      // The same lines in other bytes: not what the first pass hashed its ids from.
      const recompressed = gzipSync(gunzipSync(readFileSync(join(served, String(height), "0.chunk"))));
      const chunks = (async function* () { yield recompressed; })();
      await assert.rejects(restoreSnapshot(node.fixture.ledger, metadata, chunks, { store: node.fixture.store, onRefused: () => undefined }), /chunk 0 is not the one the first pass checked/);
      assert.equal(node.fixture.ledger.info().height, 0);
    } finally {
      await node.close();
    }
  });

  it("keeps the snapshot's signed headers, each checked against the set that signed it, reading the set once and following the election's change", async () => {
    const validatorOf = (name: string, power: bigint): SyntheticValidator => {
      const keypair = keypairOf(name);
      return { secretKey: keypair.seed, publicKey: decodeBase58(keypair.publicKey), power };
    };
    const node = validatorOf("verify-node", 10n);
    const newcomer = validatorOf("newcomer", 1n);
    // CometBFT's set at h + 1 is the ledger's at h: the newcomer signs from the header of 12.
    const setAt = (h: number): SyntheticValidator[] => (h >= 12 ? [node, newcomer] : [node]);
    const signedHeader = async (h: number): Promise<string> => {
      const appHash = (await source.store.getBlockHead(h - 1))!.appHash;
      return JSON.stringify(syntheticSignedHeader({ height: h, set: setAt(h), next: setAt(h + 1), appHash, chainId: "verify" }));
    };
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-snapshots-headers-"));
    const taker = new SnapshotSync({ intervalBlocks: 4, keep: 1, chainId: "verify" }, { files: new SnapshotFiles(dir), store: source.store, ledger: source.ledger, genesis: async () => genesis, headerStore: source.store, signedHeader });
    const joining = await joiner();
    try {
      taker.committed(height);
      await taker.settled();
      const metadata = readSnapshotMetadata(join(dir, String(height)));
      const chunks = (async function* () { for (let i = 0; i < metadata.chunks.length; i++) yield readFileSync(join(dir, String(height), `${i}.chunk`)); })();
      const store = joining.fixture.store;
      const setsRead: number[] = [];
      const refused: string[] = [];
      const headers = {
        store: {
          getValidators: (h?: number) => (setsRead.push(h!), store.getValidators(h)),
          putSignedHeaders: (list: Parameters<Store["putSignedHeaders"]>[0]) => store.putSignedHeaders(list),
          beginBulkLoad: () => store.beginBulkLoad(),
          endBulkLoad: () => store.endBulkLoad(),
        },
        onRefused: (at: number, reason: string) => void refused.push(`${at}: ${reason}`),
      };
      await restoreSnapshot(joining.fixture.ledger, metadata, chunks, headers);
      assert.deepEqual(refused, []);
      for (let h = 2; h <= height; h++) assert.equal(await store.getSignedHeader(h), await signedHeader(h), `the header of ${h}`);
      // Once at the first header; the election's change came with block 10 (was: once per header).
      assert.deepEqual(setsRead, [1]);
    } finally {
      await taker.close();
      await joining.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("restores into PostgreSQL too, through its own block writer, reading as the SQLite source", async () => {
    const server = await startPostgres();
    const store = await PostgresStore.open({ url: await server.newDatabase() });
    const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-joiner-pg-"));
    try {
      const ledger = await LedgerApp.open({}, { store, pool });
      const sync = new SnapshotSync({ intervalBlocks: 0, keep: 2, chainId: "verify" }, { files: new SnapshotFiles(dir), store, ledger, genesis: async () => genesis, headerStore: store, logger });
      assert.equal((await sync.offer({ snapshot: await offered(served), appHash: await trustedAppHash() })).result, Offer.ACCEPT);
      assert.equal(await applyAll(sync, served), Apply.ACCEPT);
      const report = await verifyChain(store);
      assert.equal(report.fault, null, JSON.stringify(report.fault));
      await assertSameLedger(source.store, store);
    } finally {
      await pool.close();
      await store.close();
      server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
