// The one conformance suite for every Store backend (src/store/store.ts). A backend's test file
// calls `storeConformance("sqlite", open)`; every backend must pass it unchanged. It knows
// nothing of any database: it only uses the interface. `open` must give a new, empty store.
//
// It checks every method and every rule in the interface comments, and the text search
// semantics of docs/compatibility.md #12.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import type { Store } from "../../../src/store/store.js";
import type { CommittedTx, OutputRef } from "../../../src/transaction/committed.js";
import { electionTests } from "./electionConformance.js";
import { evidenceTests } from "./evidenceConformance.js";
import { fieldTests } from "./fieldConformance.js";
import { pageTests } from "./pageConformance.js";
import { block, createTx, hex64, publicKey, ref, transferTx, validator } from "./fixtures.js";
import { legacyRef, legacyTx, mixedBlock } from "./legacyFixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

export function storeConformance(name: string, open: () => Promise<Store>): void {
  /** Runs `body` against a fresh store and always closes it. */
  async function withStore(body: (store: Store) => Promise<void>): Promise<void> {
    const store = await open();
    try {
      await body(store);
    } finally {
      await store.close();
    }
  }

  describe(`${name} store conformance`, () => {
    describe("chain state and initChain", () => chainTests(withStore));
    describe("commitBlock", () => commitTests(withStore));
    describe("outputs", () => outputTests(withStore));
    describe("transactions by asset", () => assetTests(withStore));
    describe("blocks and validators", () => blockTests(withStore));
    describe("text search", () => searchTests(withStore, open));
    describe("legacy transactions", () => legacyTests(withStore));
    describe("queries by field", () => fieldTests(withStore));
    describe("paged reads and balances", () => pageTests(withStore));
    describe("validator elections", () => electionTests(withStore));
    describe("evidence", () => evidenceTests(withStore));
  });
}

type WithStore = (body: (store: Store) => Promise<void>) => Promise<void>;

const isAssertion = { name: "AssertionError" };

function chainTests(withStore: WithStore): void {
  it("a new store is empty", () =>
    withStore(async (store) => {
      assert.ok(store.backend.length > 0);
      assert.deepEqual(await store.getChainState(), {
        height: 0,
        appHash: "",
        chainId: null,
        commitment: "bigchaindb",
        historySize: 0,
        appVersion: null,
        ruleHeights: new Map(),
      });
      assert.deepEqual(await store.getValidators(), []);
      assert.equal(await store.getBlock(1), null);
      assert.equal(await wholeOf(store).getBlockTransactions(1), null);
      assert.equal(await store.getTransaction(hex64("nothing")), null);
      assert.deepEqual(await store.findTransactions([hex64("nothing")]), new Set());
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(publicKey("nobody")), []);
      assert.deepEqual(await wholeOf(store).searchAssets("anything", 0), []);
    }));

  it("initChain records the chain id and the first validators, effective from height 1", () =>
    withStore(async (store) => {
      const validators = [validator("a", 10), validator("b", 20)];
      await store.initChain("test-chain-Ab12", validators);
      assert.deepEqual(await store.getChainState(), {
        height: 0,
        appHash: "",
        chainId: "test-chain-Ab12",
        commitment: "v1",
        historySize: 0,
        appVersion: null,
        ruleHeights: new Map(),
      });
      assert.deepEqual(await store.getValidators(), validators);
      assert.deepEqual(await store.getValidators(1), validators);
      assert.deepEqual(await store.getValidators(0), []);
    }));

  it("initChain records the genesis's protocol version and rule heights, exactly and in any name order", () =>
    withStore(async (store) => {
      const ruleHeights = new Map([["zeta-rule", 9_007_199_254_740_991], ["alpha-rule", 5]]);
      await store.initChain("c", [validator("a")], "bigchaindb", { appVersion: 18_446_744_073_709_551_615n, ruleHeights });
      const state = await store.getChainState();
      assert.equal(state.appVersion, 18_446_744_073_709_551_615n, "a uint64 kept whole");
      assert.deepEqual(state.ruleHeights, ruleHeights);
      await store.commitBlock(block(1, []));
      assert.deepEqual((await store.getChainState()).ruleHeights, ruleHeights, "a block leaves them be");
    }));

  it("recordAppVersion fills in an unrecorded protocol version and leaves a recorded one", () =>
    withStore(async (store) => {
      await store.initChain("c", [validator("a")], "bigchaindb");
      await store.commitBlock(block(1, []));
      await store.recordAppVersion(0n);
      assert.equal((await store.getChainState()).appVersion, 0n);
      await store.recordAppVersion(1n);
      assert.equal((await store.getChainState()).appVersion, 0n, "recorded once");
    }));

  it("initChain runs once: a second call is a broken invariant and changes nothing", () =>
    withStore(async (store) => {
      await store.initChain("first", [validator("a")]);
      await assert.rejects(store.initChain("second", [validator("b")]), isAssertion);
      assert.equal((await store.getChainState()).chainId, "first");
      assert.deepEqual(await store.getValidators(), [validator("a")]);
    }));

  it("initChain after the first block is a broken invariant", () =>
    withStore(async (store) => {
      await store.commitBlock(block(1, []));
      await assert.rejects(store.initChain("late", [validator("a")]), isAssertion);
      assert.equal((await store.getChainState()).chainId, null);
    }));

  it("the chain state follows the last committed block", () =>
    withStore(async (store) => {
      await store.initChain("c", [validator("a")], "bigchaindb");
      const b1 = block(1, [createTx({ label: "state-1" })]);
      await store.commitBlock(b1);
      const head1 = { height: 1, appHash: b1.appHash, chainId: "c", commitment: "bigchaindb", historySize: 0, appVersion: null, ruleHeights: new Map() };
      assert.deepEqual(await store.getChainState(), head1);
      // An empty block keeps the app hash it is given (BigchainDB keeps the previous one).
      await store.commitBlock({ height: 2, appHash: b1.appHash, txs: [] });
      assert.deepEqual(await store.getChainState(), { ...head1, height: 2 });
    }));
}

