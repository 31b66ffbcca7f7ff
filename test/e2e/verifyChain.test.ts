// `ledgerd verify-chain` on a real SQLite file edited with the sqlite3 tool while no node runs
// (issue #15): a clean ledger of both kinds verifies; one byte changed in a stored v2.0 or legacy
// transaction, or in a block's app hash, is reported at its height; --from starts later.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { LedgerApp } from "../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { hexKey, legacyBytes, legacyCreate } from "../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf, transfer } from "../helpers/txFactory.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-verify-chain-"));
const clean = join(root, "clean");
const cliMain = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const withoutLedgerdEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_")));
after(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the clean ledger to edit. */
function copy(name: string): string {
  const dir = join(root, name);
  cpSync(clean, dir, { recursive: true });
  return dir;
}

function verify(dir: string, ...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", cliMain, "verify-chain", "--data_dir", dir, ...args], { encoding: "utf8", env: withoutLedgerdEnv() });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

function sqlite(dir: string, sql: string): void {
  const result = spawnSync("sqlite3", [join(dir, "ledgerd.sqlite"), sql], { encoding: "utf8" });
  assert.equal(result.status, 0, `sqlite3: ${result.stderr}${result.error?.message ?? ""}`);
}

before(async () => {
  const node = keypairOf("verify-node");
  const alice = keypairOf("verify-alice");
  const store = SqliteStore.open({ path: join(clean, "ledgerd.sqlite") });
  const ledger = await LedgerApp.open({}, { store, pool: new PreparePool({ ...preparePoolOptionsDefault, threads: 0 }) });
  await ledger.initChain("verify", [{ publicKey: hexKey(node.publicKey), power: 10 }]);
  const signer = { publicKey: node.publicKey, seed: node.seed };
  let last = create(alice, 2n, { note: "height-1" });
  const blocks = [[bytesOf(last)]];
  for (let height = 2; height <= 8; height++) {
    const next = transfer([{ tx: last, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 2n }], { note: `tamper-me-${height}` });
    const legacy = legacyBytes(legacyCreate(height % 2 === 0 ? "A" : "B", signer, [alice.publicKey], { legacy: `payload-${height}` }));
    blocks.push(height === 5 ? [] : [bytesOf(create(alice, 1n, { note: `c-${height}` })), legacy, bytesOf(next)]);
    if (height !== 5) last = next;
  }
  for (const txs of blocks) {
    const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs);
    assert.ok(finalized.results.every((r) => r === null), JSON.stringify(finalized.results));
    await ledger.commit();
  }
  await store.close();
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
});
