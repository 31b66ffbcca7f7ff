// The event stream over real sockets: message format and order, the subscriber limit, a slow
// subscriber dropped without slowing a fast one, wrong paths, keepalive, and the real ledger as
// the source. Most tests use a hand-made block source, since the socket is the subject.
import assert from "node:assert/strict";
import { get as httpGet } from "node:http";
import { after, before, describe, test } from "node:test";
import { WebSocket } from "ws";
import { streamPath } from "../../../src/events/options.js";
import { StreamServer } from "../../../src/events/streamServer.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { removeDir, startSoloStack } from "../../helpers/soloNode.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { rawExchange } from "../http/rawSocket.js";
import { waitFor } from "../../helpers/waitFor.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { blockOf, connect, FakeLedger, messagesOf, refused } from "./streamClients.js";

describe("StreamServer with a hand-made source", () => {
  let ledger: FakeLedger;
  let stream: StreamServer;
  before(async () => {
    ledger = new FakeLedger();
    stream = await StreamServer.start({ host: "127.0.0.1", port: 0, subscribersMax: 3, sendQueueBytesMax: 64 * 1024 }, { ledger });
  });
  after(() => stream.close());

  test("two subscribers both receive every event, one message per transaction, in block order", async () => {
    const a = await connect(stream.port);
    const b = await connect(stream.port, `${streamPath}/?anything=ignored`);
    const blocks = [blockOf(1, 3), blockOf(2, 0), blockOf(3, 5)];
    for (const block of blocks) ledger.commit(block);
    const expected = blocks.flatMap(messagesOf);
    assert.equal(expected.length, 8);
    await Promise.all([a.received(8), b.received(8)]);
    assert.deepEqual(a.messages, expected);
    assert.deepEqual(b.messages, expected);
    assert.deepEqual(JSON.parse(a.messages[1]!), { height: 1, asset_id: blocks[0]!.txs[0]!.id, transaction_id: blocks[0]!.txs[1]!.id });
    a.ws.close();
    b.ws.close();
    await Promise.all([a.closed, b.closed]);
  });

  test("no replay: a subscriber gets only blocks committed after it joined", async () => {
    ledger.commit(blockOf(10, 2));
    const late = await connect(stream.port);
    const block = blockOf(11, 2);
    ledger.commit(block);
    await late.received(2);
    assert.deepEqual(late.messages, messagesOf(block));
    late.ws.close();
    await late.closed;
  });

  test("beyond subscribersMax the upgrade is refused with 503 JSON; a freed slot is taken again", async () => {
    await waitFor("no subscriber", () => stream.subscriberCount === 0);
    const clients = await Promise.all([connect(stream.port), connect(stream.port), connect(stream.port)]);
    const answer = await refused(stream.port, streamPath);
    assert.deepEqual(answer, {
      status: 503,
      type: "application/json",
      body: JSON.stringify({ message: "The event stream has its maximum of 3 subscribers; try again later", status: 503 }),
    });
    clients[0]!.ws.close();
    await clients[0]!.closed;
    await waitFor("two subscribers", () => stream.subscriberCount === 2);
    const again = await connect(stream.port);
    for (const client of [...clients.slice(1), again]) client.ws.close();
    await Promise.all([...clients.slice(1), again].map((client) => client.closed));
  });

  test("any other path is refused with 404; a plain HTTP request to the stream is 400", async () => {
    for (const path of ["/", "/api/v1/streams", `${streamPath}x`, "/api/v1/streams/valid_transactions//"]) {
      const answer = await refused(stream.port, path);
      assert.deepEqual(answer, { status: 404, type: "application/json", body: JSON.stringify({ message: "Not found", status: 404 }) }, path);
    }
    const plain = await new Promise<{ status: number; body: string }>((resolve) => {
      httpGet(`http://127.0.0.1:${stream.port}${streamPath}`, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
    });
    assert.equal(plain.status, 400);
    assert.match(JSON.parse(plain.body).message, /WebSocket/);
  });

  test("handshakes with wrong WebSocket headers and malformed requests get JSON, then close", { timeout: 10_000 }, async () => {
    const upgrade = (method: string, headers: string) =>
      `${method} ${streamPath} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n${headers}\r\n`;
    const key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    const cases: [string, string, number, RegExp, string?][] = [
      ["no Sec-WebSocket-Key", upgrade("GET", "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"), 400, /Sec-WebSocket-Key/],
      ["a bad key", upgrade("GET", "Upgrade: websocket\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n"), 400, /Sec-WebSocket-Key/],
      ["version 12", upgrade("GET", `Upgrade: websocket\r\n${key}Sec-WebSocket-Version: 12\r\n`), 400, /Version/, "13, 8"],
      ["Upgrade: h2c", upgrade("GET", `Upgrade: h2c\r\n${key}Sec-WebSocket-Version: 13\r\n`), 400, /Upgrade header/],
      ["POST", upgrade("POST", `Upgrade: websocket\r\n${key}Sec-WebSocket-Version: 13\r\n`), 405, /method/],
      ["a doubled Content-Length", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, /Content-Length/],
      ["a URL over 16 KiB", `GET /${"a".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, /16384/],
    ];
    for (const [what, bytes, status, message, versions] of cases) {
      const exchange = rawExchange(stream.port, bytes);
      const answer = await exchange.answer;
      assert.equal(answer.status, status, what);
      assert.equal(answer.headers.get("content-type"), "application/json", what);
      const body = JSON.parse(answer.body) as { message: string; status: number };
      assert.deepEqual(Object.keys(body), ["message", "status"], what);
      assert.equal(body.status, status, what);
      assert.match(body.message, message, what);
      if (versions !== undefined) assert.equal(answer.headers.get("sec-websocket-version"), versions);
      await exchange.closed;
    }
    assert.equal(stream.subscriberCount, 0);
  });

  test("a subscriber that does not read is closed with 1008 and a reason; a fast one gets everything", async () => {
    await waitFor("no subscriber", () => stream.subscriberCount === 0);
    const fast = await connect(stream.port);
    const slow = await connect(stream.port);
    slow.ws.pause();
    const droppedBefore = stream.droppedCount;
    const expected: string[] = [];
    // Keep committing until the slow one's queue passes the cap: first the kernel's socket
    // buffers fill (a few MB on loopback), then the server's own queue.
    for (let height = 1; stream.droppedCount === droppedBefore; height++) {
      assert.ok(height < 2_000, "the slow subscriber was never dropped");
      const block = blockOf(1_000 + height, 100);
      ledger.commit(block);
      expected.push(...messagesOf(block));
      await fast.received(expected.length);
    }
    // The node did not wait for the slow one: the fast one already has every event.
    assert.deepEqual(fast.messages, expected);
    slow.ws.resume();
    const { code, reason } = await slow.closed;
    assert.equal(code, 1008);
    assert.equal(reason, "Send queue over 65536 bytes: events are not read fast enough");
    assert.ok(slow.messages.length < expected.length, "the slow one missed events");
    assert.deepEqual(slow.messages, expected.slice(0, slow.messages.length), "what it got came in order");
    // The fast one keeps receiving after the drop.
    const block = blockOf(9_999, 3);
    ledger.commit(block);
    await fast.received(expected.length + 3);
    assert.deepEqual(fast.messages.slice(-3), messagesOf(block));
    fast.ws.close();
    await fast.closed;
  });
});

/**
 * Resolves once the server has read all `ws` sent before: the server answers a ping in order, so
 * the pong to this one comes after it has read the client's earlier pong. Rejects if cut instead.
 */
function roundTrip(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    const cut = (): void => reject(new Error("the server cut the subscriber"));
    ws.once("close", cut);
    ws.once("pong", () => {
      ws.off("close", cut);
      resolve();
    });
    ws.ping();
  });
}

describe("StreamServer keepalive and close", () => {
  test("a subscriber that does not answer pings is cut; one that does stays", async () => {
    const clock = new ManualClock();
    const stream = await StreamServer.start({ host: "127.0.0.1", port: 0, pingIntervalMs: 30 }, { ledger: new FakeLedger(), clock });
    try {
      const silent = await connect(stream.port, streamPath, { autoPong: false });
      const alive = await connect(stream.port);
      await waitFor("both subscribed", () => stream.subscriberCount === 2);
      const pinged = [silent, alive].map((c) => new Promise((resolve) => c.ws.once("ping", resolve)));
      await clock.advance(30);
      await Promise.all(pinged);
      await roundTrip(alive.ws);
      for (let round = 0; round < 3; round++) {
        const ping = new Promise((resolve) => alive.ws.once("ping", resolve));
        await clock.advance(30);
        await ping;
        await roundTrip(alive.ws);
      }
      const { code } = await silent.closed;
      assert.equal(code, 1006, "cut without a close frame");
      assert.equal(alive.ws.readyState, WebSocket.OPEN);
      assert.equal(stream.subscriberCount, 1, "the one that answers stays");
      alive.ws.close();
      await alive.closed;
    } finally {
      await stream.close();
    }
  });

  test("close() says 1001 to subscribers, refuses new ones, and frees the port", async () => {
    const ledger = new FakeLedger();
    const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger });
    const client = await connect(stream.port);
    await stream.close();
    const { code } = await client.closed;
    assert.equal(code, 1001);
    ledger.commit(blockOf(1, 2)); // after close: ignored, no throw into the ledger
    await assert.rejects(connect(stream.port));
  });
});

describe("StreamServer on the real ledger", () => {
  test("committed transactions arrive once durable, a TRANSFER with its asset's id", async () => {
    const stack = await startSoloStack({ blockIntervalMs: 5 });
    const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: stack.ledger });
    try {
      const client = await connect(stream.port);
      const alice = keypairOf("alice");
      const asset = create(alice, 1n, { stream: true });
      const move = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [keypairOf("bob").publicKey], amount: 1n }]);
      await stack.engine.broadcast(Buffer.from(writeJson(asset)), "commit");
      await stack.engine.broadcast(Buffer.from(writeJson(move)), "commit");
      await client.received(2);
      const events = client.messages.map((message) => JSON.parse(message) as { height: number; asset_id: string; transaction_id: string });
      assert.deepEqual(events.map((e) => [e.transaction_id, e.asset_id]), [[asset["id"], asset["id"]], [move["id"], asset["id"]]]);
      for (const event of events) {
        // Durable: the store already has the block the event names.
        const heights = await stack.store.getBlockHeightOfTransaction(event.transaction_id);
        assert.equal(heights, event.height);
      }
      assert.deepEqual(Object.keys(events[0]!), ["height", "asset_id", "transaction_id"]);
      client.ws.close();
      await client.closed;
    } finally {
      await stream.close();
      await stack.close();
      removeDir(stack.dir);
    }
  });
});