function commitTests(withStore: WithStore): void {
  it("heights are contiguous from 1", () =>
    withStore(async (store) => {
      await assert.rejects(store.commitBlock(block(0, [])), isAssertion);
      await assert.rejects(store.commitBlock(block(2, [])), isAssertion);
      await store.commitBlock(block(1, []));
      await assert.rejects(store.commitBlock(block(1, [])), isAssertion);
      await assert.rejects(store.commitBlock(block(3, [])), isAssertion);
      await store.commitBlock(block(2, []));
      assert.equal((await store.getChainState()).height, 2);
    }));

  it("a bulk load: each block's reads see the blocks before it, a refused block rolls back alone, all durable at its end", () =>
    withStore(async (store) => {
      await store.initChain("c", [validator("a")], "bigchaindb");
      const p = publicKey("bulk-owner");
      const c = createTx({ label: "bulk-c", outputs: [{ keys: [p] }, { keys: [p] }] });
      const t = transferTx({ label: "bulk-t", assetId: c.id, spends: [ref(c, 0)] });
      await store.beginBulkLoad();
      await store.commitBlock(block(1, [c]));
      // What a restore's execution of the next block reads.
      assert.deepEqual(await store.findTransactions([c.id]), new Set([c.id]));
      assert.equal((await store.getOutputs([ref(c, 0)])).get(`${c.id}:0`)?.spentBy, null);
      await store.commitBlock(block(2, [t]));
      const again = transferTx({ label: "bulk-again", assetId: c.id, spends: [ref(c, 0)] });
      await assert.rejects(store.commitBlock(block(3, [createTx({ label: "bulk-lost" }), again])), isAssertion);
      await store.commitBlock(block(3, []));
      await store.endBulkLoad();
      assert.equal((await store.getChainState()).height, 3);
      assert.equal(await store.getTransaction(t.id), t.json);
      assert.equal(await store.getTransaction(hex64("tx:bulk-lost")), null);
      assert.equal((await store.getOutputs([ref(c, 0)])).get(`${c.id}:0`)?.spentBy, t.id);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(p, false), [ref(c, 1)]);
      // Blocks after it commit one by one again.
      await store.commitBlock(block(4, [createTx({ label: "bulk-after" })]));
      assert.equal((await store.getChainState()).height, 4);
    }));

  it("empty blocks are stored", () =>
    withStore(async (store) => {
      await store.commitBlock({ height: 1, appHash: "", txs: [] });
      assert.deepEqual(await store.getBlock(1), { height: 1, appHash: "", txIds: [], historySize: null });
      assert.deepEqual(await wholeOf(store).getBlockTransactions(1), []);
    }));

  it("counts its bytes on disk, more as it holds more", () =>
    withStore(async (store) => {
      await store.commitBlock(block(1, []));
      const before = await store.sizeBytes();
      assert.ok(Number.isSafeInteger(before) && before > 0, `sizeBytes ${before}`);
      const text = "a fairly long text that takes room ".repeat(30);
      for (let height = 2; height <= 4; height++) {
        const txs = Array.from({ length: 200 }, (_, i) => createTx({ label: `size-${height}-${i}`, data: { text }, metadata: { text } }));
        await store.commitBlock(block(height, txs));
      }
      const after = await store.sizeBytes();
      assert.ok(Number.isSafeInteger(after) && after > before, `sizeBytes ${before} then ${after}`);
    }));

  it("stores every transaction of a block, readable by id", () =>
    withStore(async (store) => {
      const txs = [createTx({ label: "c-1" }), createTx({ label: "c-2" })];
      await store.commitBlock(block(1, txs));
      for (const tx of txs) assert.equal(await store.getTransaction(tx.id), tx.json);
      const unknown = hex64("unknown");
      const found = await store.findTransactions([txs[1]!.id, unknown, txs[0]!.id, txs[1]!.id]);
      assert.deepEqual(found, new Set([txs[0]!.id, txs[1]!.id]));
      // One id alone (a CheckTx's question) too.
      for (const tx of txs) assert.deepEqual(await store.findTransactions([tx.id]), new Set([tx.id]));
      assert.equal(await store.getTransaction(unknown), null);
      // Ids are matched exactly: no prefix, no case folding, no garbage.
      assert.equal(await store.getTransaction(txs[0]!.id.toUpperCase()), null);
      assert.equal(await store.getTransaction(txs[0]!.id.slice(0, 63)), null);
      assert.equal(await store.getTransaction("123"), null);
      assert.equal(await store.getTransaction(""), null);
    }));

  it("a spend inside the same block of an output created earlier in it is allowed", () =>
    withStore(async (store) => {
      const c = createTx({ label: "same-block" });
      const t = transferTx({ label: "same-block-t", assetId: c.id, spends: [ref(c, 0)] });
      await store.commitBlock(block(1, [c, t]));
      const outputs = await store.getOutputs([ref(c, 0)]);
      assert.equal(outputs.get(`${c.id}:0`)?.spentBy, t.id);
    }));

  // Each case: a first, valid transaction, then one that breaks an invariant. Nothing of the
  // block may be written, and the store must still take the block afterwards.
  const broken: [string, (prior: CommittedTx) => CommittedTx[]][] = [
    ["spends an output that does not exist", (p) => [
      transferTx({
        label: "bad-missing",
        assetId: p.id,
        spends: [{ transactionId: hex64("nope"), outputIndex: 0 }],
      }),
    ]],
    ["spends an output index past the end", (p) => [
      transferTx({ label: "bad-index", assetId: p.id, spends: [ref(p, 7)] }),
    ]],
    ["spends an output already spent in an earlier block", (p) => [
      transferTx({ label: "bad-spent", assetId: p.id, spends: [ref(p, 1)] }),
    ]],
    ["spends one output twice in one block", (p) => [
      transferTx({ label: "bad-twice-1", assetId: p.id, spends: [ref(p, 0)] }),
      transferTx({ label: "bad-twice-2", assetId: p.id, spends: [ref(p, 0)] }),
    ]],
    ["spends one output twice in one transaction", (p) => [
      transferTx({ label: "bad-dup-input", assetId: p.id, spends: [ref(p, 0), ref(p, 0)] }),
    ]],
    ["spends its own output", () => [
      {
        ...createTx({ label: "bad-self" }),
        spends: [{ transactionId: hex64("tx:bad-self"), outputIndex: 0 }],
      },
    ]],
    ["repeats an id already stored", (p) => [p]],
    ["repeats an id inside the block", () => [
      createTx({ label: "bad-dup" }),
      createTx({ label: "bad-dup" }),
    ]],
  ];
  for (const [what, makeBad] of broken) {
    it(`a block whose transaction ${what} is refused whole (AssertionError)`, () =>
      withStore(async (store) => {
        const p = publicKey("p");
        const prior = createTx({ label: "prior", outputs: [{ keys: [p] }, { keys: [p] }] });
        const spends = [ref(prior, 1)];
        const spender = transferTx({ label: "prior-spender", assetId: prior.id, spends });
        await store.initChain("c", [validator("a")], "bigchaindb");
        await store.commitBlock(block(1, [prior, spender]));
        const good = createTx({
          label: "good",
          outputs: [{ keys: [publicKey("good-owner")] }],
          data: { word: "zanzibar" },
          metadata: { word: "quixotic" },
        });
        const bad = block(2, [good, ...makeBad(prior)], [validator("new")]);
        await assert.rejects(store.commitBlock(bad), isAssertion);
        await assertNothingOf(store, good, 1);
        assert.deepEqual(await store.getValidators(), [validator("a")]);
        // The prior block is untouched and the store takes a good block 2.
        assert.equal((await store.getOutputs([ref(prior, 0)])).get(`${prior.id}:0`)?.spentBy, null);
        await store.commitBlock(block(2, [good]));
        assert.equal(await store.getTransaction(good.id), good.json);
      }));
  }

  it("amounts are kept exactly, up to 9e18 and beyond", () =>
    withStore(async (store) => {
      const amounts = [9_000_000_000_000_000_000n, 1n, 123_456_789_012_345_678_901_234_567_890n];
      const outputs = amounts.map((amount) => ({ keys: [publicKey("a")], amount }));
      const c = createTx({ label: "amounts", outputs });
      await store.commitBlock(block(1, [c]));
      const stored = await store.getOutputs(amounts.map((_, i) => ref(c, i)));
      assert.deepEqual(amounts.map((_, i) => stored.get(`${c.id}:${i}`)?.amount), amounts);
    }));
}

