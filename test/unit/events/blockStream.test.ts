// Planetmint's additions on a real stack (docs/compatibility.md #26): the stream of committed
// blocks on /api/v1/streams/valid_blocks, read with a real WebSocket client beside one on the
// transaction stream, and GET /api/v1/blocks/latest, which names the same block.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { WebSocket } from "ws";
import { StreamServer } from "../../../src/events/streamServer.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { commit, errorBody, expectJson, get, startHttpStack, type HttpStack } from "../http/helpers.js";

/** Opens a subscription and collects its messages. */
async function subscribe(url: string): Promise<{ ws: WebSocket; messages: string[]; next(n: number): Promise<void> }> {
  const ws = new WebSocket(url);
  const messages: string[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  ws.on("message", (data) => {
    messages.push(String(data));
    for (const w of waiting.splice(0)) {
      if (messages.length >= w.n) w.resolve();
      else waiting.push(w);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const next = (n: number) =>
    messages.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }));
  return { ws, messages, next };
}

describe("block stream and blocks/latest", () => {
  let http: HttpStack;
  let stream: StreamServer;
  const alice = keypairOf("alice");

  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
    stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: http.stack.ledger });
  });
  after(async () => {
    await stream.close();
    await http.close();
  });

  test("blocks/latest before the first block is a 404", async () => {
    expectJson(await get(http.app, "/api/v1/blocks/latest"), 404, errorBody(404, "Not found"));
  });

  test("each committed block is one message; blocks/latest names the last one", async () => {
    const base = `ws://127.0.0.1:${stream.port}/api/v1/streams`;
    const blocks = await subscribe(`${base}/valid_blocks`);
    const txs = await subscribe(`${base}/valid_transactions/`);
    const first: JsonObject = create(alice, 1n, { n: 1 });
    const second: JsonObject = create(alice, 1n, { n: 2 });
    await commit(http.app, first);
    await commit(http.app, second);
    await blocks.next(2);
    await txs.next(2);
    const latest = await get(http.app, "/api/v1/blocks/latest");
    expectJson(latest, 200);
    const block = await http.stack.store.getBlock((JSON.parse(latest.body) as { height: number }).height);
    assert.ok(block !== null);
    const ids = block.txIds.map((id) => `"${id}"`).join(", ");
    assert.equal(latest.body, `{"app_hash": "${block.appHash}", "height": ${block.height}, "transactions": [${ids}]}`);
    assert.deepEqual(block.txIds, [second["id"]]);
    // The stream's last message is the same block, in Planetmint's shape and spacing.
    assert.equal(
      blocks.messages.at(-1),
      `{"height": ${block.height}, "hash": "${block.appHash}", "transaction_ids": [${ids}]}`,
    );
    const heights = blocks.messages.map((m) => (JSON.parse(m) as { height: number }).height);
    assert.deepEqual(heights, [...heights].sort((a, b) => a - b));
    // The transaction stream is unchanged: one message per transaction, not per block.
    assert.deepEqual(txs.messages.map((m) => (JSON.parse(m) as { transaction_id: string }).transaction_id), [first["id"], second["id"]]);
    blocks.ws.close();
    txs.ws.close();
  });

  test("blocks/latest takes no parameters; other stream paths are still 404", async () => {
    expectJson(await get(http.app, "/api/v1/blocks/latest?x=1"), 400, errorBody(400, "Unknown arguments: x"));
    const ws = new WebSocket(`ws://127.0.0.1:${stream.port}/api/v1/streams/valid_blockz`);
    const status = await new Promise<number>((resolve) => ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)));
    assert.equal(status, 404);
  });
});
