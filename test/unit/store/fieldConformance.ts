// Queries by field (src/store/fieldQuery.ts, docs/compatibility.md #25), part of the store
// conformance suite: equality on scalar leaves, AND of filters, arrays match any element, commit
// order, positions to continue after, and the limits of what is indexed.

import assert from "node:assert/strict";
import { it } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import {
  fieldLeavesMax,
  fieldPathKeysMax,
  fieldValueCharsMax,
  type FieldFilter,
  type FieldScalar,
} from "../../../src/store/fieldQuery.js";
import type { FieldHit, Store } from "../../../src/store/store.js";
import { block, createTx, ref, transferTx } from "./fixtures.js";

type WithStore = (body: (store: Store) => Promise<void>) => Promise<void>;

const car1 = createTx({ label: "f-car1", data: { kind: "car", serial: "XYZ", year: 2019, ok: true } });
const car2 = createTx({ label: "f-car2", data: { kind: "car", serial: "ABC", year: 2019.0, extra: null } });
const car3 = createTx({ label: "f-car3", data: { kind: "car", serial: "LATE" } });
const bike = createTx({
  label: "f-bike",
  data: { kind: "bike", serial: "123", tags: ["red", ["fast"]], parts: [{ sku: "w1" }, { sku: "w2" }] },
});
const dotted = createTx({ label: "f-dotted", data: { "a.b": { c: 1 }, a: { b: { c: 2 } } } });
const deep = createTx({ label: "f-deep", data: nest(fieldPathKeysMax + 1, "bottom") });
const long = createTx({ label: "f-long", data: { note: "x".repeat(fieldValueCharsMax), short: "y" } });
const wide = createTx({
  label: "f-wide",
  data: Object.fromEntries(Array.from({ length: fieldLeavesMax + 2 }, (_, i) => [`k${i}`, "v"])),
});
const moved = transferTx({
  label: "f-moved",
  assetId: car1.id,
  spends: [ref(car1, 0)],
  metadata: { kind: "car", shipped: true },
});
const all = [car1, car2, bike, dotted, deep, long, wide];

function nest(keys: number, leaf: string): object {
  let value: unknown = leaf;
  for (let i = keys - 1; i >= 0; i--) value = { [`n${i}`]: value };
  return value as object;
}

const f = (path: string[], value: FieldScalar): FieldFilter => ({ path, value });

async function collect(batches: AsyncIterable<readonly FieldHit[]>): Promise<FieldHit[]> {
  const hits: FieldHit[] = [];
  for await (const batch of batches) hits.push(...batch);
  return hits;
}

async function assetIds(store: Store, filters: FieldFilter[], options = {}): Promise<string[]> {
  return (await collect(store.streamFieldMatches("assets", filters, options))).map((h) => h.id);
}

async function commitAll(store: Store): Promise<void> {
  await store.commitBlock(block(1, all.slice(0, 3)));
  await store.commitBlock(block(2, [...all.slice(3), moved]));
}