async function assertNothingOf(store: Store, tx: CommittedTx, height: number): Promise<void> {
  assert.equal((await store.getChainState()).height, height);
  assert.equal(await store.getBlock(height + 1), null);
  assert.equal(await wholeOf(store).getBlockTransactions(height + 1), null);
  assert.equal(await store.getTransaction(tx.id), null);
  assert.deepEqual(await store.findTransactions([tx.id]), new Set());
  assert.equal(await store.getBlockHeightOfTransaction(tx.id), null);
  assert.deepEqual(await wholeOf(store).getTransactionsByAsset(tx.assetId), []);
  assert.equal((await store.getOutputs([ref(tx, 0)])).size, 0);
  for (const key of tx.outputs[0]!.publicKeys) {
    assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(key), []);
  }
  assert.deepEqual(await wholeOf(store).searchAssets("zanzibar", 0), []);
  assert.deepEqual(await wholeOf(store).searchMetadata("quixotic", 0), []);
}

function outputTests(withStore: WithStore): void {
  const alice = publicKey("alice");
  const bob = publicKey("bob");
  const carol = publicKey("carol");
  // Block 1: c1 gives alice 9e18 and alice+bob (a 2-of-2 threshold) 5.
  // Block 2: t1 spends c1:0 to carol.  Block 3: c2 gives alice 1 and bob 2.
  const c1 = createTx({
    label: "out-c1",
    outputs: [
      { keys: [alice], amount: 9_000_000_000_000_000_000n },
      { keys: [alice, bob], amount: 5n },
    ],
  });
  const t1 = transferTx({
    label: "out-t1",
    assetId: c1.id,
    spends: [ref(c1, 0)],
    outputs: [{ keys: [carol], amount: 9_000_000_000_000_000_000n }],
  });
  const c2 = createTx({
    label: "out-c2",
    outputs: [{ keys: [bob], amount: 2n }, { keys: [alice], amount: 1n }],
  });

  async function commitAll(store: Store): Promise<void> {
    await store.commitBlock(block(1, [c1]));
    await store.commitBlock(block(2, [t1]));
    await store.commitBlock(block(3, [c2]));
  }

  it("getOutputs gives committed outputs with who spent them; missing ones are absent", () =>
    withStore(async (store) => {
      await commitAll(store);
      const missing: OutputRef[] = [ref(c1, 2), { transactionId: hex64("nope"), outputIndex: 0 }];
      const asked = [ref(c1, 0), ref(c1, 1), ref(t1, 0), ...missing, ref(c1, 0)];
      const outputs = await store.getOutputs(asked);
      const found = [`${c1.id}:0`, `${c1.id}:1`, `${t1.id}:0`];
      assert.deepEqual([...outputs.keys()].sort(), found.sort());
      assert.deepEqual(outputs.get(`${c1.id}:0`), {
        ...c1.outputs[0]!,
        transactionId: c1.id,
        assetId: c1.id,
        spentBy: t1.id,
      });
      assert.deepEqual(outputs.get(`${c1.id}:1`), {
        ...c1.outputs[1]!,
        transactionId: c1.id,
        assetId: c1.id,
        spentBy: null,
      });
      // A TRANSFER's outputs carry the asset id of the asset, not the transfer's own id.
      assert.equal(outputs.get(`${t1.id}:0`)?.assetId, c1.id);
      assert.deepEqual(outputs.get(`${c1.id}:1`)?.publicKeys, [alice, bob]);
      assert.deepEqual(await store.getOutputs([]), new Map());
    }));

  it("outputs by key: in commit order; a multi-owner output is listed for each owner", () =>
    withStore(async (store) => {
      await commitAll(store);
      const ofAlice = [ref(c1, 0), ref(c1, 1), ref(c2, 1)];
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(alice), ofAlice);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(bob), [ref(c1, 1), ref(c2, 0)]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(carol), [ref(t1, 0)]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(publicKey("nobody")), []);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(""), []);
    }));

  it("outputs by key: spent true gives only spent, false only unspent", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(alice, true), [ref(c1, 0)]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(alice, false), [ref(c1, 1), ref(c2, 1)]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(carol, true), []);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(carol, false), [ref(t1, 0)]);
      // Spending the threshold output moves it for both owners.
      const t2 = transferTx({
        label: "out-t2",
        assetId: c1.id,
        spends: [ref(c1, 1)],
        outputs: [{ keys: [carol], amount: 5n }],
      });
      await store.commitBlock(block(4, [t2]));
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(bob, true), [ref(c1, 1)]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(alice, true), [ref(c1, 0), ref(c1, 1)]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(carol, false), [ref(t1, 0), ref(t2, 0)]);
    }));

  it("a key named twice in one output lists the output once", () =>
    withStore(async (store) => {
      const c = createTx({ label: "twice", outputs: [{ keys: [alice, alice] }] });
      await store.commitBlock(block(1, [c]));
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(alice), [ref(c, 0)]);
    }));
}

