// `ledgerd verify-chain` on a real SQLite file edited with the sqlite3 tool while no node runs
// (issue #15): a clean ledger of both kinds verifies; one byte changed in a stored v2.0 or legacy
// transaction, or in a block's app hash, is reported at its height; --from starts later.
// Issue #36: a row derived from the transactions (what reads answer from: asset data, outputs,
// spends, the hashed indexes, search text, field index) edited, deleted or added is reported
// with its table and transaction, by verify-chain and by restore.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { searchText } from "../../src/store/searchText.js";
import { sliceOf } from "../../src/store/sqlite/deferredIndex.js";
import { keyHash } from "../../src/store/sqlite/keyHash.js";
import { LedgerApp } from "../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import { verifyChain } from "../../src/ledger/verifyChain.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { bytesOf, create, keypairOf } from "../helpers/txFactory.js";
import { writeMixedLedger } from "../helpers/mixedLedger.js";
import { ledgerdArgs } from "../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-verify-chain-"));
const clean = join(root, "clean");
/** The clean ledger opened once more by a writer, which merges every index row still waiting. */
const merged = join(root, "merged");
const withoutLedgerdEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_")));
after(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the clean (or merged) ledger to edit. */
function copy(name: string, from = clean): string {
  const dir = join(root, name);
  cpSync(from, dir, { recursive: true });
  return dir;
}

function ledgerd(...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [...ledgerdArgs(), ...args], { encoding: "utf8", env: withoutLedgerdEnv() });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

function verify(dir: string, ...args: string[]): { status: number | null; out: string } {
  return ledgerd("verify-chain", "--data_dir", dir, ...args);
}

/** verify-chain fails with `reason` (a pattern) at `height`; restore of a backup of it refuses the same. */
function refused(dir: string, height: number, reason: RegExp): void {
  const result = verify(dir);
  assert.equal(result.status, 1, result.out);
  assert.match(result.out, new RegExp(`FAIL height ${height}: ${reason.source}`));
}

function sqlite(dir: string, sql: string): void {
  const result = spawnSync("sqlite3", [join(dir, "ledgerd.sqlite"), sql], { encoding: "utf8" });
  assert.equal(result.status, 0, `sqlite3: ${result.stderr}${result.error?.message ?? ""}`);
}

before(async () => {
  const store = SqliteStore.open({ path: join(clean, "ledgerd.sqlite") });
  await writeMixedLedger(store);
  await store.close();
  cpSync(clean, merged, { recursive: true });
  await SqliteStore.open({ path: join(merged, "ledgerd.sqlite") }).close();
});

describe("ledgerd verify-chain", () => {
  it("verifies a clean ledger of both kinds, empty blocks included", () => {
    const result = verify(clean);
    assert.equal(result.status, 0, result.out);
    assert.match(result.out, /ok heights 1 to 8: 19 transactions/);
  });

  it("reports a byte changed in a stored v2.0 transaction at its height", () => {
    const dir = copy("v2-edit");
    sqlite(dir, "UPDATE transactions SET json = replace(json, 'tamper-me-6', 'tamper-me-7') WHERE height = 6");
    const result = verify(dir);
    assert.equal(result.status, 1, result.out);
    assert.match(result.out, /FAIL height 6: transaction \d \(v2\) stored as [0-9a-f]{64} hashes to no id/);
    // From a later height the edit is behind the walk.
    assert.equal(verify(dir, "--from", "7").status, 0);
  });

  it("reports a byte changed in a stored legacy transaction at its height", () => {
    const dir = copy("legacy-edit");
    sqlite(dir, "UPDATE legacy_transactions SET json = replace(json, 'payload-4', 'payload-5') WHERE height = 4");
    const result = verify(dir);
    assert.equal(result.status, 1, result.out);
    assert.match(result.out, /FAIL height 4: transaction 1 \(legacy\) stored as [0-9a-f]{64} hashes to [0-9a-f]{64}/);
  });

  it("reports a legacy transaction whose signature was edited (its id, the hash of its body with fulfillments nulled, holds)", () => {
    const dir = copy("legacy-signature");
    // The last character of the fulfillment (its signature's last bits) changed.
    const at = `instr(json, '","input"')`;
    sqlite(dir, `UPDATE legacy_transactions SET json = substr(json, 1, ${at} - 2) || CASE substr(json, ${at} - 1, 1) WHEN 'A' THEN 'B' ELSE 'A' END || substr(json, ${at}) WHERE height = 3`);
    const result = verify(dir);
    assert.equal(result.status, 1, result.out);
    assert.match(result.out, /FAIL height 3: transaction 1 \(legacy\) [0-9a-f]{64}: it no longer passes the checks: /);
  });

  it("reports an edited app hash, and a ledger whose head does not match its last block", () => {
    const dir = copy("app-hash-edit");
    sqlite(dir, "UPDATE blocks SET app_hash = replace(app_hash, substr(app_hash, 1, 1), CASE substr(app_hash, 1, 1) WHEN '0' THEN '1' ELSE '0' END) WHERE height = 3");
    const result = verify(dir);
    assert.equal(result.status, 1, result.out);
    assert.match(result.out, /FAIL height 3: app hash [0-9a-f]{64} stored, [0-9a-f]{64} recomputed/);
    const head = copy("head-edit");
    sqlite(head, "UPDATE chain_state SET app_hash = 'ab' || substr(app_hash, 3)");
    assert.match(verify(head).out, /FAIL height 8: the chain state's app hash/);
  });

  it("reports a changed node of the history tree (what proofs are built from) at the height that made it", () => {
    const dir = copy("history-edit");
    // Heights 1-4 hold transactions: history leaves 0-3; the node over leaves 2 and 3 is height 4's.
    sqlite(dir, "UPDATE history_nodes SET hash = zeroblob(32) WHERE level = 1 AND idx = 1");
    const result = verify(dir);
    assert.equal(result.status, 1, result.out);
    assert.match(result.out, /FAIL height 4: history node \(level 1, index 1\) stored 0{64}, [0-9a-f]{64} recomputed/);
    const size = copy("history-size-edit");
    sqlite(size, "UPDATE blocks SET history_size = 9 WHERE height = 5");
    assert.match(verify(size).out, /FAIL height 5: history size 9 stored, 4 recomputed/);
  });

  it("refuses a --from that is no height, and a folder with no ledger", () => {
    assert.match(verify(clean, "--from", "0").out, /--from must be a height/);
    assert.notEqual(verify(join(root, "nothing-here")).status, 0);
  });

  it("verifies a ledger whose index rows are all merged", () => {
    const result = verify(merged);
    assert.equal(result.status, 0, result.out);
  });
});

// The ledger is writeMixedLedger's (its seqs and heights are there).
const ofTx = String.raw`\(transaction [0-9a-f]{64}, height \d+\)`;

describe("ledgerd verify-chain: the rows derived from the transactions (issue #36)", () => {
  it("reports an asset's data column that is not the transaction's (what searches and field queries read)", () => {
    const dir = copy("asset-data");
    sqlite(dir, `UPDATE transactions SET asset_data = '{"kind":"forged"}' WHERE seq = 1`);
    refused(dir, 1, new RegExp(String.raw`transactions\.asset_data holds "\{\\"kind\\":\\"forged\\"\}", the transaction gives .*height-1.* ${ofTx}`));

    // From a later height the edit is behind the walk; one after it is found.
    assert.equal(verify(dir, "--from", "7").status, 0);
    sqlite(dir, `UPDATE transactions SET asset_data = '{"kind":"forged"}' WHERE seq = 12`);
    assert.match(verify(dir, "--from", "7").out, /FAIL height 8: transactions\.asset_data holds/);
  });

  it("reports a forged asset id and metadata column", () => {
    const assetId = copy("asset-id");
    sqlite(assetId, "UPDATE transactions SET asset_id = id WHERE seq = 3");
    refused(assetId, 2, new RegExp(String.raw`transactions\.asset_id holds "[0-9a-f]{64}", the transaction gives "[0-9a-f]{64}" ${ofTx}`));
    const metadata = copy("metadata");
    sqlite(metadata, `UPDATE transactions SET metadata = NULL WHERE seq = 5`);
    refused(metadata, 3, /transactions\.metadata holds nothing/);
  });

  it("reports an output's amount or owners that are not the transaction's", () => {
    const amount = copy("output-amount");
    sqlite(amount, "UPDATE outputs SET amount = '2000' WHERE tx_seq = 3 AND output_index = 0");
    refused(amount, 2, new RegExp(String.raw`outputs\.amount of output 0 holds "2000", the transaction gives "2" ${ofTx}`));
    const owner = copy("output-owner");
    sqlite(owner, `UPDATE outputs SET public_keys = '["forged"]' WHERE tx_seq = 1`);
    refused(owner, 1, /outputs\.public_keys of output 0 holds "\[\\"forged\\"\]"/);
    const extra = copy("output-extra");
    sqlite(extra, "INSERT INTO outputs VALUES (4, 1, '5', 'ni:///sha-256;x', '[]')");
    refused(extra, 3, /outputs: 2 rows, the transaction has 1 outputs/);
    const past = copy("output-past");
    sqlite(past, "INSERT INTO outputs VALUES (99, 0, '5', 'ni:///sha-256;x', '[]')");
    refused(past, 8, /outputs: 1 row\(s\) past the last transaction \(seq 13\)/);
  });

  it("reports a deleted spend: its inputs row, its spent_index row", () => {
    const input = copy("inputs-deleted");
    sqlite(input, "DELETE FROM inputs WHERE spender_seq = 5");
    refused(input, 3, new RegExp(String.raw`inputs: 0 rows, the transaction spends 1 outputs ${ofTx}`));
    const spent = copy("spent-deleted", merged);
    sqlite(spent, "DELETE FROM spent_index WHERE spender_seq = 5");
    refused(spent, 3, new RegExp(String.raw`spent_index: its row \[\d+,3,0,5\] is missing ${ofTx}`));
  });

  it("reports a missing or added row of the hashed indexes (by id, by asset, by key)", () => {
    const key = copy("key-deleted", merged);
    sqlite(key, "DELETE FROM key_index WHERE seq = 4");
    refused(key, 3, /key_index: its row \[\d+,4,0\] is missing/);
    const asset = copy("asset-deleted", merged);
    sqlite(asset, "DELETE FROM asset_index WHERE seq = 7");
    refused(asset, 4, /asset_index: its row \[\d+,7\] is missing/);
    const added = copy("key-added", merged);
    sqlite(added, "INSERT INTO key_index VALUES (12345, 6, 0)");
    refused(added, 8, /key_index: 1 row\(s\) of transaction [0-9a-f]{64} that it does not give/);
    // Not merged yet (the clean file): the row must not be there before its slice's merge.
    const early = copy("id-early");
    const db = new Database(join(early, "ledgerd.sqlite"));
    const hash = keyHash(db.prepare("SELECT id FROM transactions WHERE seq = 13").pluck().get() as string);
    const marks = db.prepare("SELECT merged_seq FROM index_sweep ORDER BY slice").pluck().all() as number[];
    assert.ok(marks[sliceOf(hash, marks.length)]! < 13, "the row of seq 13 waits for its merge");
    db.prepare("INSERT INTO id_index VALUES (?, 13)").run(hash);
    db.close();
    refused(early, 8, new RegExp(String.raw`id_index: its row \[${hash},13\] is there before its merge ${ofTx}`));
  });

  it("reports a field index row missing, or one no transaction gives (a forged data.kind=car)", () => {
    const missing = copy("field-deleted");
    sqlite(missing, "DELETE FROM field_index WHERE seq = 2");
    refused(missing, 2, new RegExp(String.raw`field_index: the row of a leaf \(hash \d+\) is missing ${ofTx}`));
    const added = copy("field-added");
    sqlite(added, "INSERT INTO field_index VALUES (12345, 4)");
    refused(added, 8, /field_index: 1 row\(s\) of transaction [0-9a-f]{64} that it does not give/);
  });

  it("reports a search text document that is not the transaction's text, or one it has none for", () => {
    const extra = copy("text-extra");
    sqlite(extra, "INSERT INTO assets_fts (rowid, body) VALUES (3, 'forged')");
    refused(extra, 2, new RegExp(String.raw`assets_fts: a document the transaction has no assets for ${ofTx}`));
    // As an editor would: the document deleted by its own text (contentless FTS5), another put in.
    const replaced = copy("text-replaced");
    const db = new Database(join(replaced, "ledgerd.sqlite"));
    const row = db.prepare("SELECT id, asset_data FROM transactions WHERE seq = 2").get() as { id: string; asset_data: string };
    const text = searchText(row.id, row.asset_data);
    db.prepare("INSERT INTO assets_fts (assets_fts, rowid, body) VALUES ('delete', 2, ?)").run(text);
    db.prepare("INSERT INTO assets_fts (rowid, body) VALUES (2, ?)").run(text.replace("c-2", "c-9"));
    db.close();
    refused(replaced, 2, new RegExp(String.raw`assets_fts: the document is not the transaction's text ${ofTx}`));
    const resized = copy("text-resized");
    sqlite(resized, "UPDATE metadata_fts_docsize SET sz = X'09' WHERE id = 3");
    refused(resized, 2, /metadata_fts: the document holds 9 tokens, the transaction's text \d+/);
  });

  it("reports a legacy output that is not the legacy transaction's, or whose spender is not its spender's", () => {
    const dir = copy("legacy-output");
    sqlite(dir, `UPDATE legacy_outputs SET public_keys = '["forged"]' WHERE tx_seq = 2`);
    refused(dir, 3, /legacy_outputs\.public_keys of output 0 holds .*\(legacy transaction [0-9a-f]{64}, height 3\)/);

    const unspent = copy("legacy-unspent");
    sqlite(unspent, "UPDATE legacy_outputs SET spent_by = NULL WHERE tx_seq = 5");
    refused(unspent, 8, /legacy_outputs\.spent_by of [0-9a-f]{64}:0 holds nothing, the transaction \(seq 6\) spends it \(legacy transaction [0-9a-f]{64}, height 8\)/);
    const spent = copy("legacy-spent");
    sqlite(spent, "UPDATE legacy_outputs SET spent_by = 6 WHERE tx_seq = 1");
    refused(spent, 8, /legacy_outputs: 2 outputs name a spender among the legacy transactions checked, which spend 1/);
  });

  it("restore refuses a backup whose asset data column was edited, and leaves no ledger", () => {
    const dir = copy("restore-source");
    const backup = join(root, "restore-backup");
    assert.equal(ledgerd("backup", backup, "--data_dir", dir).status, 0);
    sqlite(backup, `UPDATE transactions SET asset_data = '{"kind":"forged"}' WHERE seq = 1`);
    const target = join(root, "restore-target");
    const result = ledgerd("restore", backup, "--data_dir", target);
    assert.notEqual(result.status, 0, result.out);
    assert.match(result.out, /the backup does not verify: height 1: transactions\.asset_data holds/);
    assert.equal(existsSync(join(target, "ledgerd.sqlite")), false);
  });
});

describe("ledgerd verify-chain beside a writer", () => {
  it("checks one snapshot: the blocks and index merges a writer commits meanwhile move nothing under it", async () => {
    const path = join(copy("beside"), "ledgerd.sqlite");
    // Every commit merges index rows (none may wait), so the tables change under the walk.
    const writer = SqliteStore.open({ path, access: "readers", checkpointIntervalMs: 0, indexRowsWaitingMax: 0 });
    const ledger = await LedgerApp.open({}, { store: writer, pool: new PreparePool({ ...preparePoolOptionsDefault, threads: 0 }) });
    const reader = SqliteStore.open({ path, access: "reader" });
    const alice = keypairOf("verify-alice");
    let written = 0;
    // Before each block the walk reads, the writer commits one more.
    const beside = new Proxy(reader, {
      get(target, name) {
        if (name === "getBlockContents") {
          return async (height: number) => {
            await ledger.finalizeBlock(ledger.info().height + 1, [bytesOf(create(alice, 1n, { note: `beside-${++written}` }))]);
            await ledger.commit();
            return target.getBlockContents(height);
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      assert.deepEqual(await verifyChain(beside), { from: 1, to: 8, txs: 19, fault: null });
      assert.equal(written, 8);
      assert.deepEqual(await verifyChain(reader), { from: 1, to: 16, txs: 27, fault: null });
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
