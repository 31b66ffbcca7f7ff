// The explorer's pure parts, without a browser: what the search box makes of what is typed, the
// hash routes both ways, who holds an asset from its history, and the live chart's ring of
// one-second buckets; and the pager that reads the client's paged lists for "Load more".
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Pager } from "../../../explorer/src/pager.js";
import { classifyQuery } from "../../../explorer/src/classifyQuery.js";
import { holdersOf } from "../../../explorer/src/holdersOf.js";
import { RateWindow } from "../../../explorer/src/rateWindow.js";
import { hrefOf, parseRoute, type Route } from "../../../explorer/src/route.js";
import type { Output, Transaction } from "../../../explorer/src/wire.js";
import { LedgerdError } from "../../../src/client/client.js";

const id = (c: string) => c.repeat(64);
const key = "9Mzb9MpuLz3x7THeEbTMuK3TAQj9sBMnMPKXo5rPRPSw";

describe("the explorer's search box", () => {
  it("tells an id, a height, a key and words apart", () => {
    assert.deepEqual(classifyQuery(` ${id("A")} `), { page: "tx", id: id("a") });
    assert.deepEqual(classifyQuery("42"), { page: "block", height: 42 });
    assert.deepEqual(classifyQuery(key), { page: "key", key });
    assert.deepEqual(classifyQuery("red car"), { page: "search", words: "red car" });
    assert.equal(classifyQuery("   "), null);
  });

  it("reads what is almost an id, a height or a key as words", () => {
    for (const words of [id("a").slice(1), `${id("a")}0`, "1".repeat(16), "-1", `${key}0`, key.replace("9", "0"), "4.5"]) {
      assert.deepEqual(classifyQuery(words), { page: "search", words }, words);
    }
  });
});

describe("the explorer's hash routes", () => {
  it("read back what they write", () => {
    const routes: Route[] = [
      { page: "home" },
      { page: "tx", id: id("b") },
      { page: "block", height: 7 },
      { page: "asset", id: id("c") },
      { page: "key", key },
      { page: "search", words: "crème brûlée / 100%" },
    ];
    for (const route of routes) assert.deepEqual(parseRoute(hrefOf(route)), route);
  });

  it("take anything else as an unknown page, never throwing", () => {
    for (const hash of ["#/nothing/1", "#/block/x", "#/block/-1", "#/tx/", "#/search/%E0%A4%A", "#/search/%20"]) {
      assert.deepEqual(parseRoute(hash), { page: "unknown", hash }, hash);
    }
    assert.deepEqual(parseRoute(""), { page: "home" });
  });
});

describe("who holds an asset", () => {
  const output = (owner: string, amount: string): Output => ({ amount, public_keys: [owner], condition: {} });
  const tx = (txId: string, spends: [string, number][], outputs: Output[]): Transaction => ({
    id: txId,
    operation: spends.length === 0 ? "CREATE" : "TRANSFER",
    asset: spends.length === 0 ? { data: {} } : { id: id("1") },
    metadata: null,
    inputs: spends.length === 0
      ? [{ owners_before: ["alice"], fulfills: null, fulfillment: "" }]
      : spends.map(([t, i]) => ({ owners_before: [], fulfills: { transaction_id: t, output_index: i }, fulfillment: "" })),
    outputs,
  });

  it("is the outputs no later transaction of its history spends, in the order they were made", () => {
    const history = [
      tx(id("1"), [], [output("alice", "10")]),
      tx(id("2"), [[id("1"), 0]], [output("bob", "4"), output("alice", "6")]),
      tx(id("3"), [[id("2"), 0]], [output("carol", "4")]),
    ];
    const holders = holdersOf(history).map((h) => [h.transactionId, h.outputIndex, h.output.public_keys[0], h.output.amount]);
    assert.deepEqual(holders, [[id("2"), 1, "alice", "6"], [id("3"), 0, "carol", "4"]]);
  });

  it("is everything its CREATE made when nothing was transferred", () => {
    assert.equal(holdersOf([tx(id("1"), [], [output("alice", "1"), output("bob", "2")])]).length, 2);
  });
});

describe("the live chart's window", () => {
  it("counts transactions per second and the mean time between new blocks", () => {
    const window = new RateWindow(5);
    const t0 = 1_000_000;
    window.addBlock(10, t0 + 100);
    window.addTransactions(3, t0 + 100);
    window.addBlock(11, t0 + 600);
    window.addBlock(11, t0 + 700); // the same block named again: no interval
    window.addBlock(12, t0 + 1_500);
    window.addTransactions(2, t0 + 1_500);
    const series = window.series(t0 + 1_999);
    assert.deepEqual(series.transactionsPerSecond, [0, 0, 0, 3, 2]);
    assert.deepEqual(series.blockIntervalSeconds, [null, null, null, 0.5, 0.9]);
    assert.equal(series.seconds.at(-1), Math.floor((t0 + 1_999) / 1000));
  });

  it("forgets what fell out of the window, whatever the time the tab stayed open", () => {
    const window = new RateWindow(3);
    window.addTransactions(5, 0);
    window.addTransactions(7, 3_000); // the same slot of the ring, three seconds later
    assert.deepEqual(window.series(3_000).transactionsPerSecond, [0, 0, 7]);
    assert.deepEqual(window.series(10_000).transactionsPerSecond, [0, 0, 0]);
  });
});

describe("the pager of a paged list", () => {
  const isNumber = (v: unknown): v is number => typeof v === "number";
  /** `items`, then `failure` thrown when given; counts the items read from it. */
  function list(items: readonly unknown[], failure?: Error) {
    const seen = { read: 0 };
    async function* each(): AsyncGenerator<unknown> {
      for (const item of items) {
        seen.read += 1;
        yield item;
      }
      if (failure !== undefined) throw failure;
    }
    return { items: each(), seen };
  }

  it("gives a page at a time, says whether more follow, and reads one item ahead only", async () => {
    const { items, seen } = list([1, 2, "odd", 3, 4]);
    const pager = new Pager(items, isNumber);
    assert.deepEqual(await pager.take(2), { ok: true, value: { items: [1, 2], more: true } });
    assert.equal(seen.read, 3);
    // An item of another shape counts in the page, not in what is shown.
    assert.deepEqual(await pager.take(2), { ok: true, value: { items: [3], more: true } });
    assert.deepEqual(await pager.take(2), { ok: true, value: { items: [4], more: false } });
    assert.deepEqual(await pager.take(2), { ok: true, value: { items: [], more: false } });
  });

  it("keeps what it read before a failure and answers the failure on the next page", async () => {
    const pager = new Pager(list([1, 2], new LedgerdError("the cursor expired", 400, "")).items, isNumber);
    assert.deepEqual(await pager.take(2), { ok: true, value: { items: [1, 2], more: true } });
    assert.deepEqual(await pager.take(2), { ok: false, status: 400, message: "the cursor expired" });
    const down = new Pager(list([], new TypeError("Failed to fetch")).items, isNumber);
    assert.deepEqual(await down.take(2), { ok: false, status: 0, message: "Failed to fetch" });
  });
});