function assetTests(withStore: WithStore): void {
  const c = createTx({ label: "asset-c" });
  const t1 = transferTx({ label: "asset-t1", assetId: c.id, spends: [ref(c, 0)] });
  const other = createTx({ label: "asset-other" });
  const t2 = transferTx({ label: "asset-t2", assetId: c.id, spends: [ref(t1, 0)] });
  const t3 = transferTx({ label: "asset-t3", assetId: other.id, spends: [ref(other, 0)] });

  async function commitAll(store: Store): Promise<void> {
    await store.commitBlock(block(1, [c, other]));
    await store.commitBlock(block(2, [t1]));
    await store.commitBlock(block(3, [t3, t2]));
  }

  it("all transactions of an asset in commit order", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await wholeOf(store).getTransactionsByAsset(c.id), [c.json, t1.json, t2.json]);
      assert.deepEqual(await wholeOf(store).getTransactionsByAsset(other.id), [other.json, t3.json]);
      assert.deepEqual(await wholeOf(store).getTransactionsByAsset(hex64("none")), []);
      assert.deepEqual(await wholeOf(store).getTransactionsByAsset(t1.id), []);
    }));

  it("with an operation, only those; with lastOnly, only the last that matches", () =>
    withStore(async (store) => {
      await commitAll(store);
      const byAsset = wholeOf(store).getTransactionsByAsset;
      assert.deepEqual(await byAsset(c.id, { operation: "CREATE" }), [c.json]);
      assert.deepEqual(await byAsset(c.id, { operation: "TRANSFER" }), [t1.json, t2.json]);
      assert.deepEqual(await byAsset(c.id, { lastOnly: true }), [t2.json]);
      assert.deepEqual(await byAsset(c.id, { lastOnly: false }), [c.json, t1.json, t2.json]);
      assert.deepEqual(await byAsset(c.id, { operation: "CREATE", lastOnly: true }), [c.json]);
      assert.deepEqual(await byAsset(c.id, { operation: "TRANSFER", lastOnly: true }), [t2.json]);
      const lastTransfer = { operation: "TRANSFER", lastOnly: true } as const;
      assert.deepEqual(await byAsset(other.id, lastTransfer), [t3.json]);
      assert.deepEqual(await byAsset(hex64("none"), { lastOnly: true }), []);
      const lone = createTx({ label: "asset-lone" });
      await store.commitBlock(block(4, [lone]));
      assert.deepEqual(await byAsset(lone.id, { operation: "TRANSFER" }), []);
      assert.deepEqual(await byAsset(lone.id, { operation: "TRANSFER", lastOnly: true }), []);
    }));
}

function blockTests(withStore: WithStore): void {
  it("blocks list their transactions in block order", () =>
    withStore(async (store) => {
      const txs = ["z", "a", "m"].map((label) => createTx({ label: `blk-${label}` }));
      const b1 = block(1, txs);
      await store.commitBlock(b1);
      await store.commitBlock(block(2, []));
      const b3 = block(3, [createTx({ label: "blk-3" })]);
      await store.commitBlock(b3);
      const txIds = txs.map((t) => t.id);
      assert.deepEqual(await store.getBlock(1), { height: 1, appHash: b1.appHash, txIds, historySize: null });
      assert.deepEqual(await wholeOf(store).getBlockTransactions(1), txs.map((t) => t.json));
      assert.deepEqual(await store.getBlock(2), { height: 2, appHash: "", txIds: [], historySize: null });
      const b3Ids = [b3.txs[0]!.id];
      assert.deepEqual(await store.getBlock(3), { height: 3, appHash: b3.appHash, txIds: b3Ids, historySize: null });
      assert.deepEqual(await wholeOf(store).getBlockTransactions(3), [b3.txs[0]!.json]);
      assert.equal(await store.getBlock(4), null);
      assert.equal(await store.getBlock(0), null);
      assert.equal(await wholeOf(store).getBlockTransactions(4), null);
    }));

  it("the block of a transaction", () =>
    withStore(async (store) => {
      const a = createTx({ label: "bh-a" });
      const b = createTx({ label: "bh-b" });
      await store.commitBlock(block(1, [a]));
      await store.commitBlock(block(2, []));
      await store.commitBlock(block(3, [b]));
      assert.equal(await store.getBlockHeightOfTransaction(a.id), 1);
      assert.equal(await store.getBlockHeightOfTransaction(b.id), 3);
      assert.equal(await store.getBlockHeightOfTransaction(hex64("none")), null);
      assert.equal(await store.getBlockHeightOfTransaction(""), null);
    }));

  it("validators by height: an update takes effect from the next height", () =>
    withStore(async (store) => {
      const v1 = [validator("a", 10)];
      const v2 = [validator("a", 10), validator("b", 5)];
      const v3 = [validator("b", 7)];
      await store.initChain("c", v1, "bigchaindb");
      await store.commitBlock(block(1, []));
      await store.commitBlock(block(2, [], v2));
      assert.deepEqual(await store.getValidators(2), v1);
      assert.deepEqual(await store.getValidators(3), v2);
      assert.deepEqual(await store.getValidators(), v2);
      await store.commitBlock(block(3, [createTx({ label: "val" })], v3));
      assert.deepEqual(await store.getValidators(1), v1);
      assert.deepEqual(await store.getValidators(3), v2);
      assert.deepEqual(await store.getValidators(4), v3);
      assert.deepEqual(await store.getValidators(1000), v3);
      assert.deepEqual(await store.getValidators(), v3);
      assert.deepEqual(await store.getValidators(0), []);
    }));
}

