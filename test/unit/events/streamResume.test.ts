// Resuming a stream (docs/http-api.md "Resuming a stream") over real sockets, on a hand-made
// chain whose store and publications the test moves by hand: the parameters refused before the
// upgrade, the close codes of heights the node cannot serve, the replay and its hand-over to the
// live blocks (the store a block ahead of the publications included), a replay that waits for a
// subscriber that does not read, and a store that fails. The same on the real ledger under
// steady commits is streamResumeLive.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { blockStreamPath, streamPath } from "../../../src/events/options.js";
import type { StreamReads } from "../../../src/events/resume.js";
import { StreamServer, type StreamBlock } from "../../../src/events/streamServer.js";
import type { ChainState, StreamBlockPage, StreamBlockRecord } from "../../../src/store/store.js";
import { waitFor } from "../../helpers/waitFor.js";
import { blockOf, connect, FakeLedger, messagesOf, refused } from "./streamClients.js";

/** A ledger and its store: `put` stores a block, `publish` tells the stream of it. */
class FakeChain extends FakeLedger implements StreamReads {
  private readonly stored = new Map<number, StreamBlockRecord>();
  private tip = 0;
  /** Page reads so far. */
  reads = 0;
  /** The height each page read began at, in order. */
  readFroms: number[] = [];
  /** Page reads from this count on fail, as a database that went away does. */
  failFrom = Infinity;
  private held: { reached: () => void; released: Promise<void> } | null = null;

  /** The next page read takes its snapshot, then waits for `release` before it answers. */
  hold(): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (this.held = { reached: resolve, released }));
    return { reached, release };
  }

  /** Blocks `from` to `to` with `count` transactions each, stored and published. */
  commitRange(from: number, to: number, count: number): StreamBlock[] {
    const blocks: StreamBlock[] = [];
    for (let height = from; height <= to; height++) {
      const block = { ...blockOf(height, count), appHash: `${height}`.padStart(64, "a") };
      this.put(block);
      this.commit(block);
      blocks.push(block);
    }
    return blocks;
  }

  put(block: StreamBlock): void {
    this.stored.set(block.height, { height: block.height, appHash: block.appHash ?? "", txs: block.txs });
    this.tip = Math.max(this.tip, block.height);
  }

  /** Forgets these blocks, as a node restored from a later state holds none below it. */
  forget(heights: readonly number[]): void {
    for (const height of heights) this.stored.delete(height);
  }

  async getChainState(): Promise<ChainState> {
    return { height: this.tip, appHash: "", chainId: "fake", commitment: "v1", historySize: 0, appVersion: 1n, ruleHeights: new Map() };
  }

  async getStreamBlocks(from: number, page: StreamBlockPage): Promise<StreamBlockRecord[]> {
    this.readFroms.push(from);
    if (this.reads++ >= this.failFrom) throw new LedgerError("StoreUnavailable", "The database went away");
    const out: StreamBlockRecord[] = [];
    let txs = 0;
    for (let height = from; height <= this.tip && out.length < page.blocksMax; height++) {
      const block = this.stored.get(height);
      if (block === undefined) continue;
      if (out.length > 0 && txs + block.txs.length > page.txsMax) break;
      out.push(block);
      txs += block.txs.length;
    }
    const held = this.held;
    this.held = null;
    held?.reached();
    await held?.released;
    return out;
  }
}

const blockMessageOf = (block: StreamBlock): string =>
  `{"height": ${block.height}, "hash": "${block.appHash}", "transaction_ids": [${block.txs.map((tx) => `"${tx.id}"`).join(", ")}]}`;

const badParameter = (message: string) => ({ status: 400, type: "application/json", body: JSON.stringify({ message, status: 400 }) });

