// The SQLite field index (src/store/sqlite/fieldIndex.ts): built for a database made before it
// existed, caught up after an older ledgerd wrote blocks without it, and read by a reader.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { rowsAfterSql, seekSql } from "../../../src/store/sqlite/fieldIndex.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { FieldHit, Store } from "../../../src/store/store.js";
import { block, createTx } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-field-index-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

async function serials(store: Store, serial: string): Promise<string[]> {
  const hits: FieldHit[] = [];
  const filters = [{ path: ["serial"], value: serial }];
  for await (const batch of store.streamFieldMatches("assets", filters)) hits.push(...batch);
  return hits.map((h) => h.id);
}

/** The file as a ledgerd without the field index leaves it: no field tables. */
function dropFieldIndex(path: string): void {
  const db = new Database(path);
  db.exec("DROP TABLE field_index; DROP TABLE field_index_mark");
  db.close();
}

describe("sqlite field index", () => {
  it("is built when a writer opens a database made before it", async () => {
    const path = freshPath();
    const txs = Array.from({ length: 2500 }, (_, i) => createTx({ label: `m${i}`, data: { serial: `S${i % 1200}` } }));
    const old = SqliteStore.open({ path });
    await old.commitBlock(block(1, txs.slice(0, 1000)));
    await old.commitBlock(block(2, txs.slice(1000)));
    await old.close();
    dropFieldIndex(path);
    const store = SqliteStore.open({ path });
    assert.deepEqual(await serials(store, "S7"), [txs[7]!.id, txs[1207]!.id, txs[2407]!.id]);
    const later = createTx({ label: "later", data: { serial: "S7" } });
    await store.commitBlock(block(3, [later]));
    assert.deepEqual((await serials(store, "S7")).at(-1), later.id);
    await store.close();
  });

  it("catches up with blocks a ledgerd without it wrote (its mark is behind)", async () => {
    const path = freshPath();
    const a = createTx({ label: "a", data: { serial: "A" } });
    const b = createTx({ label: "b", data: { serial: "A" } });
    const first = SqliteStore.open({ path });
    await first.commitBlock(block(1, [a]));
    await first.close();
    // An older ledgerd commits block 2: its rows are in `transactions` only.
    const second = SqliteStore.open({ path });
    await second.commitBlock(block(2, [b]));
    await second.close();
    const db = new Database(path);
    db.exec("DELETE FROM field_index WHERE seq = 2; UPDATE field_index_mark SET seq = 1");
    db.close();
    const store = SqliteStore.open({ path });
    assert.deepEqual(await serials(store, "A"), [a.id, b.id]);
    await store.close();
  });

  it("a reader opened on a database without it fails with a clear message, changing nothing", async () => {
    const path = freshPath();
    const old = SqliteStore.open({ path, access: "readers" });
    await old.commitBlock(block(1, [createTx({ label: "r", data: { serial: "R" } })]));
    await old.close();
    dropFieldIndex(path);
    const reader = SqliteStore.open({ path, access: "reader" });
    await assert.rejects(serials(reader, "R"), /no field index yet: open it once with a writing ledgerd/);
    await reader.close();
  });

  it("its reads search the primary key: no query plan scans or sorts", () => {
    const store = SqliteStore.open({ path: ":memory:" });
    for (const sql of [rowsAfterSql, seekSql]) {
      const params = sql === seekSql ? [1, 0, 9] : [1, 0, 9, 5];
      const plan = store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
      assert.ok(plan.every((row) => /^SEARCH field_index USING PRIMARY KEY/.test(row.detail)), JSON.stringify(plan));
    }
    void store.close();
  });
});