function searchTests(withStore: WithStore, open: () => Promise<Store>): void {
  // The bike assets: the long one is committed first, so relevance, not commit order, puts the
  // short one first.
  const assets = {
    runner: createTx({ label: "s-runner", data: { name: "Running shoes", brand: "Acme" } }),
    cafe: createTx({
      label: "s-cafe",
      data: { title: "Crème brûlée at the Café", tags: ["dessert"] },
    }),
    redCar: createTx({ label: "s-red-car", data: { description: "a red car for sale" } }),
    split: createTx({ label: "s-split", data: { a: "red", b: "car", c: "blue paint" } }),
    bikeLong: createTx({
      label: "s-bike-long",
      data: { text: "bike with a long list of parts: wheels, pedals, chain, saddle, bell, lamp" },
    }),
    bikeShort: createTx({ label: "s-bike-short", data: { text: "bike bike" } }),
    nested: createTx({
      label: "s-nested",
      data: {
        deep: { list: [{ x: "submarine" }, "periscope"], year: 2019, flag: true, none: null },
      },
    }),
    twin1: createTx({ label: "s-twin-1", data: { kind: "widget" } }),
    twin2: createTx({ label: "s-twin-2", data: { kind: "widget" } }),
    noData: createTx({ label: "s-no-data", data: null, metadata: { note: "widget" } }),
  };
  const transfer = transferTx({
    label: "s-transfer",
    assetId: assets.runner.id,
    spends: [ref(assets.runner, 0)],
    metadata: { note: "shipped by courier", history: ["repaired"] },
  });

  async function commitAll(store: Store): Promise<void> {
    const { bikeLong, bikeShort, ...rest } = assets;
    await store.commitBlock(block(1, [bikeLong, ...Object.values(rest)]));
    await store.commitBlock(block(2, [bikeShort, transfer]));
  }

  async function ids(store: Store, query: string, limit = 0): Promise<string[]> {
    return (await wholeOf(store).searchAssets(query, limit)).map((hit) => hit.id);
  }

  async function idSet(store: Store, query: string): Promise<Set<string>> {
    return new Set(await ids(store, query));
  }

  const cases: [string, string, CommittedTx[]][] = [
    ["stemming: `run` finds Running", "run", [assets.runner]],
    ["stemming: `runs` finds Running", "runs", [assets.runner]],
    ["case: `RUNNING`", "RUNNING", [assets.runner]],
    ["diacritics: `cafe` finds Café", "cafe", [assets.cafe]],
    ["diacritics: `CAFÉ`", "CAFÉ", [assets.cafe]],
    ["diacritics in the data: `brulee`", "brulee", [assets.cafe]],
    ["values in arrays and nested objects", "periscope", [assets.nested]],
    ["deep values", "submarine", [assets.nested]],
    ["keys are not indexed", "brand", []],
    ["nested keys are not indexed", "deep", []],
    ["numbers are not indexed", "2019", []],
    ["booleans are not indexed", "true", []],
    ["a phrase matches inside one value", '"red car"', [assets.redCar]],
    ["a phrase with its stop words", '"at the café"', [assets.cafe]],
    ["a phrase does not match across two values", '"car blue"', []],
    ["with a phrase, a term alone is not enough", 'sale "blue car"', []],
    ["a phrase and a term", '"blue paint" sale', [assets.split]],
    ["exclusion", "car -sale", [assets.split]],
    ["excluded phrase", 'car -"blue paint"', [assets.redCar]],
    ["an excluded phrase must match as a phrase", 'paint -"red car"', [assets.split]],
    ["a negation lasts to the next whitespace: -a-b", "car bike -red-long", [assets.bikeShort]],
    ["`- sale` with a space is not a negation", "- sale", [assets.redCar]],
    ["a hyphen inside a word separates terms", "submarine-periscope", [assets.nested]],
    ["exclusions alone match nothing", "-red", []],
    ["stop words alone match nothing", "the a of and", []],
    ["a phrase of stop words alone matches nothing", '"at the"', []],
    ["stop words are dropped from the query", "the submarine", [assets.nested]],
    ["an unclosed phrase still gives its words as terms", '"submarine', [assets.nested]],
    ["no match", "xylophone", []],
    ["empty", "", []],
    ["whitespace", "  \n ", []],
  ];
  // The tables' queries only read, so each table asks one store the commits were made in once:
  // a store per query cost a quarter of a second each, a minute of every `npm test`.
  describe("queries against the committed assets", () => {
    const committed = sharedStore(open, commitAll);
    for (const [what, query, expected] of cases) {
      it(`${what} (${JSON.stringify(query)})`, async () => {
        assert.deepEqual(await idSet(committed(), query), new Set(expected.map((t) => t.id)));
      });
    }
  });

  it("terms are OR'ed", () =>
    withStore(async (store) => {
      await commitAll(store);
      const both = new Set([assets.runner.id, assets.nested.id]);
      assert.deepEqual(await idSet(store, "shoes submarine"), both);
      assert.deepEqual(await idSet(store, "red-car"), new Set([assets.redCar.id, assets.split.id]));
    }));

  it("the document id is indexed", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await ids(store, assets.cafe.id), [assets.cafe.id]);
      assert.deepEqual(await ids(store, assets.cafe.id.toUpperCase()), [assets.cafe.id]);
      const byId = await wholeOf(store).searchMetadata(transfer.id, 0);
      assert.deepEqual(byId, [{ id: transfer.id, json: transfer.metadata }]);
    }));

  it("hits carry the id and the document as committed", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await wholeOf(store).searchAssets("submarine", 0), [
        { id: assets.nested.id, json: assets.nested.assetData },
      ]);
      assert.deepEqual(await wholeOf(store).searchMetadata("courier", 0), [
        { id: transfer.id, json: transfer.metadata },
      ]);
      // A TRANSFER has no asset data; a CREATE with null data has none to find.
      assert.deepEqual(await ids(store, "shipped"), []);
      assert.deepEqual(
        (await wholeOf(store).searchMetadata("widget", 0)).map((h) => h.id),
        [assets.noData.id],
      );
    }));

  it("best match first, then commit order; limit caps, 0 means all", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await ids(store, "bike"), [assets.bikeShort.id, assets.bikeLong.id]);
      assert.deepEqual(await ids(store, "bike", 1), [assets.bikeShort.id]);
      assert.deepEqual(await ids(store, "bike", 2), [assets.bikeShort.id, assets.bikeLong.id]);
      assert.deepEqual(await ids(store, "bike", 50), [assets.bikeShort.id, assets.bikeLong.id]);
      assert.deepEqual(await ids(store, "widget"), [assets.twin1.id, assets.twin2.id]);
      assert.deepEqual(await ids(store, "widget", 1), [assets.twin1.id]);
    }));

  it("a negative or fractional limit is a BadParameter", () =>
    withStore(async (store) => {
      await commitAll(store);
      for (const limit of [-1, 1.5, Number.NaN]) {
        await assert.rejects(wholeOf(store).searchAssets("bike", limit), isBadParameter);
        await assert.rejects(wholeOf(store).searchMetadata("courier", limit), isBadParameter);
      }
    }));

  const hostile: [string, CommittedTx[]][] = [
    ['shoes" OR bar*', [assets.runner]],
    ["NEAR(shoes", [assets.runner]],
    ["NEAR(", []],
    ['"', []],
    ['""', []],
    ['"""', []],
    ["-", []],
    ["--shoes", []],
    ["*", []],
    ["shoes*", [assets.runner]],
    ["^shoes", [assets.runner]],
    ["name:shoes", [assets.runner]],
    ["{name}: shoes", [assets.runner]],
    ["shoes AND", [assets.runner]],
    ["OR", []],
    ["NOT shoes", [assets.runner]],
    ["(((shoes", [assets.runner]],
    [")", []],
    ["'", []],
    ["shoes\u0000", [assets.runner]],
    ["\u0000", []],
    ["\uE000", []],
    ["\uD800", []],
    ["😀 shoes", [assets.runner]],
    ["\\\"shoes", [assets.runner]],
    ["%' OR 1=1 --", []],
    ["x".repeat(10_000), []],
  ];
  describe("hostile queries against the committed assets", () => {
    const committed = sharedStore(open, commitAll);
    for (const [query, expected] of hostile) {
      it(`a hostile query is read as words (${JSON.stringify(query).slice(0, 40)})`, async () => {
        assert.deepEqual(await idSet(committed(), query), new Set(expected.map((t) => t.id)));
        assert.ok(Array.isArray(await wholeOf(committed()).searchMetadata(query, 0)));
      });
    }
  });
}

