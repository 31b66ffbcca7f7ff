// A state-synced ledger answers the legacy interfaces as a replaying one does (issue #39): the
// legacy transactions a block carried and execution refused (status `invalid`,
// docs/compatibility.md #16) are outside the app hash, so a format 2 snapshot carries them and
// the restore executes them again where their block carried them. Real SQLite files: a chain
// committed block by block (what a replaying node holds), its snapshot restored into a fresh
// ledger, the two compared id by id; then a snapshot that claims a refusal the rules do not
// make, and one of format 1.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ChunkLines, chunkHash, SnapshotChunker, type SnapshotLine, type SnapshotMetadata } from "../../../src/ledger/snapshotFormat.js";
import { takeSnapshot } from "../../../src/ledger/snapshotTake.js";
import { restoreSnapshot } from "../../../src/ledger/snapshotRestore.js";
import type { LegacyTx } from "../../../src/legacy/types.js";
import { hexKey, idOf, legacyBytes, legacyCreate, legacyTransfer } from "../../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { openLedger, type LedgerFixture } from "../engine-cometbft/ledgerFixture.js";

const node = keypairOf("snapshot refused node");
const [alice, bob, carol] = ["alice", "bob", "carol"].map(keypairOf) as [ReturnType<typeof keypairOf>, ReturnType<typeof keypairOf>, ReturnType<typeof keypairOf>];
const validators = [{ publicKey: hexKey(node.publicKey), power: 10 }];

const a = legacyCreate("A", node, [alice.publicKey]);
const first = legacyTransfer("B", [{ tx: a, cid: 0 }], [bob.publicKey], [alice]);
const second = legacyTransfer("A", [{ tx: a, cid: 0 }], [carol.publicKey], [alice]);
const orphan = legacyTransfer("A", [{ tx: first, cid: 0 }], [alice.publicKey], [bob]);
// Refused where its block carried it (before `orphan`); after `orphan` it would be valid.
const grandchild = legacyTransfer("B", [{ tx: orphan, cid: 0 }], [bob.publicKey], [alice]);
const ids = [a, first, second, orphan, grandchild].map(idOf);

let source: LedgerFixture;
let snapshot: { metadata: SnapshotMetadata; chunks: Buffer[] };

async function block(ledger: LedgerFixture["ledger"], txs: readonly Uint8Array[]): Promise<(string | null)[]> {
  const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs);
  await ledger.commit();
  return finalized.results.map((r) => r?.code ?? null);
}

before(async () => {
  source = await openLedger();
  await source.ledger.initChain("refused-chain", validators, "v1");
  assert.deepEqual(await block(source.ledger, [legacyBytes(a)]), [null]);
  assert.deepEqual(await block(source.ledger, [bytesOf(create(alice)), legacyBytes(first), legacyBytes(second)]), [null, null, "DoubleSpend"]);
  assert.deepEqual(await block(source.ledger, [legacyBytes(grandchild), legacyBytes(orphan)]), ["InputDoesNotExist", null]);
  // Refused again in a later block: the latest refusal is the one answered.
  assert.deepEqual(await block(source.ledger, [legacyBytes(second)]), ["DoubleSpend"]);
  snapshot = await snapshotOf(source, 4);
});

after(() => source.close());

async function snapshotOf(fixture: LedgerFixture, height: number): Promise<{ metadata: SnapshotMetadata; chunks: Buffer[] }> {
  const chunks: Buffer[] = [];
  const metadata = await takeSnapshot(fixture.store, height, async (_index, chunk) => void chunks.push(chunk));
  return { metadata, chunks };
}

/** A restore of `taken` into a fresh ledger; the ids a `refused` entry named that the rules let pass. */
async function restored(taken: { metadata: SnapshotMetadata; chunks: Buffer[] }, format?: number): Promise<{ target: LedgerFixture; notRefused: string[] }> {
  const target = await openLedger();
  const notRefused: string[] = [];
  const headers = { store: target.store, onRefused: () => undefined, onNotRefused: (_height: number, id: string) => void notRefused.push(id) };
  await restoreSnapshot(target.ledger, taken.metadata, (async function* () { yield* taken.chunks; })(), headers, format);
  return { target, notRefused };
}

