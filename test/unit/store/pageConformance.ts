// Paged reads and balances (PageOptions, OutputEntry, HistoryEntry, Balance in
// src/store/store.ts), part of the store conformance suite: the same items as the unpaged reads,
// in the same order, page after page; every page of a walk as of its first page's snapshot,
// whatever commits between pages; positions this store never gave refused; balances of what a
// key alone may spend.

import assert from "node:assert/strict";
import { it } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import type { Batches, PageOptions, Store } from "../../../src/store/store.js";
import { block, createTx, hex64, publicKey, ref, transferTx } from "./fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

type WithStore = (body: (store: Store) => Promise<void>) => Promise<void>;

async function all<T>(batches: Batches<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const batch of batches) items.push(...batch);
  return items;
}

/** Every page of a walk, `limit` items a page, `between` run after each page. */
async function walk<T extends { position: string }>(
  read: (page: PageOptions) => Batches<T>,
  limit: number,
  between: () => Promise<void> = async () => {},
): Promise<T[][]> {
  const pages: T[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await all(read(after === undefined ? { limit } : { after, limit }));
    assert.ok(page.length <= limit, `a page of ${page.length} items past its limit ${limit}`);
    if (page.length === 0) break;
    pages.push(page);
    after = page[page.length - 1]!.position;
    await between();
  }
  return pages;
}

const owner = publicKey("p-owner");
const other = publicKey("p-other");
const gold = createTx({ label: "p-gold", outputs: [{ keys: [owner], amount: 9_000_000_000_000_000_000n }, { keys: [owner], amount: 9_000_000_000_000_000_000n }, { keys: [other] }] });
const silver = createTx({ label: "p-silver", outputs: [{ keys: [owner], amount: 5n }, { keys: [owner, other], amount: 7n }] });
const moved = transferTx({ label: "p-moved", assetId: gold.id, spends: [ref(gold, 2)], outputs: [{ keys: [owner], amount: 1n }] });
const spentSilver = transferTx({ label: "p-spent", assetId: silver.id, spends: [ref(silver, 0)], outputs: [{ keys: [other], amount: 5n }] });
const later = createTx({ label: "p-later", outputs: [{ keys: [owner], amount: 3n }], data: { word: "pagedword" } });

async function commitAll(store: Store): Promise<void> {
  await store.commitBlock(block(1, [gold, silver]));
  await store.commitBlock(block(2, [moved]));
}