/**
 * One store for the read-only tests of the enclosing describe: opened and `fill`ed before the
 * first, closed after the last.
 */
function sharedStore(open: () => Promise<Store>, fill: (store: Store) => Promise<void>): () => Store {
  let current: Store | null = null;
  before(async () => {
    current = await open();
    await fill(current);
  });
  after(() => current?.close());
  return () => {
    assert.ok(current, "the shared store is opened before the first test");
    return current;
  };
}

function isBadParameter(error: unknown): boolean {
  return error instanceof LedgerError && error.code === "BadParameter";
}

// Legacy transactions (variants A and B, docs/compatibility.md #13-#16): apart from v2.0 in every
// read, one spent index for both variants, refusals recorded, and the same all-or-nothing commit.
function legacyTests(withStore: WithStore): void {
  const alice = publicKey("legacy-alice");
  const bob = publicKey("legacy-bob");

  it("a new store has no legacy transaction; empty lookups answer empty", () =>
    withStore(async (store) => {
      const id = hex64("legacy:nothing");
      assert.deepEqual(await store.findLegacyTransactions([id]), new Set());
      assert.deepEqual(await store.findLegacyTransactions([]), new Set());
      assert.equal((await store.getLegacyOutputs([{ txid: id, cid: 0 }])).size, 0);
      assert.equal((await store.getLegacyOutputs([])).size, 0);
      assert.equal(await store.getLegacyTransaction(id), null);
      assert.equal(await store.getLegacyRecord(id), null);
    }));

  it("a block's contents: every valid transaction of both kinds in block order, with the app hash", () =>
    withStore(async (store) => {
      const c1 = createTx({ label: "contents-c1" });
      const c2 = createTx({ label: "contents-c2" });
      const c3 = createTx({ label: "contents-c3" });
      const a = legacyTx({ label: "contents-a", variant: "A", outputs: [[alice]] });
      const b = legacyTx({ label: "contents-b", variant: "B", outputs: [[alice]] });
      const written = mixedBlock(1, [c1, a, c2, c3, b]);
      await store.commitBlock(written);
      await store.commitBlock(mixedBlock(2, []));
      await store.commitBlock(mixedBlock(3, [legacyTx({ label: "contents-l", variant: "A", outputs: [[alice]] })]));
      const contents = await store.getBlockContents(1);
      assert.equal(contents?.appHash, written.appHash);
      assert.deepEqual(contents?.txs.map((t) => [t.kind, t.id, t.json]), [
        ["v2", c1.id, c1.json],
        ["legacy", a.id, a.json],
        ["v2", c2.id, c2.json],
        ["v2", c3.id, c3.json],
        ["legacy", b.id, b.json],
      ]);
      assert.deepEqual(await store.getBlockContents(2), { height: 2, appHash: "", txs: [], historySize: null, evidence: [] });
      assert.deepEqual((await store.getBlockContents(3))?.txs.map((t) => t.kind), ["legacy"]);
      assert.equal(await store.getBlockContents(4), null);
      // The ids alone, as proofs read them: the same order.
      assert.deepEqual(await store.getBlockIds(1), [c1.id, a.id, c2.id, c3.id, b.id]);
      assert.deepEqual(await store.getBlockIds(2), []);
      assert.deepEqual(await store.getBlockHead(1), { height: 1, appHash: written.appHash, historySize: null });
      assert.equal(await store.getBlockHead(4), null);
      assert.equal(await store.getBlockIds(4), null);
    }));

  it("the streams' replay: blocks from a height on with their v2.0 ids and asset ids, paged", () =>
    withStore(async (store) => {
      const c1 = createTx({ label: "replay-c1" });
      const a = legacyTx({ label: "replay-a", variant: "A", outputs: [[alice]] });
      const c2 = createTx({ label: "replay-c2" });
      const t = transferTx({ label: "replay-t", assetId: c1.id, spends: [ref(c1, 0)] });
      const first = mixedBlock(1, [c1, a, c2]);
      await store.commitBlock(first);
      await store.commitBlock(mixedBlock(2, []));
      await store.commitBlock(mixedBlock(3, [t]));
      const one = { height: 1, appHash: first.appHash, txs: [{ id: c1.id, assetId: c1.id }, { id: c2.id, assetId: c2.id }] };
      const two = { height: 2, appHash: "", txs: [] };
      const three = { height: 3, appHash: mixedBlock(3, [t]).appHash, txs: [{ id: t.id, assetId: c1.id }] };
      assert.deepEqual(await store.getStreamBlocks(1, { blocksMax: 10, txsMax: 10 }), [one, two, three]);
      // A page: at most blocksMax blocks, no block past txsMax transactions, the first always.
      assert.deepEqual(await store.getStreamBlocks(1, { blocksMax: 2, txsMax: 10 }), [one, two]);
      assert.deepEqual(await store.getStreamBlocks(1, { blocksMax: 10, txsMax: 1 }), [one]);
      assert.deepEqual(await store.getStreamBlocks(2, { blocksMax: 10, txsMax: 0 }), [two]);
      assert.deepEqual(await store.getStreamBlocks(3, { blocksMax: 10, txsMax: 0 }), [three]);
      assert.deepEqual(await store.getStreamBlocks(4, { blocksMax: 10, txsMax: 10 }), []);
    }));

  it("legacy and v2.0 transactions share a block, and each read sees only its own kind", () =>
    withStore(async (store) => {
      const c = createTx({ label: "mixed-c", outputs: [{ keys: [alice] }] });
      const a = legacyTx({ label: "mixed-a", variant: "A", outputs: [[alice]] });
      const b = legacyTx({ label: "mixed-b", variant: "B", outputs: [[alice]] });
      await store.commitBlock(mixedBlock(1, [a, c, b]));
      for (const tx of [a, b]) {
        assert.equal(await store.getLegacyTransaction(tx.id), tx.json);
        assert.deepEqual(await store.getLegacyRecord(tx.id), { status: "valid", height: 1 });
        // No v2.0 read sees a legacy transaction.
        assert.equal(await store.getTransaction(tx.id), null);
        assert.equal(await store.getBlockHeightOfTransaction(tx.id), null);
        assert.deepEqual(await wholeOf(store).getTransactionsByAsset(tx.id), []);
        assert.equal((await store.getOutputs([{ transactionId: tx.id, outputIndex: 0 }])).size, 0);
      }
      assert.deepEqual(await store.findTransactions([a.id, b.id, c.id]), new Set([c.id]));
      assert.deepEqual(await store.getBlock(1), { height: 1, appHash: mixedBlock(1, [a, c, b]).appHash, txIds: [c.id], historySize: null });
      assert.deepEqual(await wholeOf(store).getBlockTransactions(1), [c.json]);
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey(alice), [ref(c, 0)]);
      // And no legacy read sees a v2.0 transaction.
      assert.deepEqual(await store.findLegacyTransactions([a.id, b.id, c.id]), new Set([a.id, b.id]));
      assert.equal(await store.getLegacyTransaction(c.id), null);
      assert.equal(await store.getLegacyRecord(c.id), null);
      assert.equal((await store.getLegacyOutputs([{ txid: c.id, cid: 0 }])).size, 0);
      // Ids are matched exactly.
      assert.equal(await store.getLegacyTransaction(a.id.toUpperCase()), null);
      assert.equal(await store.getLegacyTransaction(a.id.slice(0, 63)), null);
      assert.equal(await store.getLegacyRecord(""), null);
    }));

  it("a block with legacy transactions only keeps no v2.0 transaction and its app hash", () =>
    withStore(async (store) => {
      const a = legacyTx({ label: "only-a" });
      const write = mixedBlock(1, [a]);
      await store.commitBlock(write);
      assert.deepEqual(await store.getChainState(), {
        height: 1,
        appHash: write.appHash,
        chainId: null,
        commitment: "bigchaindb",
        historySize: 0,
        appVersion: null,
        ruleHeights: new Map(),
      });
      assert.deepEqual(await store.getBlock(1), { height: 1, appHash: write.appHash, txIds: [], historySize: null });
      assert.equal(await store.getLegacyTransaction(a.id), a.json);
    }));

  it("one spent index for both variants: outputs with their spender, across variants and blocks", () =>
    withStore(async (store) => {
      const a = legacyTx({ label: "spent-a", variant: "A", outputs: [[alice], [alice, bob]] });
      // A B TRANSFER spends the A CREATE's first output in the same block.
      const b = legacyTx({ label: "spent-b", variant: "B", spends: [legacyRef(a, 0)], outputs: [[bob]] });
      await store.commitBlock(mixedBlock(1, [a, b]));
      // An A TRANSFER spends the B TRANSFER's output in a later block.
      const a2 = legacyTx({ label: "spent-a2", variant: "A", spends: [legacyRef(b, 0)] });
      await store.commitBlock(mixedBlock(2, [a2]));
      const refs = [legacyRef(a, 0), legacyRef(a, 1), legacyRef(b, 0), legacyRef(a2, 0), legacyRef(a, 2)];
      const outputs = await store.getLegacyOutputs(refs);
      assert.deepEqual([...outputs.keys()], refs.slice(0, 4).map((r) => `${r.txid}:${r.cid}`));
      assert.deepEqual(outputs.get(`${a.id}:0`), { ...a.outputs[0]!, txid: a.id, spentBy: b.id });
      assert.deepEqual(outputs.get(`${a.id}:1`), { ...a.outputs[1]!, txid: a.id, spentBy: null });
      assert.equal(outputs.get(`${b.id}:0`)?.spentBy, a2.id);
      assert.equal(outputs.get(`${a2.id}:0`)?.spentBy, null);
      assert.deepEqual(await store.getLegacyRecord(a2.id), { status: "valid", height: 2 });
      assert.deepEqual(await store.findLegacyTransactions([a.id, a2.id, hex64("x")]), new Set([a.id, a2.id]));
    }));

  it("refusals are recorded (invalid), the latest wins, and a later commit makes the id valid", () =>
    withStore(async (store) => {
      const a = legacyTx({ label: "refused-a" });
      const other = legacyTx({ label: "refused-other" });
      await store.commitBlock(mixedBlock(1, [other], [{ id: a.id, code: "InputDoesNotExist", message: "first", json: a.json, position: 1 }]));
      const first = { status: "invalid", height: 1, code: "InputDoesNotExist", message: "first" };
      assert.deepEqual(await store.getLegacyRecord(a.id), first);
      assert.equal(await store.getLegacyTransaction(a.id), null);
      assert.deepEqual(await store.findLegacyTransactions([a.id]), new Set());
      // A block that carries only a refusal still records it.
      // A message may quote anything a transaction carried, NUL included.
      await store.commitBlock(mixedBlock(2, [], [{ id: a.id, code: "DoubleSpend", message: "second \u0000 'x'", json: a.json, position: 0 }]));
      const second = { status: "invalid", height: 2, code: "DoubleSpend", message: "second \u0000 'x'" };
      assert.deepEqual(await store.getLegacyRecord(a.id), second);
      // Their bodies and places, by height, for a state-sync snapshot to carry.
      const bodies = [{ height: 1, position: 1, json: a.json }, { height: 2, position: 0, json: a.json }];
      assert.deepEqual(await store.getRefusedLegacyTxs(1, 2), bodies);
      assert.deepEqual(await store.getRefusedLegacyTxs(2, 9), bodies.slice(1));
      await store.commitBlock(mixedBlock(3, [a]));
      assert.deepEqual(await store.getLegacyRecord(a.id), { status: "valid", height: 3 });
      assert.equal(await store.getLegacyTransaction(a.id), a.json);
    }));

  const broken: [string, (prior: ReturnType<typeof legacyTx>) => ReturnType<typeof legacyTx>[]][] = [
    ["spends a legacy output that does not exist", () => [
      legacyTx({ label: "lbad-missing", spends: [{ txid: hex64("nope"), cid: 0 }] }),
    ]],
    ["spends a cid past the end", (p) => [legacyTx({ label: "lbad-cid", spends: [legacyRef(p, 5)] })]],
    ["spends a legacy output already spent", (p) => [legacyTx({ label: "lbad-spent", spends: [legacyRef(p, 1)] })]],
    ["spends one output twice in one block", (p) => [
      legacyTx({ label: "lbad-twice-1", variant: "A", spends: [legacyRef(p, 0)] }),
      legacyTx({ label: "lbad-twice-2", variant: "B", spends: [legacyRef(p, 0)] }),
    ]],
    ["spends one output twice in one transaction", (p) => [
      legacyTx({ label: "lbad-dup-input", spends: [legacyRef(p, 0), legacyRef(p, 0)] }),
    ]],
    ["spends its own output", () => [
      { ...legacyTx({ label: "lbad-self" }), spends: [{ txid: hex64("legacy:lbad-self"), cid: 0 }] },
    ]],
    ["repeats a legacy id already stored", (p) => [p]],
    ["repeats a legacy id inside the block", () => [legacyTx({ label: "lbad-dup" }), legacyTx({ label: "lbad-dup" })]],
    ["spends a v2.0 output (the namespaces are apart)", () => [
      legacyTx({ label: "lbad-v2", spends: [{ txid: hex64("tx:lprior-v2"), cid: 0 }] }),
    ]],
  ];
  for (const [what, makeBad] of broken) {
    it(`a block whose legacy transaction ${what} is refused whole (AssertionError)`, () =>
      withStore(async (store) => {
        const prior = legacyTx({ label: "lprior", outputs: [[alice], [alice]] });
        const spender = legacyTx({ label: "lprior-spender", spends: [legacyRef(prior, 1)] });
        const priorV2 = createTx({ label: "lprior-v2" });
        await store.commitBlock(mixedBlock(1, [prior, priorV2, spender]));
        const good = createTx({ label: "lgood", outputs: [{ keys: [publicKey("lgood-owner")] }] });
        const goodLegacy = legacyTx({ label: "lgood-legacy" });
        const refusal = { id: hex64("legacy:refused"), code: "DoubleSpend", message: "m", json: "{}", position: 0 };
        const bad = mixedBlock(2, [good, goodLegacy, ...makeBad(prior)], [refusal]);
        await assert.rejects(store.commitBlock(bad), isAssertion);
        assert.equal((await store.getChainState()).height, 1);
        assert.equal(await store.getTransaction(good.id), null);
        assert.equal(await store.getLegacyTransaction(goodLegacy.id), null);
        assert.equal(await store.getLegacyRecord(refusal.id), null);
        const outputs = await store.getLegacyOutputs([legacyRef(prior, 0), legacyRef(prior, 1)]);
        assert.deepEqual([...outputs.values()].map((o) => o.spentBy), [null, spender.id]);
        // The store takes a good block 2.
        await store.commitBlock(mixedBlock(2, [good, goodLegacy]));
        assert.equal(await store.getLegacyTransaction(goodLegacy.id), goodLegacy.json);
      }));
  }

  it("legacy positions must follow block order among the block's valid transactions", () =>
    withStore(async (store) => {
      const a = legacyTx({ label: "pos-a" });
      const b = legacyTx({ label: "pos-b" });
      const out = (position: number, tx: ReturnType<typeof legacyTx>) => ({ ...tx, position });
      const backwards = { height: 1, appHash: "", txs: [], legacy: { txs: [out(1, a), out(0, b)], invalid: [] } };
      await assert.rejects(store.commitBlock(backwards), isAssertion);
      const beyond = { height: 1, appHash: "", txs: [], legacy: { txs: [out(1, a)], invalid: [] } };
      await assert.rejects(store.commitBlock(beyond), isAssertion);
      assert.equal(await store.getLegacyTransaction(a.id), null);
      await store.commitBlock({ height: 1, appHash: "", txs: [], legacy: { txs: [out(0, a), out(1, b)], invalid: [] } });
      assert.equal(await store.getLegacyTransaction(b.id), b.json);
    }));
}
