// Issue #39, state sync: a snapshot's restore alone, without CometBFT, in paired runs. A SQLite
// ledger of N CREATEs (blocks of 64, as the stateSync bench's network makes them) is
// snapshotted; then, alternately, a fresh ledger restores it with the store's bulk load
// (LedgerStore.beginBulkLoad) and without it (every block a durable commit of its own, as before
// the bulk load). For each: the first pass (the chunks' checks), the second (the writes), in
// seconds of the clock and of this process's CPU: on a shared machine the CPU time is the figure
// that moves least. LEDGERD_BENCH_QUICK=1: 10,000 transactions; LEDGERD_BENCH_RESTORE_TXS=N sets
// N (50,000 by default).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import type { SnapshotMetadata } from "../src/ledger/snapshotFormat.js";
import { restoreSnapshot, SnapshotVerifier, type SnapshotHeaders } from "../src/ledger/snapshotRestore.js";
import { takeSnapshot } from "../src/ledger/snapshotTake.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { fmt, signCreates } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const restoredTxs = quick ? 10_000 : Number(process.env["LEDGERD_BENCH_RESTORE_TXS"] ?? 50_000);
const blockTxs = 64;
const rounds = 2;

async function openLedger(path: string): Promise<{ store: SqliteStore; ledger: LedgerApp; close: () => Promise<void> }> {
  const store = SqliteStore.open({ path });
  const pool = new PreparePool({ ...preparePoolOptionsDefault });
  const ledger = await LedgerApp.open({}, { store, pool });
  return { store, ledger, close: async () => { await pool.close(); await store.close(); } };
}

/** The snapshot of a ledger of `restoredTxs` CREATEs, its chunks in memory. */
async function snapshotOf(dir: string): Promise<{ metadata: SnapshotMetadata; chunks: Buffer[] }> {
  const source = await openLedger(join(dir, "source.sqlite"));
  await source.ledger.initChain("bench-restore", [{ publicKey: "ab".repeat(32), power: 10 }], "v1", { appVersion: 1n, ruleHeights: new Map() });
  let height = 0;
  for (let done = 0; done < restoredTxs; done += blockTxs) {
    await source.ledger.finalizeBlock(++height, signCreates(Math.min(blockTxs, restoredTxs - done), `restore-${done}`));
    await source.ledger.commit();
  }
  const chunks: Buffer[] = [];
  const metadata = await takeSnapshot(source.store, height, async (_index, chunk) => void chunks.push(chunk));
  await source.close();
  return { metadata, chunks };
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

async function restoreOnce(dir: string, snapshot: { metadata: SnapshotMetadata; chunks: Buffer[] }, bulk: boolean): Promise<string> {
  const target = await openLedger(join(dir, `target-${bulk ? "bulk" : "blocks"}-${Date.now()}.sqlite`));
  try {
    let started = performance.now();
    let cpu = process.cpuUsage();
    const verifier = await SnapshotVerifier.start(snapshot.metadata, snapshot.metadata.app_hash);
    for (const chunk of snapshot.chunks) if (verifier.chunk(chunk) !== null) throw new Error("the snapshot does not verify");
    if (verifier.finish() !== null) throw new Error("the snapshot does not verify");
    const first = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
    // Without the bulk load: the store's begin and end do nothing, each block commits durably.
    const headers: SnapshotHeaders = {
      store: bulk ? target.store : { getValidators: (h) => target.store.getValidators(h), putSignedHeaders: (list) => target.store.putSignedHeaders(list), beginBulkLoad: async () => undefined, endBulkLoad: async () => undefined },
      onRefused: () => undefined,
    };
    started = performance.now();
    cpu = process.cpuUsage();
    await restoreSnapshot(target.ledger, snapshot.metadata, (async function* () { yield* snapshot.chunks; })(), headers);
    const second = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
    const rate = (seconds: number): string => `${fmt(restoredTxs / seconds)} tx/s`;
    return `${bulk ? "bulk load     " : "block by block"}: first pass ${first.seconds.toFixed(2)} s (${first.cpu.toFixed(2)} s CPU, ${rate(first.seconds)}), ` +
      `second pass ${second.seconds.toFixed(2)} s (${second.cpu.toFixed(2)} s CPU, ${rate(second.seconds)})`;
  } finally {
    await target.close();
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-restore-"));
  try {
    const snapshot = await snapshotOf(dir);
    console.log(`a snapshot of ${fmt(restoredTxs)} CREATEs in ${snapshot.metadata.height} blocks, ${snapshot.chunks.length} chunks; restored into SQLite (synchronous=full):`);
    for (let round = 0; round < rounds; round++) {
      for (const bulk of [false, true]) console.log(await restoreOnce(dir, snapshot, bulk));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