export function pageTests(withStore: WithStore): void {
  it("output entries: the outputs of the unpaged read, in its order, with amount and asset id", () =>
    withStore(async (store) => {
      await commitAll(store);
      for (const spent of [undefined, true, false]) {
        const entries = await all(store.streamOutputEntries(owner, spent));
        const refs = entries.map(({ transactionId, outputIndex }) => ({ transactionId, outputIndex }));
        assert.deepEqual(refs, await wholeOf(store).getOutputsByPublicKey(owner, spent));
      }
      const entries = await all(store.streamOutputEntries(owner, undefined));
      assert.deepEqual(entries.map((e) => [e.amount, e.assetId]), [
        ["9000000000000000000", gold.id], ["9000000000000000000", gold.id], ["5", silver.id], ["7", silver.id], ["1", gold.id],
      ]);
    }));

  it("outputs page by page: every output once, in order, for every page size", () =>
    withStore(async (store) => {
      await commitAll(store);
      const whole = await all(store.streamOutputEntries(owner, undefined));
      for (const limit of [1, 2, 3, 5, 6]) {
        const pages = await walk((page) => store.streamOutputEntries(owner, undefined, page), limit);
        assert.deepEqual(pages.flat().map((e) => e.position), whole.map((e) => e.position), `limit ${limit}`);
      }
    }));

  it("a walk of unspent outputs is as of its first page: later spends and outputs do not show", () =>
    withStore(async (store) => {
      await commitAll(store);
      const before = await all(store.streamOutputEntries(owner, false));
      let height = 2;
      const commits = [block(3, [spentSilver]), block(4, [later])];
      const pages = await walk((page) => store.streamOutputEntries(owner, false, page), 1, async () => {
        const next = commits.shift();
        if (next !== undefined) await store.commitBlock(next);
        height = next?.height ?? height;
      });
      assert.equal(height, 4);
      assert.deepEqual(pages.flat(), before);
      // A new walk sees the ledger as it is now.
      const now = await all(store.streamOutputEntries(owner, false));
      assert.ok(!now.some((e) => e.transactionId === silver.id && e.outputIndex === 0));
      assert.ok(now.some((e) => e.transactionId === later.id));
    }));

  it("an asset's history page by page, with and without an operation", () =>
    withStore(async (store) => {
      await commitAll(store);
      await store.commitBlock(block(3, [transferTx({ label: "p-moved2", assetId: gold.id, spends: [ref(moved, 0)] })]));
      for (const operation of [undefined, "CREATE", "TRANSFER"] as const) {
        const options = operation === undefined ? {} : { operation };
        const whole = await wholeOf(store).getTransactionsByAsset(gold.id, options);
        for (const limit of [1, 2, 3]) {
          const pages = await walk((page) => store.streamAssetHistory(gold.id, operation, page), limit);
          assert.deepEqual(pages.flat().map((e) => e.json), whole, `${operation ?? "all"}, limit ${limit}`);
        }
      }
    }));

  it("a walk of an asset's history is as of its first page: a later TRANSFER does not show", () =>
    withStore(async (store) => {
      await commitAll(store);
      const before = await wholeOf(store).getTransactionsByAsset(gold.id);
      const pending = [block(3, [transferTx({ label: "p-moved3", assetId: gold.id, spends: [ref(moved, 0)] })])];
      const pages = await walk((page) => store.streamAssetHistory(gold.id, undefined, page), 1, async () => {
        const next = pending.shift();
        if (next !== undefined) await store.commitBlock(next);
      });
      assert.equal(pending.length, 0);
      assert.deepEqual(pages.flat().map((e) => e.json), before);
      assert.equal((await wholeOf(store).getTransactionsByAsset(gold.id)).length, before.length + 1);
    }));

  it("a position this store never gave is a BadParameter", () =>
    withStore(async (store) => {
      await commitAll(store);
      const bad = { name: "LedgerError", code: "BadParameter" };
      for (const after of ["", "x", "1", "1.2.3.4", "-1.0.0", "99.1.0", "1.2.0", "1.0x.0"]) {
        await assert.rejects(all(store.streamOutputEntries(owner, undefined, { after })), bad, `outputs after ${after}`);
      }
      for (const after of ["", "1.2.3", "99.1", "1.2"]) {
        await assert.rejects(all(store.streamAssetHistory(gold.id, undefined, { after })), bad, `history after ${after}`);
      }
      await assert.rejects(all(store.streamSearchPage("assets", "label", { after: "99.1", limit: 2 })), bad);
      await assert.rejects(all(store.streamSearchPage("assets", "label", { after: "zz", limit: 2 })), (e) => e instanceof LedgerError);
      // A rank past the matches ranked as of the snapshot (a walk never gets there).
      await assert.rejects(all(store.streamSearchPage("assets", "pagedword", { after: "1.999999999", limit: 2 })), bad);
      await assert.rejects(all(store.streamSearchPage("metadata", "pagedword", { after: "1.1", limit: 2 })), bad);
    }));

  it("search pages: the ranking of the unpaged search, as of the first page", () =>
    withStore(async (store) => {
      const docs = Array.from({ length: 7 }, (_, i) =>
        createTx({ label: `p-s${i}`, data: { text: `pagedword ${"filler ".repeat(i)}` } }));
      await store.commitBlock(block(1, docs));
      const ranked = (await wholeOf(store).searchAssets("pagedword", 0)).map((hit) => hit.id);
      const pending = [block(2, [later])];
      const pages = await walk((page) => store.streamSearchPage("assets", "pagedword", { ...page, limit: page.limit ?? 3 }), 3, async () => {
        const next = pending.shift();
        if (next !== undefined) await store.commitBlock(next);
      });
      assert.deepEqual(pages.map((p) => p.length), [3, 3, 1]);
      assert.deepEqual(pages.flat().map((hit) => hit.id), ranked);
      assert.ok((await wholeOf(store).searchAssets("pagedword", 0)).some((hit) => hit.id === later.id));
    }));

  it("balances: unspent outputs of the key alone, summed per asset past 2^64, in asset id order", () =>
    withStore(async (store) => {
      await commitAll(store);
      await store.commitBlock(block(3, [spentSilver]));
      const balances = (key: string, assetId?: string) => all(store.streamBalances(key, assetId));
      const sums = async (key: string, assetId?: string) => (await balances(key, assetId)).map(({ assetId: id, amount }) => ({ assetId: id, amount }));
      // gold: 9e18 + 9e18 (plain) + 1 (moved); silver: output 0 spent, output 1 a threshold.
      const expected = [{ assetId: gold.id, amount: "18000000000000000001" }];
      assert.deepEqual(await sums(owner), expected);
      assert.deepEqual(await sums(owner, gold.id), expected);
      assert.deepEqual(await sums(owner, silver.id), []);
      assert.deepEqual(await sums(other), [{ assetId: silver.id, amount: "5" }]);
      assert.deepEqual(await sums(publicKey("p-nobody")), []);
      assert.deepEqual(await sums(publicKey("p-nobody"), gold.id), []);
      await store.commitBlock(block(4, [later]));
      const both = await sums(owner);
      assert.deepEqual(both.map((b) => b.assetId), [gold.id, later.id].sort());
      // One asset alone, whether its history or the key's outputs are the shorter read: a key
      // with one output of gold (three transactions), and the owner (more outputs than gold's).
      const small = publicKey("p-small");
      const toSmall = transferTx({ label: "p-to-small", assetId: gold.id, spends: [ref(moved, 0)], outputs: [{ keys: [small], amount: 1n }] });
      await store.commitBlock(block(5, [toSmall]));
      assert.deepEqual(await sums(small, gold.id), [{ assetId: gold.id, amount: "1" }]);
      assert.deepEqual(await sums(owner, gold.id), [{ assetId: gold.id, amount: "18000000000000000000" }]);
      assert.deepEqual(await sums(small, later.id), []);
      // A transaction's id that is no asset's: nothing.
      assert.deepEqual(await sums(owner, moved.id), []);
    }));

  it("balances page by page: every asset once, in order, its whole sum, for every page size", () =>
    withStore(async (store) => {
      const assets = Array.from({ length: 7 }, (_, i) =>
        createTx({ label: `p-b${i}`, outputs: [{ keys: [owner], amount: BigInt(i + 1) }, { keys: [other] }, { keys: [owner], amount: 10n }] }));
      await store.commitBlock(block(1, assets.slice(0, 4)));
      // Outputs of the same assets in a later block, so that one asset's outputs are apart.
      const more = assets.map((asset, i) => transferTx({ label: `p-bt${i}`, assetId: asset.id, spends: [ref(asset, 1)], outputs: [{ keys: [owner], amount: 100n }] }));
      await store.commitBlock(block(2, [...assets.slice(4), ...more.slice(0, 4)]));
      await store.commitBlock(block(3, more.slice(4)));
      const whole = await all(store.streamBalances(owner, undefined));
      const expected = assets.map((asset, i) => ({ assetId: asset.id, amount: String(i + 1 + 10 + 100) }))
        .sort((a, b) => (a.assetId < b.assetId ? -1 : 1));
      assert.deepEqual(whole.map(({ assetId, amount }) => ({ assetId, amount })), expected);
      for (const limit of [1, 2, 3, 6, 7, 8]) {
        const pages = await walk((page) => store.streamBalances(owner, undefined, page), limit);
        assert.deepEqual(pages.flat(), whole, `limit ${limit}`);
        assert.equal(pages.length, Math.ceil(7 / limit), `limit ${limit}`);
      }
      // One asset: one page of one sum, then nothing after it.
      const one = expected[3]!.assetId;
      const pages = await walk((page) => store.streamBalances(owner, one, page), 1);
      assert.deepEqual(pages.flat(), [whole[3]]);
    }));

  it("a walk of balances is as of its first page: later spends and outputs do not show", () =>
    withStore(async (store) => {
      await commitAll(store);
      const before = await all(store.streamBalances(owner, undefined));
      assert.deepEqual(before.map((b) => b.assetId), [gold.id, silver.id].sort());
      const commits = [block(3, [spentSilver, later])];
      const pages = await walk((page) => store.streamBalances(owner, undefined, page), 1, async () => {
        const next = commits.shift();
        if (next !== undefined) await store.commitBlock(next);
      });
      assert.equal(commits.length, 0);
      assert.deepEqual(pages.flat(), before);
      // A new walk sees the ledger as it is now: silver spent, the later asset there.
      const now = await all(store.streamBalances(owner, undefined));
      assert.deepEqual(now.map((b) => b.assetId), [gold.id, later.id].sort());
    }));

  it("a balance position this store never gave is a BadParameter", () =>
    withStore(async (store) => {
      await commitAll(store);
      const bad = { name: "LedgerError", code: "BadParameter" };
      const id = gold.id;
      // Well formed, but no asset's id, an asset made after the snapshot, or a TRANSFER's id.
      const forged = [`2.${hex64("no such asset")}`, `1.${later.id}`, `3.${moved.id}`];
      await store.commitBlock(block(3, [later]));
      for (const after of ["", "x", "1", "1.2", `99.${id}`, `1.${id.toUpperCase()}`, `1.${id.slice(1)}`, `01.${id}`, `.${id}`, `1.1.${id}`, ...forged]) {
        await assert.rejects(all(store.streamBalances(owner, undefined, { after })), bad, `balances after ${after}`);
        await assert.rejects(all(store.streamBalances(owner, id, { after })), bad, `balance after ${after}`);
      }
      // A position as a walk gives it continues, as of its snapshot (seq 3: later is not there).
      const given = `3.${gold.id}`;
      const rest = await all(store.streamBalances(owner, undefined, { after: given }));
      assert.deepEqual(rest.map((b) => b.assetId), [silver.id].filter((a) => a > gold.id));
    }));
}
