// The long answers of the SQLite store, read in batches (Batches): bounded batches, an answer
// as of the read's start while the writer commits and merges index slices between batches,
// and the search work budget.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { batchCharsMax, batchRowsMax } from "../../../src/store/sqlite/limits.js";
import { rankSql } from "../../../src/store/sqlite/queries.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Batches, Store } from "../../../src/store/store.js";
import type { CommittedTx, OutputRef } from "../../../src/transaction/committed.js";
import { block, createTx, publicKey, ref, transferTx } from "./fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-batches-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

async function collect<T>(batches: Batches<T>): Promise<T[][]> {
  const all: T[][] = [];
  for await (const batch of batches) all.push([...batch]);
  return all;
}

/** `count` CREATEs, each with one output to `key`, in blocks of 500 from `height`. */
async function fillKey(store: Store, key: string, count: number, height: number, label: string) {
  const txs: CommittedTx[] = [];
  for (let i = 0; i < count; i++) txs.push(createTx({ label: `${label}:${i}`, outputs: [{ keys: [key] }] }));
  for (let i = 0; i < txs.length; i += 500) await store.commitBlock(block(height++, txs.slice(i, i + 500)));
  return { txs, height };
}

describe("sqlite long reads in batches", () => {
  it("a batch holds at most batchRowsMax rows, and stops once past batchCharsMax", async () => {
    const store = SqliteStore.open({ path: freshPath() });
    const key = publicKey("many");
    const { height } = await fillKey(store, key, 2 * batchRowsMax + 7, 1, "many");
    const outputBatches = await collect(store.streamOutputsByPublicKey(key));
    assert.deepEqual(outputBatches.map((b) => b.length), [batchRowsMax, batchRowsMax, 7]);
    // A chain of TRANSFERs of ~100 KB each: a few to a batch.
    const asset = createTx({ label: "big" });
    let last = asset;
    const transfers: CommittedTx[] = [];
    for (let i = 0; i < 12; i++) {
      const metadata = { pad: "x".repeat(100_000), i };
      last = transferTx({ label: `big:${i}`, assetId: asset.id, spends: [ref(last, 0)], metadata });
      transfers.push(last);
    }
    await store.commitBlock(block(height, [asset, ...transfers]));
    const txBatches = await collect(store.streamTransactionsByAsset(asset.id));
    assert.ok(txBatches.length > 1, "more than one batch");
    for (const batch of txBatches) {
      const chars = batch.reduce((n, json) => n + json.length, 0);
      assert.ok(chars < batchCharsMax + 110_000, `a batch of ${chars} characters`);
    }
    assert.deepEqual(txBatches.flat(), [asset.json, ...transfers.map((t) => t.json)]);
    const blockBatches = await collect((await store.streamBlockTransactions(height))!);
    assert.ok(blockBatches.length > 1);
    assert.deepEqual(blockBatches.flat(), [asset.json, ...transfers.map((t) => t.json)]);
    await store.close();
  });

  for (const split of [false, true]) {
    it(`answers as of its start while blocks commit and index slices merge between batches${split ? " (a reader beside its writer)" : ""}`, async () => {
      const path = freshPath();
      // Small slices and a low waiting cap: every commit merges, so rows move to the tables mid-read.
      const writer = SqliteStore.open({ path, indexSlices: 4, indexRowsWaitingMax: 100, access: "readers" });
      const reader = split ? SqliteStore.open({ path, access: "reader" }) : writer;
      const key = publicKey("moving");
      const first = await fillKey(writer, key, 2_600, 1, "moving");
      const expected = await wholeOf(reader).getOutputsByPublicKey(key);
      const expectedUnspent = await wholeOf(reader).getOutputsByPublicKey(key, false);
      assert.equal(expected.length, 2_600);
      const all = reader.streamOutputsByPublicKey(key);
      const unspent = reader.streamOutputsByPublicKey(key, false);
      const got: OutputRef[] = [...((await all.next()).value as OutputRef[])];
      const gotUnspent: OutputRef[] = [...((await unspent.next()).value as OutputRef[])];
      // Between batches: new outputs of the key, and spends of outputs not yet read.
      let height = first.height;
      for (let i = 0; i < 5; i++) {
        const spends = [ref(first.txs[2_000 + i]!, 0)];
        const spender = transferTx({ label: `spend:${i}`, assetId: first.txs[2_000 + i]!.id, spends });
        await writer.commitBlock(block(height++, [spender]));
        height = (await fillKey(writer, key, 300, height, `more:${i}`)).height;
      }
      for await (const batch of all) got.push(...batch);
      for await (const batch of unspent) gotUnspent.push(...batch);
      assert.deepEqual(got, expected);
      assert.deepEqual(gotUnspent, expectedUnspent);
      assert.equal((await wholeOf(reader).getOutputsByPublicKey(key)).length, 2_600 + 5 * 300);
      if (split) await reader.close();
      await writer.close();
    });
  }

  it("ranks only the newest searchRankedMatchesMax matches", async () => {
    const store = SqliteStore.open({ path: freshPath(), searchRankedMatchesMax: 5 });
    // Older assets match better (the word twice in a short text), so a full ranking would pick them.
    const txs = [
      createTx({ label: "r0", data: { a: "zebra zebra" } }),
      createTx({ label: "r1", data: { a: "zebra zebra" } }),
      createTx({ label: "r2", data: { a: "zebra", b: "one two three four" } }),
      createTx({ label: "r3", data: { a: "zebra", b: "one two three" } }),
      createTx({ label: "r4", data: { a: "zebra", b: "one two" } }),
      createTx({ label: "r5", data: { a: "zebra", b: "one" } }),
      createTx({ label: "r6", data: { a: "zebra" } }),
    ];
    await store.commitBlock(block(1, txs));
    const ids = async (limit: number) => (await wholeOf(store).searchAssets("zebra", limit)).map((h) => h.id);
    const newest = txs.slice(2).map((tx) => tx.id);
    assert.deepEqual(new Set(await ids(5)), new Set(newest));
    assert.deepEqual(await ids(1), [txs[6]!.id]); // the shortest text of the five
    // Asked for all, it would have to cut the seven to five: refused instead, with a reason.
    await assert.rejects(ids(0), { code: "SearchTooBroad", message: /more than 5 transactions/ });
    const narrow = (await wholeOf(store).searchAssets("zebra -one", 0)).map((h) => h.id);
    assert.deepEqual(new Set(narrow), new Set([txs[0]!.id, txs[1]!.id, txs[6]!.id]));
    const unbounded = SqliteStore.open({ path: freshPath() });
    await unbounded.commitBlock(block(1, txs));
    assert.ok([txs[0]!.id, txs[1]!.id].includes((await wholeOf(unbounded).searchAssets("zebra", 1))[0]!.id));
    await unbounded.close();
    await store.close();
  });

  it("search ranking reads the FTS5 table only, in rowid order, with no table scan", async () => {
    const store = SqliteStore.open({ path: freshPath() });
    for (const sql of Object.values(rankSql)) {
      // The paged forms (`...UpTo`) take a snapshot after the MATCH and an offset at the end.
      const parameters = sql.includes("OFFSET") ? ['"x"', 5, 10, 10, 0] : ['"x"', 10, 10];
      const plan = store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[];
      for (const { detail } of plan) {
        assert.ok(!/^SCAN (?!.*VIRTUAL TABLE)/.test(detail) || detail.startsWith("SCAN ("), detail);
        assert.ok(!/^SEARCH|JOIN/.test(detail), `ranking joins: ${detail}`);
      }
    }
    await store.close();
  });
});
