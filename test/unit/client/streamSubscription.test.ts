// The client's streams (src/client/streamSubscription.ts) against a real stream on the real
// ledger: connections cut at seeded points while blocks are committed, and the reader still sees
// every committed transaction and block once, in order; a place the node does not hold ends the
// iterator with the node's reason; a reader is told of each connection and ends one by its signal.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WebSocket } from "ws";
import { Random } from "../../../chaos/random.js";
import { StreamEnded, streamBlocks, streamTransactions } from "../../../src/client/streamSubscription.js";
import { StreamServer } from "../../../src/events/streamServer.js";
import { removeDir, startSoloStack } from "../../helpers/soloNode.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";

/** `ws`'s WebSocket, each one kept so that the test can cut the latest. */
class CutSocket extends WebSocket {
  static readonly opened: CutSocket[] = [];
  constructor(url: string) {
    super(url);
    CutSocket.opened.push(this);
  }
}

const txCount = 300;
const noPause = async (): Promise<void> => undefined;

test("the client's streams resume across cut connections: every transaction and block once, in order", { timeout: 120_000 }, async () => {
  const stack = await startSoloStack({ blockIntervalMs: 5 });
  const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger: stack.ledger, store: stack.store });
  try {
    const alice = keypairOf("alice");
    const committer = (async () => {
      for (let i = 0; i < txCount; i += 10) {
        const batch = Array.from({ length: 10 }, (_, j) => bytesOf(create(alice, 1n, { client: i + j })));
        await Promise.all(batch.map((body) => stack.engine.broadcast(body, "commit")));
      }
    })();
    const url = `ws://127.0.0.1:${stream.port}/api/v1/streams/valid_transactions`;
    const random = new Random(41);
    const options = { WebSocket: CutSocket, from: { height: 1 }, pause: noPause };
    const ids: string[] = [];
    let cuts = 0;
    for await (const event of streamTransactions(url, options)) {
      ids.push(event.transaction_id);
      if (ids.length === txCount) break;
      if (random.chance(0.05)) {
        CutSocket.opened.at(-1)!.terminate();
        cuts++;
      }
    }
    await committer;
    const height = stack.ledger.info().height;
    const blocks: string[][] = [];
    for (let h = 1; h <= height; h++) blocks.push([...(await stack.store.getBlock(h))!.txIds]);
    assert.deepEqual(ids, blocks.flat());
    assert.ok(cuts >= 3, `only ${cuts} cuts`);
    const seen: number[] = [];
    for await (const block of streamBlocks(url, options)) {
      seen.push(block.height);
      assert.deepEqual(block.transaction_ids, blocks[block.height - 1]);
      if (block.height === height) break;
      if (random.chance(0.2)) CutSocket.opened.at(-1)!.terminate();
    }
    assert.deepEqual(seen, blocks.map((_, i) => i + 1));
    // A place beyond the node's chain is tried `attemptsMax` times, then ends with the node's code.
    const beyond = streamBlocks(url, { ...options, from: { height: height + 5 }, attemptsMax: 2 });
    await assert.rejects(beyond.next(), (error: unknown) => error instanceof StreamEnded && error.code === 4416);
    // Told when its connection opens and ends; its signal ends it, the blocks queued unread.
    const told: boolean[] = [];
    const stop = new AbortController();
    const following = streamBlocks(url, { ...options, onConnection: (open) => void told.push(open), signal: stop.signal });
    assert.equal((await following.next()).value?.height, 1);
    assert.deepEqual(told, [true]);
    stop.abort();
    assert.deepEqual(await following.next(), { done: true, value: undefined });
    await waitFor("the aborted connection to close", () => told.length === 2);
    assert.deepEqual(told, [true, false]);
  } finally {
    await stream.close();
    await stack.close();
    removeDir(stack.dir);
  }
});
