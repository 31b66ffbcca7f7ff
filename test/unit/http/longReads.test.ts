// Long answers on a real socket: the outputs and balances of a key, the transactions of an asset,
// a block and a search are streamed (same bytes as built whole), a client that does not read makes the node
// read only what the socket takes, and past `expensiveReadsMax` long reads the answer is 503
// with Retry-After while cheap reads still answer.
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import type { AddressInfo } from "node:net";
import type { Broadcaster } from "../../../src/engine/broadcaster.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { longReadsOf } from "../../../src/http/longReads.js";
import { streamStallMs } from "../../../src/http/streamJson.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Batches, Store } from "../../../src/store/store.js";
import type { CommittedTx } from "../../../src/transaction/committed.js";
import { block, createTx, publicKey, ref, transferTx } from "../store/fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { waitFor, waitForStill } from "../../helpers/waitFor.js";

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function fetchText(port: number, path: string, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Sends a GET and never reads the answer. */
function stalledClient(port: number, path: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.pause();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      resolve(socket);
    });
  });
}

/**
 * What `value()` comes to once the node on `port` has done all it will do by itself: it has
 * read something, and reads nothing more while it answers two cheap reads (a GET by id).
 */
async function settled(port: number, value: () => number, id: string): Promise<number> {
  await waitFor("the node's first read", () => value() > 0);
  return waitForStill("the node's reads", value, () => fetchText(port, `/api/v1/transactions/${id}`));
}

/** The store, counting the items the HTTP layer takes from it (lists and batches alike). */
function counting(store: SqliteStore, counter: { items: number }): Store {
  const countBatches = async function* <T>(batches: Batches<T>): Batches<T> {
    for await (const batch of batches) {
      counter.items += batch.length;
      yield batch;
    }
  };
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== "function") return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (name === "streamTransactionsByAsset" || name === "streamAssetHistory") {
        return (...args: unknown[]) => countBatches(method(...args) as Batches<unknown>);
      }
      if (name === "getTransactionsByAsset") {
        return async (...args: unknown[]) => {
          const all = (await method(...args)) as string[];
          counter.items += all.length;
          return all;
        };
      }
      return method;
    },
  }) as Store;
}

/** Holds the thread for `ms`, as a slow read of the database would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * The store with slow output lists: 100 batches of 10 ms each (or, read whole, 1 s at once),
 * as a key with very many outputs would take.
 */
function slowOutputs(store: SqliteStore): Store {
  const slowBatches = async function* <T>(batches: Batches<T>): Batches<T> {
    const all: T[] = [];
    for await (const batch of batches) all.push(...batch);
    const size = Math.ceil(all.length / 100);
    for (let i = 0; i < all.length; i += size) {
      busy(10);
      yield all.slice(i, i + size);
    }
  };
  return new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== "function") return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (name === "streamOutputsByPublicKey" || name === "streamOutputEntries") {
        return (...args: unknown[]) => slowBatches(method(...args) as Batches<unknown>);
      }
      if (name === "getOutputsByPublicKey") {
        return async (...args: unknown[]) => {
          const all = await method(...args);
          busy(1_000);
          return all;
        };
      }
      return method;
    },
  }) as Store;
}

const noBroadcaster = { broadcast: async () => assert.fail("no POST here") } as unknown as Broadcaster;

