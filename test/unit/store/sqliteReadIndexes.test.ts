// A SQLite store without its read indexes (src/store/sqlite/readIndexes.ts, `readIndexes: false`,
// database.read_indexes): no text or field rows written, searches and queries by field refused
// with ReadIndexesOff instead of answered from a partial index, verify-chain's check still
// clean, and the rows written at the next open with them back on.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { BlockWrite, Store } from "../../../src/store/store.js";
import { block, createTx } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-read-indexes-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

async function all<T>(batches: AsyncIterable<readonly T[]>): Promise<T[]> {
  const items: T[] = [];
  for await (const batch of batches) items.push(...batch);
  return items;
}

const searched = async (store: Store, word: string) => (await all(store.streamSearchAssets(word, 10))).map((hit) => hit.id);
const byField = async (store: Store, serial: string) => (await all(store.streamFieldMatches("assets", [{ path: ["serial"], value: serial }]))).map((hit) => hit.id);
const byMetadata = async (store: Store, word: string) => (await all(store.streamSearchMetadata(word, 10))).map((hit) => hit.id);

function readIndexesOff(error: unknown): boolean {
  return error instanceof LedgerError && error.code === "ReadIndexesOff";
}

/** Rows of the read indexes in the file. */
function readIndexRows(path: string): { text: number; fields: number } {
  const db = new Database(path, { readonly: true });
  try {
    const text = db.prepare("SELECT (SELECT count(*) FROM assets_fts_docsize) + (SELECT count(*) FROM metadata_fts_docsize)").pluck().get() as number;
    const fields = db.prepare("SELECT count(*) FROM field_index").pluck().get() as number;
    return { text, fields };
  } finally {
    db.close();
  }
}

async function derivedClean(store: Store, blocks: readonly BlockWrite[]): Promise<void> {
  const check = await store.openDerivedCheck(1);
  try {
    for (const b of blocks) assert.equal(await check.block(b), null);
    assert.equal(await check.finish(), null);
  } finally {
    await check.close();
  }
}

const a = createTx({ label: "a", data: { serial: "S1", name: "sailboat" }, metadata: { note: "harbour" } });
const b = createTx({ label: "b", data: { serial: "S2", name: "sailboat" }, metadata: { note: "harbour" } });

describe("sqlite store without read indexes", () => {
  it("writes no text or field rows, refuses searches and field queries, and serves every other read", async () => {
    const path = freshPath();
    // `readers`: the node's own access, which lets the file be read beside it.
    const store = SqliteStore.open({ path, readIndexes: false, access: "readers" });
    const blocks = [block(1, [a]), block(2, [b])];
    for (const blk of blocks) await store.commitBlock(blk);
    assert.deepEqual(readIndexRows(path), { text: 0, fields: 0 });
    await assert.rejects(searched(store, "sailboat"), readIndexesOff);
    await assert.rejects(byMetadata(store, "harbour"), readIndexesOff);
    await assert.rejects(byField(store, "S1"), readIndexesOff);
    await assert.rejects(all(store.streamSearchPage("assets", "sailboat", { limit: 5 })), readIndexesOff);
    assert.notEqual(await store.getTransaction(a.id), null);
    await derivedClean(store, blocks);
    // A reader of the file (an HTTP worker, serve-reads) refuses as well.
    const reader = SqliteStore.open({ path, access: "reader" });
    await assert.rejects(searched(reader, "sailboat"), readIndexesOff);
    await reader.close();
    await store.close();
  });

  it("a store with them on answers from them; with them off a later block leaves both refused", async () => {
    const path = freshPath();
    const on = SqliteStore.open({ path });
    await on.commitBlock(block(1, [a]));
    assert.deepEqual(await searched(on, "sailboat"), [a.id]);
    await on.close();
    const off = SqliteStore.open({ path, readIndexes: false });
    await off.commitBlock(block(2, [b]));
    // Block 1's rows are there, block 2's not: a partial answer would miss b.
    await assert.rejects(searched(off, "sailboat"), readIndexesOff);
    await assert.rejects(byField(off, "S2"), readIndexesOff);
    await off.close();
  });

  it("writes what is missing when a writer opens with them on again", async () => {
    const path = freshPath();
    const blocks = [block(1, [a]), block(2, [b])];
    const off = SqliteStore.open({ path, readIndexes: false });
    for (const blk of blocks) await off.commitBlock(blk);
    await off.close();
    const store = SqliteStore.open({ path });
    assert.deepEqual(new Set(await searched(store, "sailboat")), new Set([a.id, b.id]));
    assert.deepEqual(await byMetadata(store, "harbour").then((ids) => ids.length), 2);
    assert.deepEqual(await byField(store, "S2"), [b.id]);
    await derivedClean(store, blocks);
    const later = createTx({ label: "later", data: { serial: "S2", name: "sailboat" } });
    await store.commitBlock(block(3, [later]));
    assert.deepEqual(await byField(store, "S2"), [b.id, later.id]);
    await store.close();
  });

  it("catches up past documents an older ledgerd wrote beyond the mark: one document each", async () => {
    const path = freshPath();
    const off = SqliteStore.open({ path, readIndexes: false });
    await off.commitBlock(block(1, [a]));
    await off.close();
    // An older ledgerd, which knows no mark, writes block 2 with its documents.
    const older = SqliteStore.open({ path });
    await older.commitBlock(block(2, [b]));
    await older.close();
    const db = new Database(path);
    db.exec("UPDATE text_index_mark SET seq = 0; UPDATE field_index_mark SET seq = 0");
    db.close();
    const store = SqliteStore.open({ path });
    assert.deepEqual(new Set(await searched(store, "sailboat")), new Set([a.id, b.id]));
    await derivedClean(store, [block(1, [a]), block(2, [b])]);
    await store.close();
    // b's document was written twice: the word is still in two documents, once each.
    const file = new Database(path);
    file.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, assets_fts, 'row')");
    assert.deepEqual(file.prepare("SELECT doc, cnt FROM vocab WHERE term = 'sailboat'").get(), { doc: 2, cnt: 2 });
    file.close();
  });
});