describe("resuming a stream on a hand-made chain", () => {
  let chain: FakeChain;
  let stream: StreamServer;
  let blocks: StreamBlock[];
  before(async () => {
    chain = new FakeChain();
    blocks = chain.commitRange(1, 10, 3);
    stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: chain, store: chain });
  });
  after(() => stream.close());

  test("bad parameters are refused with 400 JSON before the upgrade", async () => {
    const id = blocks[4]!.txs[1]!.id;
    const cases: [string, string][] = [
      [`${streamPath}?from_height=abc`, "from_height: must be a block height, a whole number from 1 (got 'abc')"],
      [`${streamPath}?from_height=0`, "from_height: must be a block height, a whole number from 1 (got '0')"],
      [`${streamPath}?from_height=-1`, "from_height: must be a block height, a whole number from 1 (got '-1')"],
      [`${streamPath}?from_height=1.5`, "from_height: must be a block height, a whole number from 1 (got '1.5')"],
      [`${streamPath}?from_height=`, "from_height: must be a block height, a whole number from 1 (got '')"],
      [`${streamPath}?from_height=99999999999999999`, "from_height: must be a block height, a whole number from 1 (got '99999999999999999')"],
      [`${streamPath}?from_height=1&from_height=2`, "from_height: given more than once; give each parameter once"],
      [`${streamPath}?from_height=1&limit=3`, "Unknown arguments: limit"],
      [`${streamPath}?anything=ignored`, "Unknown arguments: anything"],
      [`${streamPath}?after=${id}`, "after: needs from_height, the height of the block that holds it"],
      [`${streamPath}?from_height=5&after=xyz`, "after: must be a transaction id, 64 hex digits"],
      [`${streamPath}?from_height=4&after=${id}`, `after: no transaction ${id} in block 4`],
      [`${blockStreamPath}?from_height=5&after=${id}`, "Unknown arguments: after"],
    ];
    for (const [path, message] of cases) assert.deepEqual(await refused(stream.port, path), badParameter(message), path);
    assert.equal(stream.subscriberCount, 0);
  });

  test("a height beyond the chain is closed with 4416, one below what the node holds with 4410", async () => {
    const beyond = await connect(stream.port, `${streamPath}?from_height=12`);
    assert.deepEqual(await beyond.closed, { code: 4416, reason: "Block 12 is beyond this node's last block, 10" });
    // `after` names a transaction of a block the node must have committed.
    const next = await connect(stream.port, `${streamPath}?from_height=11&after=${"a".repeat(64)}`);
    assert.deepEqual(await next.closed, { code: 4416, reason: "Block 11 is beyond this node's last block, 10" });
    const restored = new FakeChain();
    restored.commitRange(1, 8, 2);
    restored.forget([1, 2, 3, 4, 5]);
    const node = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: restored, store: restored });
    try {
      for (const path of [streamPath, blockStreamPath]) {
        const below = await connect(node.port, `${path}?from_height=3`);
        assert.deepEqual(await below.closed, { code: 4410, reason: "Block 3 is not stored on this node; it replays from 6" });
      }
      const from = await connect(node.port, `${blockStreamPath}?from_height=6`);
      await from.received(3);
      assert.deepEqual(from.messages.map((m) => (JSON.parse(m) as { height: number }).height), [6, 7, 8]);
      from.ws.close();
      await from.closed;
      // A block missing further on ends the replay where it is missing.
      restored.forget([7]);
      const gap = await connect(node.port, `${blockStreamPath}?from_height=6`);
      assert.deepEqual(await gap.closed, { code: 4410, reason: "Block 7 is not stored on this node" });
      assert.deepEqual(gap.messages.map((m) => (JSON.parse(m) as { height: number }).height), [6]);
    } finally {
      await node.close();
    }
  });

  test("from a height, after a transaction: the rest of that block, every block since, then the live ones", async () => {
    const after = blocks[4]!.txs[0]!.id;
    const client = await connect(stream.port, `${streamPath}?from_height=5&after=${after}`);
    const missed = [...messagesOf(blocks[4]!).slice(1), ...blocks.slice(5).flatMap(messagesOf)];
    await client.received(missed.length);
    const live = chain.commitRange(11, 12, 2);
    await client.received(missed.length + 4);
    assert.deepEqual(client.messages, [...missed, ...live.flatMap(messagesOf)]);
    // After a block's last transaction: nothing more of it.
    const last = await connect(stream.port, `${streamPath}?from_height=12&after=${live[1]!.txs[1]!.id}`);
    const next = chain.commitRange(13, 13, 1);
    await last.received(1);
    assert.deepEqual(last.messages, messagesOf(next[0]!));
    for (const c of [client, last]) c.ws.close();
    await Promise.all([client.closed, last.closed]);
    blocks.push(...live, ...next);
  });

  test("the block stream resumes at a height; empty blocks are sent too", async () => {
    const client = await connect(stream.port, `${blockStreamPath}?from_height=12`);
    await client.received(2);
    const live = chain.commitRange(14, 15, 0);
    await client.received(4);
    assert.deepEqual(client.messages, [...blocks.slice(11, 13), ...live].map(blockMessageOf));
    // The next block, not yet committed: it waits for it.
    const next = await connect(stream.port, `${blockStreamPath}?from_height=16`);
    const more = chain.commitRange(16, 16, 1);
    await next.received(1);
    assert.deepEqual(next.messages, more.map(blockMessageOf));
    for (const c of [client, next]) c.ws.close();
    await Promise.all([client.closed, next.closed]);
    blocks.push(...live, ...more);
  });

  test("a block stored before it is published is sent once: by the replay, not again live", async () => {
    const ahead = { ...blockOf(17, 2), appHash: "b".repeat(64) };
    chain.put(ahead);
    const client = await connect(stream.port, `${streamPath}?from_height=16`);
    await client.received(3);
    // On the live blocks now, its cursor at 18: block 17's publication comes after.
    await waitFor("the replay handed over", () => stream.replayingCount === 0);
    chain.commit(ahead);
    const live = chain.commitRange(18, 18, 1);
    await client.received(4);
    assert.deepEqual(client.messages, [...messagesOf(blocks.at(-1)!), ...messagesOf(ahead), ...messagesOf(live[0]!)]);
    client.ws.close();
    await client.closed;
  });

  test("a block published while the replay's last read is in flight is replayed, not lost", async () => {
    const read = chain.hold();
    const client = await connect(stream.port, `${streamPath}?from_height=19`);
    await read.reached;
    // The read saw no block 19; the block is published before its answer comes back.
    const missed = chain.commitRange(19, 19, 2);
    read.release();
    // Sent without waiting for a later block to reveal the gap.
    await waitFor("block 19 arrived", () => client.messages.length === 2, { timeoutMs: 10_000 });
    await waitFor("the replay handed over", () => stream.replayingCount === 0);
    const live = chain.commitRange(20, 20, 1);
    await waitFor("block 20 arrived", () => client.messages.some((m) => m.startsWith('{"height": 20,')));
    assert.deepEqual(client.messages, [...messagesOf(missed[0]!), ...messagesOf(live[0]!)]);
    client.ws.close();
    await client.closed;
  });

  test("a plain subscriber is unchanged: no replay, the blocks committed after it joined", async () => {
    const plain = await connect(stream.port, `${streamPath}/`);
    await waitFor("subscribed", () => stream.subscriberCount === 1);
    const live = chain.commitRange(21, 21, 2);
    await plain.received(2);
    assert.deepEqual(plain.messages, messagesOf(live[0]!));
    plain.ws.close();
    await plain.closed;
  });

  test("a store that fails: 503 before the upgrade, 1011 during the replay", async () => {
    await waitFor("no subscriber", () => stream.subscriberCount === 0);
    try {
      chain.failFrom = chain.reads;
      const answer = await refused(stream.port, `${blockStreamPath}?from_height=1`);
      assert.deepEqual(answer, { status: 503, type: "application/json", body: JSON.stringify({ message: "The database went away", status: 503 }) });
      // The look-up before the upgrade reads the first page; the replay's next page fails.
      chain.failFrom = chain.reads + 1;
      const client = await connect(stream.port, `${blockStreamPath}?from_height=1`);
      assert.deepEqual(await client.closed, { code: 1011, reason: "The node could not read its blocks; resume later" });
    } finally {
      chain.failFrom = Infinity;
    }
  });
});

