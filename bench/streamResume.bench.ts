// Issue #41: event streams that resume. A backlog is committed, then CREATEs are offered at
// ~1,000 tx/s; meanwhile a subscriber resumes from height 1 (the replay of the backlog, timed
// until it reaches what was committed when it joined), then drops and resumes at seeded random
// points until the load ends. Printed: the replay's rate in messages/s, the committed rate, the
// sessions, and the gaps and duplicates against what the ledger committed (both must be 0).
// The solo engine on a SQLite file with its writer thread, as a node runs it; real sockets.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Random } from "../chaos/random.js";
import { SoloEngine } from "../src/engine/solo/soloEngine.js";
import { streamPath } from "../src/events/options.js";
import { StreamServer } from "../src/events/streamServer.js";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { openThreadedSqliteStore } from "../src/store/sqlite/threadedStore.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { session } from "../test/helpers/streamSession.js";
import { testValidator } from "../test/helpers/soloNode.js";
import { fmt, signCreates } from "./lib.js";

const backlogTxs = 20_000;
const offeredPerSecond = 1_000;
const loadSeconds = 15;
/** The load is posted in ticks of this many milliseconds. */
const tickMs = 20;
const seed = 41;
const sessionMessagesMax = 2_000;

interface TxEvent {
  readonly height: number;
  readonly transaction_id: string;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-resume-"));
  const store = await openThreadedSqliteStore({ path: join(dir, "ledger.sqlite"), access: "readers" });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 1 });
  const ledger = await LedgerApp.open({}, { store, pool });
  const engine = await SoloEngine.start({}, { ledger, validator: testValidator });
  const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger, store });
  const committed: string[] = [];
  ledger.onCommitted((block) => committed.push(...block.txs.map((tx) => tx.id)));
  try {
    const owner = makeRandomKeypair();
    const backlog = signCreates(backlogTxs, "backlog", owner);
    const load = signCreates(offeredPerSecond * loadSeconds, "load", owner);
    for (let i = 0; i < backlog.length; i += 500) {
      await Promise.all(backlog.slice(i, i + 500).map((body) => engine.broadcast(body, "commit")));
    }
    const started = performance.now();
    let offeredSeconds = 0;
    const offered = offer(engine, load).then(() => void (offeredSeconds = (performance.now() - started) / 1000));
    const url = `ws://127.0.0.1:${stream.port}${streamPath}`;
    // The replay: from height 1, timed until it holds what was committed when it joined.
    const joinedAt = committed.length;
    const replayStart = performance.now();
    const first = session(`${url}?from_height=1`, joinedAt, false);
    await first.done;
    const replaySeconds = (performance.now() - replayStart) / 1000;
    const events: TxEvent[] = first.messages.map((m) => JSON.parse(m) as TxEvent);
    const sessions = await resumeUntil(url, events, offered, () => committed.length);
    const { gaps, duplicates, inOrder } = compare(events, committed);
    console.log(`backlog ${fmt(backlogTxs)} CREATEs, then ${fmt(load.length)} offered at ${fmt(offeredPerSecond)} tx/s (all committed in ${offeredSeconds.toFixed(1)} s: ${fmt(load.length / offeredSeconds)} tx/s)`);
    console.log(`replay from height 1 of ${fmt(joinedAt)} events: ${fmt(joinedAt / replaySeconds)} messages/s`);
    console.log(`then ${sessions} drops and resumes at random points; ${fmt(events.length)} events received of ${fmt(committed.length)} committed: gaps ${gaps}, duplicates ${duplicates}, in commit order: ${inOrder}`);
  } finally {
    await stream.close();
    await engine.stop();
    await pool.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Posts `bodies` at `offeredPerSecond`, a tick's share at a time; resolves once all are committed. */
async function offer(engine: SoloEngine, bodies: readonly Uint8Array[]): Promise<void> {
  const perTick = (offeredPerSecond * tickMs) / 1000;
  const commits: Promise<unknown>[] = [];
  const start = performance.now();
  for (let i = 0; i < bodies.length; i += perTick) {
    commits.push(...bodies.slice(i, i + perTick).map((body) => engine.broadcast(body, "commit")));
    const due = start + ((i + perTick) / perTick) * tickMs;
    await sleep(Math.max(0, due - performance.now()));
  }
  await Promise.all(commits);
}

/**
 * Drops and resumes the stream at seeded random points while the load is offered, then takes
 * the rest in one last session; returns the number of sessions.
 */
async function resumeUntil(url: string, events: TxEvent[], offered: Promise<void>, total: () => number): Promise<number> {
  const random = new Random(seed);
  let offering = true;
  void offered.then(() => (offering = false));
  let sessions = 0;
  const open = (wanted: number, cut: boolean) => {
    const last = events.at(-1)!;
    return session(`${url}?from_height=${last.height}&after=${last.transaction_id}`, wanted, cut);
  };
  while (offering) {
    const one = open(random.between(1, sessionMessagesMax), random.chance(0.5));
    await Promise.race([one.done, offered]);
    one.stop();
    await one.done;
    events.push(...one.messages.map((m) => JSON.parse(m) as TxEvent));
    sessions++;
  }
  const rest = open(total() - events.length, false);
  await rest.done;
  events.push(...rest.messages.map((m) => JSON.parse(m) as TxEvent));
  return sessions + 1;
}

/** Ids committed and never received, ids received more than once, and whether the order is the commits'. */
function compare(events: readonly TxEvent[], committed: readonly string[]): { gaps: number; duplicates: number; inOrder: boolean } {
  const received = events.map((e) => e.transaction_id);
  const seen = new Set(received);
  const gaps = committed.filter((id) => !seen.has(id)).length;
  const inOrder = received.length === committed.length && received.every((id, i) => id === committed[i]);
  return { gaps, duplicates: received.length - seen.size, inOrder };
}
