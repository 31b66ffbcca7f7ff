// The LedgerApp methods the CometBFT engine added: recheckTx, dryCheckTx, releaseAll, watchRivals.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { Rejection } from "../../../src/errors/ledgerError.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import type { PreparedBase } from "../../../src/ledger/txKind.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { openLedger, type LedgerFixture } from "./ledgerFixture.js";
import { waitFor } from "../../helpers/waitFor.js";

const alice = keypairOf("alice");
const bob = keypairOf("bob");
const carol = keypairOf("carol");

let fx: LedgerFixture;
beforeEach(async () => {
  fx = await openLedger();
  await fx.ledger.initChain("test-chain", [{ publicKey: "ab".repeat(32), power: 1 }]);
});
afterEach(() => fx.close());

async function block(txs: readonly Uint8Array[]) {
  const finalized = await fx.ledger.finalizeBlock(fx.ledger.info().height + 1, txs);
  await fx.ledger.commit();
  return finalized;
}

describe("LedgerApp under CometBFT", () => {
  /** A committed CREATE of alice's and two conflicting TRANSFERs of its output (to bob, to carol). */
  async function committedAssetWithTwoSpends() {
    const asset = create(alice);
    await block([bytesOf(asset)]);
    const spendTo = (to: { publicKey: string }) =>
      transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [to.publicKey], amount: 1n }]);
    return { asset, toBob: spendTo(bob), toCarol: spendTo(carol) };
  }

  /** Two pending transactions: a spend of a committed output to bob, and a fresh CREATE of carol's. */
  async function twoPending() {
    const { toBob } = await committedAssetWithTwoSpends();
    const fresh = create(carol);
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    assert.equal((await fx.ledger.checkTx(bytesOf(fresh))).ok, true);
    return { toBob, fresh };
  }

  it("recheckTx keeps a pending transaction: its own spends and id do not count against it", async () => {
    const { toBob, fresh } = await twoPending();
    // A plain checkTx of the same bytes is a duplicate; the recheck is not.
    const again = await fx.ledger.checkTx(bytesOf(toBob));
    assert.equal(again.ok ? null : again.rejection.code, "PendingTransaction");
    assert.equal((await fx.ledger.recheckTx(bytesOf(toBob))).ok, true);
    assert.equal((await fx.ledger.recheckTx(bytesOf(fresh))).ok, true);
    assert.equal(fx.ledger.pendingCount, 2);
  });

  it("recheckTx still sees the other pending transactions' spends", async () => {
    const { asset, toBob, toCarol } = await committedAssetWithTwoSpends();
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    // toCarol is not pending (its checkTx would fail): a recheck checks it as new, and refuses it.
    const result = await fx.ledger.recheckTx(bytesOf(toCarol));
    assert.equal(result.ok ? null : result.rejection.code, "DoubleSpend");
    assert.equal(fx.ledger.pendingCount, 1);
  });

  it("recheckTx drops a pending transaction whose input a block spent", async () => {
    const { asset, toBob, toCarol } = await committedAssetWithTwoSpends();
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    // Another validator's proposal carried the conflicting transfer.
    const finalized = await block([bytesOf(toCarol)]);
    assert.deepEqual(finalized.results, [null]);
    const result = await fx.ledger.recheckTx(bytesOf(toBob));
    assert.equal(result.ok ? null : result.rejection.code, "DoubleSpend");
    assert.equal(fx.ledger.pendingCount, 0, "the refused transaction left the pending pool");
  });

  it("recheckTx after a block that touched none of its inputs reads no committed state", async () => {
    const { toBob, fresh } = await twoPending();
    await block([bytesOf(create(bob))]);
    let reads = 0;
    const { getOutputs, findTransactions } = fx.store;
    fx.store.getOutputs = (refs) => (reads++, getOutputs.call(fx.store, refs));
    fx.store.findTransactions = (ids) => (reads++, findTransactions.call(fx.store, ids));
    assert.equal((await fx.ledger.recheckTx(bytesOf(toBob))).ok, true);
    assert.equal((await fx.ledger.recheckTx(bytesOf(fresh))).ok, true);
    assert.equal(reads, 0, "nothing either depends on changed");
    // Two blocks without a recheck in between: the second may have changed anything unseen.
    await block([bytesOf(create(bob))]);
    await block([bytesOf(create(carol))]);
    assert.equal((await fx.ledger.recheckTx(bytesOf(toBob))).ok, true);
    assert.ok(reads > 0, "read in full");
    assert.equal(fx.ledger.pendingCount, 2);
  });

  it("recheckTx drops a pending transaction whose pending input left the pool, though no block touched it", async () => {
    const asset = create(alice);
    await block([bytesOf(asset)]);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    const bobToCarol = transfer([{ tx: toBob, outputIndex: 0 }], [bob], [{ publicKeys: [carol.publicKey], amount: 1n }]);
    const toCarol = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [carol.publicKey], amount: 1n }]);
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    assert.equal((await fx.ledger.checkTx(bytesOf(bobToCarol))).ok, true);
    // Rechecked once with nothing changed, then a block spends toBob's input.
    await block([bytesOf(create(bob))]);
    assert.equal((await fx.ledger.recheckTx(bytesOf(toBob))).ok, true);
    assert.equal((await fx.ledger.recheckTx(bytesOf(bobToCarol))).ok, true);
    await block([bytesOf(toCarol)]);
    const parent = await fx.ledger.recheckTx(bytesOf(toBob));
    assert.equal(parent.ok ? null : parent.rejection.code, "DoubleSpend");
    // bobToCarol's input came from toBob, now gone; the block did not spend it.
    const child = await fx.ledger.recheckTx(bytesOf(bobToCarol));
    assert.equal(child.ok, false);
    assert.equal(fx.ledger.pendingCount, 0);
  });

  it("recheckTx of a transaction that is not pending admits it as checkTx would", async () => {
    const fresh = create(alice);
    assert.equal((await fx.ledger.recheckTx(bytesOf(fresh))).ok, true);
    assert.equal(fx.ledger.pendingCount, 1);
  });

  it("dryCheckTx checks as checkTx does but never joins the pending pool", async () => {
    const { asset, toBob, toCarol } = await committedAssetWithTwoSpends();
    assert.equal((await fx.ledger.dryCheckTx(bytesOf(toBob))).ok, true);
    assert.equal(fx.ledger.pendingCount, 0, "a dry check admits nothing");
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    // A pending one is checked as a recheck is: its own spends do not count against it.
    assert.equal((await fx.ledger.dryCheckTx(bytesOf(toBob))).ok, true);
    const conflict = await fx.ledger.dryCheckTx(bytesOf(toCarol));
    assert.equal(conflict.ok ? null : conflict.rejection.code, "DoubleSpend");
    // A chained spend of a pending transaction's output is fine, as in checkTx.
    const onward = transfer([{ tx: toBob, outputIndex: 0 }], [bob], [{ publicKeys: [carol.publicKey], amount: 1n }]);
    assert.equal((await fx.ledger.dryCheckTx(bytesOf(onward))).ok, true);
    assert.equal(fx.ledger.pendingCount, 1);
    // Committed conflicts and bad transactions are refused.
    const duplicate = await fx.ledger.dryCheckTx(bytesOf(asset));
    assert.equal(duplicate.ok ? null : duplicate.rejection.code, "DuplicateTransaction");
    const garbage = await fx.ledger.dryCheckTx(Buffer.from("{}"));
    assert.equal(garbage.ok, false);
  });

  it("releaseAll empties the pending pool and frees its spends", async () => {
    const { asset, toBob, toCarol } = await committedAssetWithTwoSpends();
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    assert.equal((await fx.ledger.checkTx(bytesOf(toCarol))).ok, false);
    fx.ledger.releaseAll();
    assert.equal(fx.ledger.pendingCount, 0);
    assert.equal((await fx.ledger.checkTx(bytesOf(toCarol))).ok, true);
  });

  /** Watches `tx` (as an engine waiting for its commit); the rejections it gets. */
  async function watched(tx: JsonObject): Promise<{ defeats: Rejection[]; stop: () => void }> {
    const prepared = await fx.ledger.prepare(bytesOf(tx));
    assert.ok(!("code" in prepared));
    const defeats: Rejection[] = [];
    const stop = fx.ledger.watchRivals(prepared, (rejection) => defeats.push(rejection));
    assert.ok(stop !== null);
    return { defeats, stop };
  }

  it("watchRivals: a block that spends a watched transaction's output under another id refuses it as a POST would", async () => {
    const { asset, toBob, toCarol } = await committedAssetWithTwoSpends();
    // Pending here (this node's mempool took it), as the loser of a double spend is.
    assert.equal((await fx.ledger.checkTx(bytesOf(toBob))).ok, true);
    const loser = await watched(toBob);
    // The rival's own waiter (on another node: here, toBob's spend refuses it).
    const winner = await watched(toCarol);
    // Another validator's proposal carried the rival.
    await block([bytesOf(toCarol)]);
    await waitFor("the loser's refusal", () => loser.defeats.length === 1);
    const posted = await fx.ledger.dryCheckTx(bytesOf(toBob));
    assert.deepEqual(loser.defeats, [posted.ok ? null : posted.rejection]);
    assert.deepEqual(loser.defeats[0], { code: "DoubleSpend", message: `input \`${asset["id"]}\` was already spent` });
    // The block's own transaction is no rival of itself; a later block defeats no one twice.
    await block([bytesOf(create(bob))]);
    assert.deepEqual(winner.defeats, []);
    assert.equal(loser.defeats.length, 1);
    winner.stop();
    loser.stop();
  });

  it("watchRivals: a stopped watch hears nothing; a CREATE has no rival; a block of other outputs defeats no one", async () => {
    const { toBob, toCarol } = await committedAssetWithTwoSpends();
    const stopped = await watched(toBob);
    stopped.stop();
    const fresh = await watched(create(carol));
    const other = create(bob);
    await block([bytesOf(other)]);
    const unrelated = await watched(toBob);
    await block([bytesOf(transfer([{ tx: other, outputIndex: 0 }], [bob], [{ publicKeys: [alice.publicKey], amount: 1n }]))]);
    await block([bytesOf(toCarol)]);
    await waitFor("the unrelated watch's refusal", () => unrelated.defeats.length === 1);
    assert.deepEqual(stopped.defeats, [], "stopped before the rival committed");
    assert.deepEqual(fresh.defeats, []);
  });

  it("watchRivals watches no more transactions than the pending pool holds (pendingTxsMax)", async () => {
    const small = await openLedger({ pendingTxsMax: 1 });
    try {
      await small.ledger.initChain("test-chain", [{ publicKey: "ab".repeat(32), power: 1 }]);
      const asset = create(alice);
      await small.ledger.finalizeBlock(1, [bytesOf(asset)]);
      await small.ledger.commit();
      const spends = [bob, carol].map((to) => transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [to.publicKey], amount: 1n }]));
      const prepared = await Promise.all(spends.map(async (tx) => (await small.ledger.prepare(bytesOf(tx))) as PreparedBase));
      const first = small.ledger.watchRivals(prepared[0]!, () => undefined);
      assert.ok(first !== null);
      assert.equal(small.ledger.watchRivals(prepared[1]!, () => undefined), null, "over the limit: not watched");
      first();
      assert.ok(small.ledger.watchRivals(prepared[1]!, () => undefined) !== null, "a stopped watch frees its place");
    } finally {
      await small.close();
    }
  });
});