/** What the legacy interfaces answer of each id: its record (`valid`/`invalid`, code, message) and its body. */
async function legacyAnswers(fixture: LedgerFixture, of: readonly string[]) {
  return Promise.all(of.map(async (id) => ({ id, record: await fixture.store.getLegacyRecord(id), json: await fixture.store.getLegacyTransaction(id) })));
}

/** The snapshot's lines, changed by `change`, cut into chunks again (the metadata's hashes made to match). */
async function rewritten(taken: { metadata: SnapshotMetadata; chunks: Buffer[] }, change: (line: SnapshotLine) => SnapshotLine) {
  const reader = new ChunkLines();
  const chunks: Buffer[] = [];
  const chunker = new SnapshotChunker(async (chunk) => void chunks.push(chunk));
  for (const chunk of taken.chunks) {
    const texts = reader.push(chunk) as string[];
    for (const text of texts) await chunker.add(JSON.stringify(change(JSON.parse(text) as SnapshotLine)));
  }
  await chunker.end();
  return { metadata: { ...taken.metadata, chunks: chunks.map(chunkHash) }, chunks };
}

describe("a state-synced ledger and the legacy transactions blocks refused", () => {
  it("a snapshot carries them, and the restored ledger answers each id as the ledger that executed the blocks", async () => {
    const lines = await rewritten(snapshot, (line) => line);
    assert.deepEqual(lines.chunks.map(chunkHash), snapshot.metadata.chunks, "the lines read back as they were written");
    const { target, notRefused } = await restored(snapshot);
    try {
      assert.deepEqual(notRefused, []);
      assert.deepEqual(target.ledger.info(), source.ledger.info());
      const answers = await legacyAnswers(target, ids);
      assert.deepEqual(answers, await legacyAnswers(source, ids));
      const record = (tx: LegacyTx) => answers.find((answer) => answer.id === idOf(tx))?.record;
      assert.deepEqual([record(second)?.status, record(second)?.height], ["invalid", 4]);
      assert.deepEqual([record(grandchild)?.status, record(grandchild)?.height], ["invalid", 3]);
      // And what a snapshot of the restored ledger carries is what the source's did.
      assert.deepEqual((await snapshotOf(target, 4)).chunks, snapshot.chunks);
    } finally {
      await target.close();
    }
  });

  it("a refusal the snapshot claims and the rules do not make is left out: the block is restored as its app hash says", async () => {
    // A transaction the federation signed, which no block carried and which would pass.
    const stranger = legacyCreate("B", node, [carol.publicKey]);
    const forged = await rewritten(snapshot, (line) => (line.height === 2 ? { ...line, refused: [{ at: 0, tx: legacyBytes(stranger).toString() }, ...(line.refused ?? [])] } : line));
    const { target, notRefused } = await restored(forged);
    try {
      assert.deepEqual(notRefused, [idOf(stranger)]);
      assert.deepEqual(target.ledger.info(), source.ledger.info());
      assert.deepEqual(await legacyAnswers(target, [...ids, idOf(stranger)]), await legacyAnswers(source, [...ids, idOf(stranger)]));
    } finally {
      await target.close();
    }
  });

  it("a snapshot of format 1 (no refused transactions) still restores, to the same app hash", async () => {
    const formatOne = await rewritten(snapshot, ({ refused: _refused, ...line }) => line);
    const { target } = await restored(formatOne, 1);
    try {
      assert.deepEqual(target.ledger.info(), source.ledger.info());
      assert.deepEqual((await legacyAnswers(target, [idOf(second)]))[0]?.record, null, "format 1 carries no refusal");
    } finally {
      await target.close();
    }
  });
});