describe("a resumed subscriber's reads", () => {
  test("the block it resumes at is read once: the look-up's read is the replay's first page", async () => {
    const chain = new FakeChain();
    const blocks = chain.commitRange(1, 6, 2);
    const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: chain, store: chain });
    try {
      const client = await connect(stream.port, `${streamPath}?from_height=3&after=${blocks[2]!.txs[0]!.id}`);
      const missed = [...messagesOf(blocks[2]!).slice(1), ...blocks.slice(3).flatMap(messagesOf)];
      await client.received(missed.length);
      await waitFor("the replay handed over", () => stream.replayingCount === 0);
      assert.deepEqual(client.messages, missed, "no event twice");
      // One page holds blocks 3 to 6; the next read finds nothing at 7 and hands over to live.
      assert.deepEqual(chain.readFroms, [3, 7]);
      client.ws.close();
      await client.closed;
    } finally {
      await stream.close();
    }
  });
});

describe("a replay to a subscriber that does not read", () => {
  test("waits for its socket after a page, holds no more, and sends the rest in order once it reads", async () => {
    const chain = new FakeChain();
    // ~190 bytes an event: 40 MB, far more than loopback's socket buffers take.
    const blocks = chain.commitRange(1, 200, 1_000);
    const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: chain, store: chain });
    try {
      const client = await connect(stream.port, `${streamPath}?from_height=1`);
      client.ws.pause();
      await waitFor("the replay waits for the socket", () => stream.replaysWaiting === 1);
      const readWhilePaused = chain.reads;
      assert.ok(readWhilePaused < 200, `it read ${readWhilePaused} pages of 200 for a subscriber that reads nothing`);
      client.ws.resume();
      const expected = blocks.flatMap(messagesOf);
      await client.received(expected.length);
      assert.equal(client.messages.length, expected.length);
      assert.ok(client.messages.every((message, i) => message === expected[i]), "every event once, in order");
      client.ws.close();
      await client.closed;
    } finally {
      await stream.close();
    }
  });
});
