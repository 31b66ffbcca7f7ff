// Issue #18, the catch-up: a node under CometBFT verifies a block's signatures on its verify
// threads while its main thread writes the block before (abciApp.ts, `commit`), so one thread
// shares its core with the write. Split evenly, that thread's half of the block finished ~2 ms
// after the other's in a catch-up's ~12 ms blocks (traced); shared, each thread takes the next
// transaction until none is left (PreparePool, `share`). This replays that pipeline through the
// ledger (FinalizeBlock, then the previous block's write, then Commit), no CometBFT, blocks of 64
// CREATEs as a catch-up's, both ways alternated in one run, on fresh ledgers: committed tx/s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { fmt, median, signCreates, ofVerifyRate } from "./lib.js";

const blockTxs = 64;
const blocks = 300;
const rounds = 5;

/** Committed tx/s of `bodies` in blocks through a new ledger whose pool shares turns from `sharedTxsMin`. */
async function replay(dir: string, label: string, sharedTxsMin: number, bodies: readonly Buffer[]): Promise<number> {
  const store = SqliteStore.open({ path: join(dir, `${label}.sqlite`) });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 2, sharedTxsMin });
  const ledger = await LedgerApp.open({}, { store, pool });
  await ledger.initChain("bench-verify-share", [{ publicKey: "00".repeat(32), power: 10 }]);
  const start = performance.now();
  let committing: Promise<unknown> = Promise.resolve();
  let startWrite = (): void => undefined;
  for (let at = 0, height = 1; at < bodies.length; at += blockTxs, height++) {
    const finalizing = ledger.finalizeBlock(height, bodies.slice(at, at + blockTxs), committing);
    // The previous block's write, once this block's transactions have gone to the threads.
    startWrite();
    await finalizing;
    // Commit is answered at once; its write waits for the next FinalizeBlock, as abciApp's does.
    committing = new Promise<void>((resolve) => (startWrite = () => setImmediate(resolve))).then(() => ledger.commit());
  }
  startWrite();
  await committing;
  const rate = bodies.length / ((performance.now() - start) / 1000);
  await pool.close();
  await store.close();
  return rate;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-verify-share-"));
  try {
    const bodies = signCreates(blocks * blockTxs, "verifyShare");
    const ways = [
      { label: "split evenly", sharedTxsMin: Number.MAX_SAFE_INTEGER, rates: [] as number[] },
      { label: "shared", sharedTxsMin: preparePoolOptionsDefault.sharedTxsMin, rates: [] as number[] },
    ];
    for (let round = 0; round < rounds; round++) {
      for (const way of round % 2 === 0 ? ways : [...ways].reverse()) way.rates.push(await replay(dir, `${way.label}-${round}`, way.sharedTxsMin, bodies));
    }
    for (const way of ways) console.log(`${way.label}: ${fmt(median(way.rates))} committed tx/s ${ofVerifyRate(median(way.rates))}, median of ${rounds} (${way.rates.map(fmt).join(", ")})`);
    const [even, shared] = ways.map((way) => median(way.rates));
    console.log(`${blocks} blocks of ${blockTxs} CREATEs, each verified beside the previous one's write: shared / split evenly ${(shared! / even!).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
