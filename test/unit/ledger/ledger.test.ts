import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { nextAppHash } from "../../../src/ledger/appHash.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { PreparedCache, type PreparedKey } from "../../../src/ledger/preparedCache.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Store } from "../../../src/store/store.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { V1Chain } from "../../helpers/appHashV1.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-ledger-"));
  dirs.push(dir);
  return join(dir, "ledger.sqlite");
}

const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
const validator = { publicKey: "ab".repeat(32), power: 10 };

async function openLedger(path = tempPath()): Promise<{ ledger: LedgerApp; store: Store; path: string }> {
  const store = SqliteStore.open({ path });
  const ledger = await LedgerApp.open({}, { store, pool });
  if (ledger.info().height === 0 && (await store.getChainState()).chainId === null) {
    await ledger.initChain("test-chain", [validator]);
  }
  return { ledger, store, path };
}

async function block(ledger: LedgerApp, txs: readonly Uint8Array[]) {
  const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs);
  await ledger.commit();
  return finalized;
}

const alice = keypairOf("alice");
const bob = keypairOf("bob");
const carol = keypairOf("carol");

describe("LedgerApp", () => {
  it("starts at height 0 with an empty app hash", async () => {
    const { ledger } = await openLedger();
    assert.deepEqual(ledger.info(), { height: 0, appHash: "", appVersion: protocolVersion });
  });

  it("rejects the later of two conflicting transactions in one block, and stores only the first", async () => {
    const { ledger, store } = await openLedger();
    const asset = create(alice);
    await block(ledger, [bytesOf(asset)]);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    const toCarol = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [carol.publicKey], amount: 1n }]);
    const duplicate = create(bob);
    const finalized = await block(ledger, [bytesOf(toBob), bytesOf(toCarol), bytesOf(duplicate), bytesOf(duplicate)]);
    assert.deepEqual(finalized.results.map((r) => r?.code ?? null), [null, "DoubleSpend", null, "DuplicateTransaction"]);
    assert.notEqual(await store.getTransaction(toBob["id"] as string), null);
    assert.equal(await store.getTransaction(toCarol["id"] as string), null);
    const stored = await store.getBlock(2);
    assert.deepEqual(stored?.txIds, [toBob["id"], duplicate["id"]]);
  });

  it("accepts a TRANSFER of a CREATE made earlier in the same block (chained spends)", async () => {
    const { ledger, store } = await openLedger();
    const asset = create(alice, 5n);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 5n }]);
    const toCarol = transfer([{ tx: toBob, outputIndex: 0 }], [bob], [{ publicKeys: [carol.publicKey], amount: 2n }, { publicKeys: [bob.publicKey], amount: 3n }]);
    const finalized = await block(ledger, [bytesOf(asset), bytesOf(toBob), bytesOf(toCarol)]);
    assert.deepEqual(finalized.results, [null, null, null]);
    const carolOutputs = await wholeOf(store).getOutputsByPublicKey(carol.publicKey, false);
    assert.deepEqual(carolOutputs, [{ transactionId: toCarol["id"], outputIndex: 0 }]);
  });

  it("rejects in block order: a spend before its CREATE in the block does not exist yet", async () => {
    const { ledger } = await openLedger();
    const asset = create(alice);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    const finalized = await block(ledger, [bytesOf(toBob), bytesOf(asset)]);
    assert.deepEqual(finalized.results.map((r) => r?.code ?? null), ["InputDoesNotExist", null]);
  });

  for (const rule of ["v1", "bigchaindb"] as const) {
    it(`chains the app hash by the chain's rule (${rule}); a block without valid transactions keeps it`, async () => {
      const store = SqliteStore.open({ path: tempPath() });
      const ledger = await LedgerApp.open({}, { store, pool });
      await ledger.initChain("test-chain", [validator], rule);
      assert.equal(ledger.commitmentVersion, rule);
      const v1 = new V1Chain();
      const expected = (height: number, previous: string, ids: string[]) =>
        rule === "v1" ? v1.next(height, ids) : nextAppHash(previous, ids);
      const a = create(alice);
      const b = create(bob);
      const first = await block(ledger, [bytesOf(a), bytesOf(b)]);
      assert.equal(first.appHash, expected(1, "", [a["id"] as string, b["id"] as string]));
      const empty = await block(ledger, []);
      assert.equal(empty.appHash, first.appHash);
      assert.equal(empty.height, 2);
      const historySize = rule === "v1" ? 1 : null;
      assert.deepEqual(await store.getBlock(2), { height: 2, appHash: first.appHash, txIds: [], historySize });
      const allInvalid = await block(ledger, [bytesOf(a)]);
      assert.equal(allInvalid.appHash, first.appHash);
      const c = create(carol);
      const fourth = await block(ledger, [bytesOf(c)]);
      assert.equal(fourth.appHash, expected(4, first.appHash, [c["id"] as string]));
      assert.notEqual(fourth.appHash, first.appHash);
      assert.deepEqual(ledger.info(), { height: 4, appHash: fourth.appHash, appVersion: protocolVersion });
      // Reopened, the ledger reads its history's edge back and goes on from it.
      await store.close();
      const reopened = SqliteStore.open({ path: store.database.name });
      const again = await LedgerApp.open({}, { store: reopened, pool });
      const d = create(keypairOf("dave"));
      const fifth = await block(again, [bytesOf(d)]);
      assert.equal(fifth.appHash, expected(5, fourth.appHash, [d["id"] as string]));
      await reopened.close();
    });
  }

  it("resumes from the store after a restart", async () => {
    const first = await openLedger();
    const a = create(alice);
    const finalized = await block(first.ledger, [bytesOf(a)]);
    await first.store.close();
    const again = await openLedger(first.path);
    assert.deepEqual(again.ledger.info(), { height: 1, appHash: finalized.appHash, appVersion: protocolVersion });
    const duplicate = await block(again.ledger, [bytesOf(a)]);
    assert.equal(duplicate.results[0]?.code, "DuplicateTransaction");
  });

  it("verifies a transaction once from checkTx to its block, and forgets it once committed", async () => {
    const store = SqliteStore.open({ path: tempPath() });
    let prepared = 0;
    const counting = { prepare: (bytes: Uint8Array, kind?: "current" | "legacy") => (prepared++, pool.prepare(bytes, kind)) } as unknown as PreparePool;
    const ledger = await LedgerApp.open({}, { store, pool: counting });
    await ledger.initChain("test-chain", [validator]);
    const tx = bytesOf(create(alice));
    assert.equal((await ledger.checkTx(tx)).ok, true);
    await block(ledger, [tx]);
    assert.equal(prepared, 1, "finalizeBlock found the checked transaction in the cache");
    const again = await ledger.checkTx(tx);
    assert.equal(again.ok ? null : again.rejection.code, "DuplicateTransaction");
    assert.equal(prepared, 2, "the committed transaction was read again");
    await store.close();
  });

  it("a new transaction through recheckTx (every CheckTx of CometBFT's mempool) is looked up in the prepared cache once", async () => {
    const store = SqliteStore.open({ path: tempPath() });
    const ledger = await LedgerApp.open({}, { store, pool });
    await ledger.initChain("test-chain", [validator]);
    const lookUp = PreparedCache.prototype.get;
    let lookups = 0;
    PreparedCache.prototype.get = function (this: PreparedCache, key: PreparedKey) {
      lookups++;
      return lookUp.call(this, key);
    };
    try {
      const tx = bytesOf(create(alice));
      assert.equal((await ledger.recheckTx(tx)).ok, true, "checked as new, and admitted");
      assert.equal(lookups, 1, "one key made and looked up for the new transaction");
      assert.equal((await ledger.recheckTx(tx)).ok, true, "then rechecked as pending");
      assert.equal(lookups, 2);
    } finally {
      PreparedCache.prototype.get = lookUp;
      await store.close();
    }
  });

  it("checkTx sees the pending pool: a second spend of a pending spend is refused", async () => {
    const { ledger } = await openLedger();
    const asset = create(alice);
    await block(ledger, [bytesOf(asset)]);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    const toCarol = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [carol.publicKey], amount: 1n }]);
    assert.equal((await ledger.checkTx(bytesOf(toBob))).ok, true);
    const again = await ledger.checkTx(bytesOf(toBob));
    assert.equal(again.ok ? null : again.rejection.code, "PendingTransaction");
    const conflict = await ledger.checkTx(bytesOf(toCarol));
    assert.equal(conflict.ok ? null : conflict.rejection.code, "DoubleSpend");
    // Once the block carrying the first spend commits, the pool forgets it.
    await block(ledger, [bytesOf(toBob)]);
    assert.equal(ledger.pendingCount, 0);
  });

  it("replaying the same blocks into a fresh store gives the same app hash (determinism)", async () => {
    const blocks: Uint8Array[][] = [];
    let tx = create(alice, 10n);
    blocks.push([bytesOf(tx), bytesOf(create(bob))]);
    for (let i = 0; i < 5; i++) {
      const next = transfer([{ tx, outputIndex: 0 }], [i % 2 === 0 ? alice : bob], [{ publicKeys: [i % 2 === 0 ? bob.publicKey : alice.publicKey], amount: 10n }]);
      blocks.push([bytesOf(next), bytesOf(create(carol)), bytesOf(next)]);
      tx = next;
    }
    const hashes: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const { ledger } = await openLedger();
      const seen: string[] = [];
      for (const txs of blocks) seen.push((await block(ledger, txs)).appHash);
      hashes.push(seen);
    }
    assert.deepEqual(hashes[0], hashes[1]);
    assert.equal(new Set(hashes[0]).size, blocks.length);
  });

  it("executes an uncommitted height again as ABCI replays it after a crash; another height is a broken invariant", async () => {
    const { ledger, store } = await openLedger();
    const asset = create(alice);
    const first = await ledger.finalizeBlock(1, [bytesOf(asset)]);
    // Another block of that height here, so the test tells which run is committed: the last.
    const other = create(bob);
    const again = await ledger.finalizeBlock(1, [bytesOf(other)]);
    assert.notEqual(again.appHash, first.appHash);
    await ledger.commit();
    assert.deepEqual(await store.findTransactions([asset["id"] as string, other["id"] as string]), new Set([other["id"]]));
    await ledger.finalizeBlock(2, []);
    await assert.rejects(ledger.finalizeBlock(3, []), /another height than the uncommitted block's/);
    assert.equal(ledger.abandonBlock(), 2);
    assert.equal(ledger.abandonBlock(), null);
    assert.equal((await block(ledger, [])).height, 2);
  });
});