export function fieldTests(withStore: WithStore): void {
  it("equality on one field, in commit order, hits as search gives them", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await assetIds(store, [f(["kind"], "car")]), [car1.id, car2.id]);
      const hits = await collect(store.streamFieldMatches("assets", [f(["serial"], "XYZ")]));
      assert.deepEqual(hits.map(({ id, json }) => ({ id, json })), [{ id: car1.id, json: car1.assetData }]);
    }));

  it("filters are AND'ed", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await assetIds(store, [f(["kind"], "car"), f(["serial"], "ABC")]), [car2.id]);
      assert.deepEqual(await assetIds(store, [f(["kind"], "bike"), f(["serial"], "ABC")]), []);
    }));

  it("scalars compare by JSON type and value: 2019 equals 2019.0, never \"2019\"", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await assetIds(store, [f(["year"], 2019)]), [car1.id, car2.id]);
      assert.deepEqual(await assetIds(store, [f(["year"], "2019")]), []);
      assert.deepEqual(await assetIds(store, [f(["serial"], 123)]), []);
      assert.deepEqual(await assetIds(store, [f(["serial"], "123")]), [bike.id]);
      assert.deepEqual(await assetIds(store, [f(["ok"], true)]), [car1.id]);
      assert.deepEqual(await assetIds(store, [f(["ok"], "true")]), []);
      assert.deepEqual(await assetIds(store, [f(["extra"], null)]), [car2.id]);
    }));

  it("an array matches when any element does, nested arrays and objects in arrays too", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await assetIds(store, [f(["tags"], "red")]), [bike.id]);
      assert.deepEqual(await assetIds(store, [f(["tags"], "fast")]), [bike.id]);
      assert.deepEqual(await assetIds(store, [f(["parts", "sku"], "w2")]), [bike.id]);
    }));

  it("a key with a dot is one key, not two", () =>
    withStore(async (store) => {
      await commitAll(store);
      assert.deepEqual(await assetIds(store, [f(["a.b", "c"], 1)]), [dotted.id]);
      assert.deepEqual(await assetIds(store, [f(["a", "b", "c"], 2)]), [dotted.id]);
      assert.deepEqual(await assetIds(store, [f(["a", "b", "c"], 1)]), []);
    }));

  it("metadata of CREATEs and TRANSFERs; asset data only of CREATEs", () =>
    withStore(async (store) => {
      await commitAll(store);
      const hits = await collect(store.streamFieldMatches("metadata", [f(["kind"], "car")]));
      assert.deepEqual(hits.map(({ id, json }) => ({ id, json })), [{ id: moved.id, json: moved.metadata }]);
      assert.deepEqual(await assetIds(store, [f(["shipped"], true)]), []);
    }));

  it("leaves past the limits are not indexed; the others of the document are", () =>
    withStore(async (store) => {
      await commitAll(store);
      const deepPath = Array.from({ length: fieldPathKeysMax + 1 }, (_, i) => `n${i}`);
      assert.deepEqual(await assetIds(store, [f(deepPath, "bottom")]), []);
      assert.deepEqual(await assetIds(store, [f(["note"], "x".repeat(fieldValueCharsMax))]), []);
      assert.deepEqual(await assetIds(store, [f(["short"], "y")]), [long.id]);
      assert.deepEqual(await assetIds(store, [f(["k0"], "v")]), [wide.id]);
      assert.deepEqual(await assetIds(store, [f([`k${fieldLeavesMax - 1}`], "v")]), [wide.id]);
      assert.deepEqual(await assetIds(store, [f([`k${fieldLeavesMax}`], "v")]), []);
    }));

  it("limit caps; after a hit's position the next ones follow, none twice", () =>
    withStore(async (store) => {
      await commitAll(store);
      const first = await collect(store.streamFieldMatches("assets", [f(["kind"], "car")], { limit: 1 }));
      assert.deepEqual(first.map((h) => h.id), [car1.id]);
      const rest = await assetIds(store, [f(["kind"], "car")], { after: first[0]!.position });
      assert.deepEqual(rest, [car2.id]);
    }));

  it("an answer is as of its start: a later commit is not in it", () =>
    withStore(async (store) => {
      await store.commitBlock(block(1, [car1]));
      const batches = store.streamFieldMatches("assets", [f(["kind"], "car")]);
      const first = await batches.next();
      await store.commitBlock(block(2, [car2]));
      const ids = first.done === true ? [] : first.value.map((h) => h.id);
      for await (const batch of batches) ids.push(...batch.map((h) => h.id));
      assert.deepEqual(ids, [car1.id]);
    }));

  it("a walk is as of its first page: a match committed between its pages does not show", () =>
    withStore(async (store) => {
      await store.commitBlock(block(1, [car1, car2]));
      const first = await collect(store.streamFieldMatches("assets", [f(["kind"], "car")], { limit: 1 }));
      await store.commitBlock(block(2, [car3]));
      const rest = await assetIds(store, [f(["kind"], "car")], { after: first[0]!.position });
      assert.deepEqual([...first.map((h) => h.id), ...rest], [car1.id, car2.id]);
      // A new walk sees the ledger as it is now.
      assert.deepEqual(await assetIds(store, [f(["kind"], "car")]), [car1.id, car2.id, car3.id]);
    }));

  it("an AND finds a rare match after many rows of a common filter, in either order", () =>
    withStore(async (store) => {
      const many = Array.from({ length: 3000 }, (_, i) => createTx({ label: `f-many${i}`, data: { kind: "car", serial: `N${i}` } }));
      await store.commitBlock(block(1, many));
      for (const filters of [
        [f(["kind"], "car"), f(["serial"], "N2999")],
        [f(["serial"], "N2999"), f(["kind"], "car")],
      ]) {
        assert.deepEqual(await assetIds(store, filters), [many[2999]!.id]);
      }
    }));

  it("an AND of interleaved filters with no common document answers empty, across batches", () =>
    withStore(async (store) => {
      const txs = Array.from({ length: 5000 }, (_, i) => createTx({ label: `f-alt${i}`, data: { side: i % 2 === 0 ? "a" : "b", odd: i % 2 === 1 } }));
      await store.commitBlock(block(1, txs));
      assert.deepEqual(await assetIds(store, [f(["side"], "a"), f(["odd"], true)]), []);
      assert.equal((await assetIds(store, [f(["side"], "b"), f(["odd"], true)])).length, 2500);
    }));

  it("a position the store never gave is a BadParameter", () =>
    withStore(async (store) => {
      await commitAll(store);
      // A snapshot past the ledger (another node's, or forged), a place past its snapshot.
      for (const after of ["", "abc", "-1", "1e3", "99999999999999999999", "1", "99.1", "1.99", "3.5"]) {
        await assert.rejects(
          collect(store.streamFieldMatches("assets", [f(["kind"], "car")], { after })),
          (error: unknown) => error instanceof LedgerError && error.code === "BadParameter",
        );
      }
    }));
}