describe("long answers on a real socket", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-long-reads-"));
  const store = SqliteStore.open({ path: join(dir, "store.sqlite") });
  const counter = { items: 0 };
  const key = publicKey("holder");
  const creates: CommittedTx[] = [];
  const bigAsset = createTx({ label: "big asset" });
  const transfers: CommittedTx[] = [];
  let app: FastifyInstance;
  let port: number;
  /** The app's stall timers run on it: a stalled answer is dropped only when a test says. */
  const clock = new ManualClock();

  before(async () => {
    for (let i = 0; i < 1_500; i++) {
      const data = { kind: "zebra", pad: "y".repeat(150), i };
      creates.push(createTx({ label: `c${i}`, data, outputs: [{ keys: [key] }], hashedId: true }));
    }
    await store.commitBlock(block(1, creates));
    // 40 TRANSFERs of ~500 KB: a 20 MB answer, far more than the sockets' buffers hold.
    let last = bigAsset;
    for (let i = 0; i < 40; i++) {
      const metadata = { pad: "z".repeat(500_000), i };
      last = transferTx({ label: `t${i}`, assetId: bigAsset.id, spends: [ref(last, 0)], metadata });
      transfers.push(last);
    }
    await store.commitBlock(block(2, [bigAsset, ...transfers]));
    app = await buildHttpApp({ expensiveReadsMax: 1 }, { store: counting(store, counter), broadcaster: noBroadcaster, clock });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a long answer is sent chunked, with the bytes of the answer built whole", async () => {
    const refs = creates.map((tx) => `{"transaction_id": "${tx.id}", "output_index": 0}`);
    // No limit is all of them (limit 0), not a page of searchLimitMax.
    const hits = await wholeOf(store).searchAssets("zebra", 0);
    const cases: [string, string][] = [
      [`/api/v1/outputs?public_key=${key}`, `[${refs.join(", ")}]`],
      [`/api/v1/transactions?asset_id=${bigAsset.id}`, `[${[bigAsset, ...transfers].map((t) => t.json).join(", ")}]`],
      [`/api/v1/transactions?asset_id=${bigAsset.id}&operation=TRANSFER`, `[${transfers.map((t) => t.json).join(", ")}]`],
      [`/api/v1/blocks/1`, `{"height": 1, "transactions": [${creates.map((t) => t.json).join(", ")}]}`],
      [`/api/v1/assets?search=zebra`, `[${hits.map((h) => `{"data": ${h.json}, "id": "${h.id}"}`).join(", ")}]`],
      [`/api/v1/balances?public_key=${key}`, `[${creates.map((tx) => tx.id).sort().map((id) => `{"asset_id": "${id}", "amount": "${creates.find((tx) => tx.id === id)!.outputs[0]!.amount}"}`).join(", ")}]`],
    ];
    assert.equal(hits.length, 1_500);
    for (const [path, body] of cases) {
      const answer = await fetchText(port, path);
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers["content-type"], "application/json");
      assert.equal(answer.headers["transfer-encoding"], "chunked", path);
      assert.equal(answer.headers["content-length"], undefined, path);
      assert.ok(answer.body === body, `${path}: the body differs`);
    }
    // HEAD reads the answer and sends none of it; its long read ends (the cap is 1 here).
    const head = await fetchText(port, `/api/v1/outputs?public_key=${key}`, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
    assert.equal((await fetchText(port, `/api/v1/outputs?public_key=${key}`)).status, 200);
    // A short answer is sent whole, as before.
    const one = await fetchText(port, `/api/v1/outputs?public_key=${publicKey("nobody")}`);
    assert.equal(one.headers["content-length"], "2");
    assert.equal(one.body, "[]");
  });

  test("a client that does not read makes the node read only what the socket takes", async () => {
    counter.items = 0;
    const socket = await stalledClient(port, `/api/v1/transactions?asset_id=${bigAsset.id}`);
    try {
      const read = await settled(port, () => counter.items, creates[0]!.id);
      assert.ok(read < 41, `the node read ${read} of 41 transactions for a client that reads nothing`);
    } finally {
      socket.destroy();
    }
  });

  test("a GET by id is answered between the batches of a long read, not after it", async () => {
    const slowApp = await buildHttpApp({}, { store: slowOutputs(store), broadcaster: noBroadcaster });
    await slowApp.listen({ host: "127.0.0.1", port: 0 });
    try {
      const slowPort = (slowApp.server.address() as AddressInfo).port;
      let longDone = false;
      const long = fetchText(slowPort, `/api/v1/outputs?public_key=${key}`).then((answer) => {
        longDone = true;
        return answer;
      });
      await waitFor("the long read to begin", () => longReadsOf(slowApp).running === 1);
      const byId = await fetchText(slowPort, `/api/v1/transactions/${creates[1]!.id}`);
      assert.equal(byId.status, 200);
      assert.equal(longDone, false, "the GET by id waited for the whole long read");
      assert.equal((await long).status, 200);
    } finally {
      await slowApp.close();
    }
  });

  test("past expensiveReadsMax long reads: 503 with Retry-After; cheap reads still answer", async () => {
    counter.items = 0;
    const socket = await stalledClient(port, `/api/v1/transactions?asset_id=${bigAsset.id}`);
    try {
      await settled(port, () => counter.items, creates[0]!.id);
      // expensiveReadsMax is 1 here, and the stalled client holds it.
      for (const list of ["outputs", "balances"]) {
        const other = await fetchText(port, `/api/v1/${list}?public_key=${key}`);
        assert.equal(other.status, 503, list);
      }
      const refused = await fetchText(port, `/api/v1/outputs?public_key=${key}`);
      assert.equal(refused.status, 503);
      assert.equal(refused.headers["retry-after"], "1");
      const body = JSON.parse(refused.body) as { message: string; status: number };
      assert.equal(body.status, 503);
      assert.match(body.message, /long reads/);
      const byId = await fetchText(port, `/api/v1/transactions/${creates[0]!.id}`);
      assert.equal(byId.status, 200);
      assert.equal(byId.body, creates[0]!.json);
    } finally {
      socket.destroy();
    }
    // The stalled read ends with its connection, and its place is free again.
    const path = `/api/v1/outputs?public_key=${key}`;
    await waitFor("the long read's place to be free", async () => (await fetchText(port, path)).status === 200);
  });

  test(`a streamed answer whose client takes nothing for ${streamStallMs} ms is dropped, and its place freed`, async () => {
    const socket = await stalledClient(port, `/api/v1/transactions?asset_id=${bigAsset.id}`);
    try {
      // The stall timer is the only one on the app's clock; it is set once the answer streams, and
      // counts from the node's last read, so the clock moves once the node reads no more.
      counter.items = 0;
      await settled(port, () => counter.items, creates[0]!.id);
      assert.equal(clock.pending, 1);
      await clock.advance(streamStallMs - 1);
      assert.equal(longReadsOf(app).running, 1, "dropped before its stall time");
      assert.equal(clock.pending, 1);
      await clock.advance(1);
      await waitFor("the stalled answer to be dropped", () => longReadsOf(app).running === 0);
      assert.equal(clock.pending, 0);
      assert.equal((await fetchText(port, `/api/v1/outputs?public_key=${key}`)).status, 200);
    } finally {
      socket.destroy();
    }
  });

  test("a streamed answer whose client takes some of it again is held a whole stall time from that read", async () => {
    const socket = await stalledClient(port, `/api/v1/transactions?asset_id=${bigAsset.id}`);
    try {
      counter.items = 0;
      const first = await settled(port, () => counter.items, creates[0]!.id);
      await clock.advance(streamStallMs - 1);
      // The client takes some bytes: the node reads on, and its stall time starts again there.
      socket.resume();
      await waitFor("the node to read on", () => counter.items > first);
      socket.pause();
      await settled(port, () => counter.items, creates[0]!.id);
      await clock.advance(streamStallMs - 1);
      assert.equal(longReadsOf(app).running, 1, "dropped before a stall time from its last read");
      await clock.advance(1);
      await waitFor("the stalled answer to be dropped", () => longReadsOf(app).running === 0);
    } finally {
      socket.destroy();
    }
  });
});
