// The checks' reads of committed state are batched while one is in flight (src/ledger/
// checkReads.ts): on a store whose reads take time, as a networked one's do, concurrent checks
// share reads instead of each making its own (and making it again whenever a block commits
// meanwhile), and every answer stays right: double spends refused, a block committed during the
// reads taken into account.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Store } from "../../../src/store/store.js";
import { sleepOn } from "../../../src/clock/clock.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { waitForStill } from "../../helpers/waitFor.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-check-reads-"));
const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
after(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A real SQLite store whose validator reads take `delayMs` of `clock` (a round trip), counted. */
function slowStore(store: Store, clock: ManualClock, delayMs: number): { store: Store; reads: () => number } {
  let reads = 0;
  const slow = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== "findTransactions" && property !== "getOutputs") return typeof value === "function" ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        reads++;
        await sleepOn(clock, delayMs);
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return { store: slow, reads: () => reads };
}

/**
 * Moves `clock` on by `stepMs` each time all this process runs waits on it (the timers it holds
 * stay the same across turns of the event loop), until `stop()`: the reads in flight end
 * together and the checks that came meanwhile share the next, however fast the machine runs
 * them (the pool verifies on this thread).
 */
async function driveClock(clock: ManualClock, stepMs: number, stop: () => boolean): Promise<void> {
  while (!stop()) {
    await waitForStill("the work waiting on the clock", () => clock.pending, async () => undefined);
    if (clock.pending > 0) await clock.advance(stepMs);
  }
}

describe("the checks' reads", () => {
  it("are shared by concurrent checks, with the same answers, while blocks commit", async () => {
    const real = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
    const clock = new ManualClock();
    const { store, reads } = slowStore(real, clock, 10);
    let done = false;
    const driving = driveClock(clock, 10, () => done);
    try {
      const ledger = await LedgerApp.open({}, { store, pool });
      await ledger.initChain("check-reads", [{ publicKey: "ab".repeat(32), power: 10 }]);
      const owners = Array.from({ length: 200 }, (_, i) => keypairOf(`check-reads-${i}`));
      const assets = owners.map((owner, i) => create(owner, 1n, { i }));
      const first = await ledger.finalizeBlock(1, assets.map(bytesOf));
      assert.ok(first.results.every((r) => r === null));
      await ledger.commit();
      const before = reads();
      const bob = keypairOf("check-reads-bob");
      const spends = assets.map((asset, i) => transfer([{ tx: asset, outputIndex: 0 }], [owners[i]!], [{ publicKeys: [bob.publicKey], amount: 1n }]));
      // The first 100 spends are committed by a block while the checks read; spending the same
      // output twice is refused either way.
      const doubles = assets.slice(0, 50).map((asset, i) => transfer([{ tx: asset, outputIndex: 0 }], [owners[i]!], [{ publicKeys: [owners[i]!.publicKey], amount: 1n }]));
      const checks = Promise.all([...spends.slice(100), ...doubles].map((tx) => ledger.checkTx(bytesOf(tx))));
      await ledger.finalizeBlock(2, spends.slice(0, 100).map(bytesOf));
      await ledger.commit();
      const results = await checks;
      assert.ok(results.slice(0, 100).every((r) => r.ok), "every spend of an unspent output is admitted");
      assert.ok(results.slice(100).every((r) => !r.ok && /spent/i.test(r.rejection.message)), "every spend of an output the block spent is refused");
      // One read per check would be 150 reads (plus each again after the block); batched, a few.
      const made = reads() - before;
      assert.ok(made <= 20, `${made} reads for 150 checks`);
    } finally {
      done = true;
      await driving;
      await real.close();
    }
  });
});
