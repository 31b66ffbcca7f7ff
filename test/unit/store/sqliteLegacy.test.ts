// What only the SQLite store has around legacy transactions: the schema version 1 -> 2
// migration (version 2 added the legacy tables), reopening, and no legacy work for a block
// without legacy transactions. The interface rules are in conformance.ts.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { evidenceOf } from "./evidenceConformance.js";
import { schemaVersion } from "../../../src/store/sqlite/schema.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { keyHash } from "../../../src/store/sqlite/keyHash.js";
import { block, createTx, validator } from "./fixtures.js";
import { legacyRef, legacyTx, mixedBlock } from "./legacyFixtures.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-legacy-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

const legacyTables = ["legacy_invalid", "legacy_outputs", "legacy_transactions"];

function tablesOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  db.close();
  return names;
}

/**
 * A database as schema version 1 wrote it (this schema without the legacy tables, the elections
 * table and the commitment's), version 2 (without the elections table and
 * legacy_transactions_by_height), version 3 (without the commitment's table and columns) or
 * version 4 (without the evidence table), 5 (without the signed headers), 6 (without the chain's
 * protocol version and rule heights) or 7 (without the refused legacy transactions' bodies). With
 * `blocks` false, a chain with no block yet.
 */
async function versionOneFile(path: string, version: 1 | 2 | 3 | 4 | 5 | 6 | 7 = 1, blocks = true): Promise<ReturnType<typeof createTx>> {
  const store = SqliteStore.open({ path });
  const c = createTx({ label: "v1-c" });
  if (blocks) await store.commitBlock(block(1, [c]));
  else await store.initChain("begun", [validator("a")]);
  await store.close();
  const db = new Database(path);
  db.exec("DROP INDEX legacy_invalid_by_height; ALTER TABLE legacy_invalid DROP COLUMN json; ALTER TABLE legacy_invalid DROP COLUMN position");
  if (version < 7) db.exec("ALTER TABLE chain_state DROP COLUMN app_version; ALTER TABLE chain_state DROP COLUMN rule_heights");
  if (version < 6) db.exec("DROP TABLE signed_headers");
  if (version < 5) db.exec("DROP TABLE evidence");
  if (version < 4) db.exec("DROP TABLE history_nodes; DROP TABLE block_nodes; ALTER TABLE blocks DROP COLUMN history_size");
  if (version < 4) db.exec("ALTER TABLE chain_state DROP COLUMN history_size; ALTER TABLE chain_state DROP COLUMN commitment");
  if (version < 3) {
    for (const table of [...(version === 1 ? legacyTables : []), "elections"]) db.exec(`DROP TABLE ${table}`);
    db.exec("DROP INDEX IF EXISTS legacy_transactions_by_height");
  }
  db.prepare("UPDATE schema_version SET version = ?").run(version);
  db.close();
  return c;
}

