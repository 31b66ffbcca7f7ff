// A stream resumed at random points while the real ledger commits (docs/http-api.md "Resuming a
// stream"): the solo engine on a real SQLite file, its writes on their own thread as a node runs
// it, and real WebSocket clients that drop their connection after a seeded number of messages
// and reconnect from the last one they saw. What every client received, joined, must be exactly
// what the store committed, in order: nothing lost, nothing twice.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { blockStreamPath, streamPath } from "../../../src/events/options.js";
import { StreamServer } from "../../../src/events/streamServer.js";
import { SoloEngine } from "../../../src/engine/solo/soloEngine.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { openThreadedSqliteStore } from "../../../src/store/sqlite/threadedStore.js";
import type { Store } from "../../../src/store/store.js";
import { Random } from "../../helpers/random.js";
import type { Random as SeededRandom } from "../../../chaos/random.js";
import { removeDir, testValidator } from "../../helpers/soloNode.js";
import { session, type Session } from "../../helpers/streamSession.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";

const seed = 41;
const txCount = 4_000;
/** Transactions posted at once, awaited together: blocks of up to this many. */
const batchTxs = 40;
/** A session drops after 1 to this many messages. */
const sessionMessagesMax = 500;

/** The ids the store committed, in commit order, and each block's ids. */
async function committedIds(store: Store): Promise<{ ids: string[]; blocks: string[][] }> {
  const { height } = await store.getChainState();
  const blocks: string[][] = [];
  for (let h = 1; h <= height; h++) blocks.push([...(await store.getBlock(h))!.txIds]);
  return { ids: blocks.flat(), blocks };
}

test("streams resumed at random points during commits lose and repeat nothing", { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-resume-"));
  const store = await openThreadedSqliteStore({ path: join(dir, "ledger.sqlite"), access: "readers" });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
  const ledger = await LedgerApp.open({}, { store, pool });
  const engine = await SoloEngine.start({ blockIntervalMs: 5 }, { ledger, validator: testValidator });
  const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger, store });
  try {
    const alice = keypairOf("alice");
    const bodies = Array.from({ length: txCount }, (_, i) => bytesOf(create(alice, 1n, { resume: i })));
    const committer = (async () => {
      for (let i = 0; i < bodies.length; i += batchTxs) {
        await Promise.all(bodies.slice(i, i + batchTxs).map((body) => engine.broadcast(body, "commit")));
      }
    })();
    const base = `ws://127.0.0.1:${stream.port}`;
    const random = new Random(seed);
    const txs = resumeTransactions(base, random.fork(1), committer);
    const blocks = resumeBlocks(base, random.fork(2), committer, () => ledger.info().height);
    await committer;
    const [events, heights] = await Promise.all([txs, blocks]);
    const committed = await committedIds(store);
    assert.equal(committed.ids.length, txCount);
    // Every committed id once, in commit order, each with its block's height.
    assert.deepEqual(events.map((e) => e.transaction_id), committed.ids);
    const heightOf = new Map(committed.blocks.flatMap((ids, i) => ids.map((id) => [id, i + 1] as const)));
    assert.ok(events.every((e) => e.height === heightOf.get(e.transaction_id)), "each event names its block");
    // Every block once, in order, with its ids.
    assert.deepEqual(heights.map((b) => b.height), committed.blocks.map((_, i) => i + 1));
    assert.deepEqual(heights.map((b) => b.transaction_ids), committed.blocks);
    assert.equal(stream.replayingCount, 0);
  } finally {
    await stream.close();
    await engine.stop();
    await pool.close();
    await store.close();
    removeDir(dir);
  }
});

interface TxEvent {
  readonly height: number;
  readonly transaction_id: string;
}

/** The transaction stream, dropped and resumed until it has given `txCount` events. */
async function resumeTransactions(base: string, random: SeededRandom, committed: Promise<void>): Promise<TxEvent[]> {
  const events: TxEvent[] = [];
  let committing = true;
  void committed.then(() => (committing = false));
  let sessions = 0;
  let duringCommits = 0;
  while (events.length < txCount) {
    if (committing) duringCommits++;
    const last = events.at(-1);
    const from = last === undefined ? "from_height=1" : `from_height=${last.height}&after=${last.transaction_id}`;
    const take = random.between(1, sessionMessagesMax);
    const wanted = Math.min(take, txCount - events.length);
    const one = session(`${base}${streamPath}?${from}`, wanted, random.chance(0.5));
    await one.done;
    events.push(...one.messages.map((m) => JSON.parse(m) as TxEvent));
    sessions++;
  }
  // It cannot run ahead of the commits: all but the last few resumed while commits went on.
  assert.ok(duringCommits >= 5, `only ${duringCommits} of ${sessions} sessions began while committing`);
  return events;
}

interface BlockEvent {
  readonly height: number;
  readonly transaction_ids: string[];
}

/** The block stream, dropped and resumed while commits go on, then once more for the rest. */
async function resumeBlocks(base: string, random: SeededRandom, committed: Promise<void>, height: () => number): Promise<BlockEvent[]> {
  const blocks: BlockEvent[] = [];
  let committing = true;
  void committed.then(() => (committing = false));
  const open = (wanted: number): Session => {
    const from = (blocks.at(-1)?.height ?? 0) + 1;
    return session(`${base}${blockStreamPath}?from_height=${from}`, wanted, random.chance(0.5));
  };
  while (committing) {
    const one = open(random.between(1, sessionMessagesMax / 10));
    // The commits may end before it has all it wanted: then it is dropped where it is.
    await Promise.race([one.done, committed]);
    one.stop();
    await one.done;
    blocks.push(...one.messages.map((m) => JSON.parse(m) as BlockEvent));
  }
  const rest = open(height() - (blocks.at(-1)?.height ?? 0));
  await rest.done;
  blocks.push(...rest.messages.map((m) => JSON.parse(m) as BlockEvent));
  return blocks;
}