describe("sqlite store, legacy tables", () => {
  it("is at schema version 8", () => {
    assert.equal(schemaVersion, 8);
  });

  it("migrates a version 7 database: a refusal recorded before keeps no body, one after does", async () => {
    const path = freshPath();
    await versionOneFile(path, 7);
    const before = legacyTx({ label: "v7-refused-before" });
    const db = new Database(path);
    db.prepare("INSERT INTO legacy_invalid (id_hash, id, height, code, message) VALUES (?, ?, 1, 'DoubleSpend', 'm')").run(keyHash(before.id), before.id);
    db.close();
    const store = SqliteStore.open({ path });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    assert.deepEqual(await store.getLegacyRecord(before.id), { status: "invalid", height: 1, code: "DoubleSpend", message: "m" });
    const after = legacyTx({ label: "v7-refused-after" });
    await store.commitBlock(mixedBlock(2, [], [{ id: after.id, code: "DoubleSpend", message: "m", json: after.json, position: 0 }]));
    assert.deepEqual(await store.getRefusedLegacyTxs(1, 2), [{ height: 2, position: 0, json: after.json }]);
    await store.close();
  });

  it("migrates a version 6 database: a begun chain's protocol version unknown, no rule heights; a new chain records them", async () => {
    const path = freshPath();
    const c = await versionOneFile(path, 6);
    let store = SqliteStore.open({ path });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    assert.equal(await store.getTransaction(c.id), c.json);
    const state = await store.getChainState();
    assert.equal(state.appVersion, null);
    assert.deepEqual(state.ruleHeights, new Map());
    await store.close();
    const empty = freshPath();
    await versionOneFile(empty, 6, false);
    store = SqliteStore.open({ path: empty });
    assert.equal((await store.getChainState()).appVersion, null, "initChain ran before the migration");
    await store.close();
  });

  it("migrates a version 5 database: the signed headers table, every block kept", async () => {
    const path = freshPath();
    const c = await versionOneFile(path, 5);
    assert.ok(!tablesOf(path).includes("signed_headers"));
    const store = SqliteStore.open({ path });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    assert.equal(await store.getTransaction(c.id), c.json);
    await store.putSignedHeaders([{ height: 1, json: '{"header":{}}' }]);
    assert.equal(await store.getSignedHeader(1), '{"header":{}}');
    await store.close();
  });

  it("migrates a version 4 database: the evidence table, every block kept", async () => {
    const path = freshPath();
    const c = await versionOneFile(path, 4);
    assert.ok(!tablesOf(path).includes("evidence"));
    const store = SqliteStore.open({ path });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    assert.equal(await store.getTransaction(c.id), c.json);
    const evidence = evidenceOf(2, 0);
    await store.commitBlock({ ...block(2, []), evidence: [evidence] });
    assert.deepEqual((await store.getBlockContents(2))?.evidence, [evidence]);
    await store.close();
  });

  it("migrates a version 3 database: a chain with blocks keeps BigchainDB's app hash, one without takes v1", async () => {
    const withBlocks = freshPath();
    const c = await versionOneFile(withBlocks, 3);
    let store = SqliteStore.open({ path: withBlocks });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    const state = await store.getChainState();
    assert.equal(state.commitment, "bigchaindb");
    assert.equal(state.historySize, 0);
    assert.equal((await store.getBlock(1))?.historySize, null);
    assert.equal(await store.getTransaction(c.id), c.json);
    await store.close();
    const empty = freshPath();
    await versionOneFile(empty, 3, false);
    store = SqliteStore.open({ path: empty });
    assert.equal((await store.getChainState()).commitment, "v1");
    await store.close();
  });

  it("migrates a version 2 database: the elections table, every block kept", async () => {
    const path = freshPath();
    const c = await versionOneFile(path, 2);
    assert.ok(!tablesOf(path).includes("elections"));
    const store = SqliteStore.open({ path });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    assert.equal(await store.getTransaction(c.id), c.json);
    const record = { id: "e".repeat(64), height: 2, validatorKey: "ab".repeat(32), power: 1, nodeId: "n", total: 40n, votes: 0n, concludedAt: null };
    await store.commitBlock({ ...block(2, []), elections: [record] });
    assert.deepEqual((await store.getElections([record.id])).get(record.id), record);
    await store.close();
  });

  it("migrates a version 1 database when its owner opens it, keeping every block", async () => {
    const path = freshPath();
    const c = await versionOneFile(path);
    assert.ok(legacyTables.every((t) => !tablesOf(path).includes(t)));
    const store = SqliteStore.open({ path });
    assert.equal(store.database.prepare("SELECT version FROM schema_version").pluck().get(), schemaVersion);
    assert.equal(await store.getTransaction(c.id), c.json);
    const a = legacyTx({ label: "after-migration" });
    await store.commitBlock(mixedBlock(2, [a]));
    assert.equal(await store.getLegacyTransaction(a.id), a.json);
    await store.close();
    assert.ok(legacyTables.every((t) => tablesOf(path).includes(t)));
  });

  it("a read-only store refuses a version 1 database with a clear message", async () => {
    const path = freshPath();
    await versionOneFile(path);
    assert.throws(() => SqliteStore.open({ path, access: "reader" }), new RegExp(`schema version 1; this ledgerd needs ${schemaVersion}\\. Open it once with a writing ledgerd`));
    // Nothing changed: still version 1.
    const db = new Database(path, { readonly: true });
    assert.equal(db.prepare("SELECT version FROM schema_version").pluck().get(), 1);
    db.close();
  });

  it("reopening keeps legacy transactions, outputs, spends and refusals", async () => {
    const path = freshPath();
    const a = legacyTx({ label: "re-a", variant: "A" });
    const b = legacyTx({ label: "re-b", variant: "B", spends: [legacyRef(a, 0)] });
    const refused = legacyTx({ label: "re-refused" });
    const first = SqliteStore.open({ path });
    await first.commitBlock(mixedBlock(1, [a, createTx({ label: "re-v2" }), b], [{ id: refused.id, code: "DoubleSpend", message: "m", json: refused.json, position: 3 }]));
    await first.close();
    const store = SqliteStore.open({ path });
    assert.equal(await store.getLegacyTransaction(b.id), b.json);
    assert.equal((await store.getLegacyOutputs([legacyRef(a, 0)])).get(`${a.id}:0`)?.spentBy, b.id);
    assert.deepEqual(await store.getLegacyRecord(refused.id), { status: "invalid", height: 1, code: "DoubleSpend", message: "m" });
    // Positions are the places among the block's valid transactions: a at 0, b at 2.
    const positions = store.database.prepare("SELECT position FROM legacy_transactions ORDER BY seq").pluck().all();
    assert.deepEqual(positions, [0, 2]);
    await store.close();
  });

  it("a block without legacy transactions writes no legacy row", async () => {
    const store = SqliteStore.open({ path: freshPath() });
    await store.commitBlock(block(1, [createTx({ label: "plain" })]));
    for (const table of legacyTables) {
      assert.equal(store.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), 0, table);
    }
    await store.close();
  });
});
