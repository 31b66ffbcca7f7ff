// Issue #39, state sync: a snapshot's restore alone, without CometBFT. A SQLite ledger of N
// CREATEs (blocks of 64, as the stateSync bench's network makes them) is snapshotted; then a
// fresh ledger restores it, twice: the first pass (the chunks' checks) and the second (the
// writes, one bulk load of the store), each in seconds of the clock and in CPU per transaction
// (µs, and in raw Ed25519 verifies measured in the same run): on a shared machine the CPU time
// is the figure that moves least. LEDGERD_BENCH_QUICK=1: 10,000 transactions;
// LEDGERD_BENCH_RESTORE_TXS=N sets N (50,000 by default). LEDGERD_BENCH_RESTORE_SNAPSHOT=DIR
// keeps the snapshot in DIR and restores the one found there: an A/B of two builds (a git stash
// between runs) then restores the same bytes and spends nothing making them.
// The restoring store is opened as a node's (its ids' filter, its checkpoint thread); the CPU is
// the process's, every thread's. LEDGERD_BENCH_RESTORE_CACHE_MB=N: the restoring store's SQLite
// page cache (cacheSizeBytes), an experiment on how the restore's writes slow as the ledger
// outgrows the cache.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import type { SnapshotMetadata } from "../src/ledger/snapshotFormat.js";
import { restoreSnapshot, SnapshotVerifier, type SnapshotHeaders } from "../src/ledger/snapshotRestore.js";
import { takeSnapshot } from "../src/ledger/snapshotTake.js";
import type { SqliteStoreOptions } from "../src/store/sqlite/options.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { fmt, rawVerifyCpuMicros, signCreates } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const restoredTxs = quick ? 10_000 : Number(process.env["LEDGERD_BENCH_RESTORE_TXS"] ?? 50_000);
const blockTxs = 64;
const rounds = 2;
const targetCacheMb = process.env["LEDGERD_BENCH_RESTORE_CACHE_MB"];

/**
 * The restoring ledger's store is opened as a node's (engine cometbft) is: open to readers (its
 * HTTP workers; the log checkpointed by the checkpoint thread, moduleOptions.ts) and with the
 * filter of committed ids of the store its checks run on (openStore.ts).
 */
const asANode = { access: "readers", idFilter: true } as const;

async function openLedger(path: string, options: Partial<SqliteStoreOptions> = {}): Promise<{ store: SqliteStore; ledger: LedgerApp; close: () => Promise<void> }> {
  const store = SqliteStore.open({ path, ...options });
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

/** The snapshot kept in `kept` (LEDGERD_BENCH_RESTORE_SNAPSHOT) if one of `restoredTxs` is there, else made (and kept there). */
async function keptSnapshotOf(dir: string, kept: string | undefined): Promise<{ metadata: SnapshotMetadata; chunks: Buffer[] }> {
  const metadataPath = kept === undefined ? "" : join(kept, `${restoredTxs}.json`);
  if (kept !== undefined && existsSync(metadataPath)) {
    const metadata = JSON.parse(readFileSync(metadataPath, "utf8")) as SnapshotMetadata;
    return { metadata, chunks: metadata.chunks.map((_hash, i) => readFileSync(join(kept, `${restoredTxs}-${i}.chunk`))) };
  }
  const snapshot = await snapshotOf(dir);
  if (kept !== undefined) {
    mkdirSync(kept, { recursive: true });
    snapshot.chunks.forEach((chunk, i) => writeFileSync(join(kept, `${restoredTxs}-${i}.chunk`), chunk));
    writeFileSync(metadataPath, JSON.stringify(snapshot.metadata));
  }
  return snapshot;
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

async function restoreOnce(dir: string, snapshot: { metadata: SnapshotMetadata; chunks: Buffer[] }, round: number, verifyMicros: number): Promise<string> {
  const cache = targetCacheMb === undefined ? {} : { cacheSizeBytes: Number(targetCacheMb) * 2 ** 20 };
  const target = await openLedger(join(dir, `target-${round}-${Date.now()}.sqlite`), { ...asANode, ...cache });
  try {
    let started = performance.now();
    let cpu = process.cpuUsage();
    const verifier = await SnapshotVerifier.start(snapshot.metadata, snapshot.metadata.app_hash);
    for (const chunk of snapshot.chunks) if (verifier.chunk(chunk) !== null) throw new Error("the snapshot does not verify");
    if (verifier.finish() !== null) throw new Error("the snapshot does not verify");
    const first = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
    const headers: SnapshotHeaders = { store: target.store, onRefused: () => undefined };
    started = performance.now();
    cpu = process.cpuUsage();
    await restoreSnapshot(target.ledger, snapshot.metadata, (async function* () { yield* snapshot.chunks; })(), headers);
    const second = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
    const pass = (p: { seconds: number; cpu: number }): string => {
      const micros = (p.cpu * 1e6) / restoredTxs;
      return `${p.seconds.toFixed(2)} s (${fmt(restoredTxs / p.seconds)} tx/s), CPU ${micros.toFixed(1)} µs/tx = ${(micros / verifyMicros).toFixed(2)} raw verifies`;
    };
    return `round ${round + 1}: first pass ${pass(first)}; second pass ${pass(second)}`;
  } finally {
    await target.close();
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-restore-"));
  try {
    const snapshot = await keptSnapshotOf(dir, process.env["LEDGERD_BENCH_RESTORE_SNAPSHOT"]);
    const cache = targetCacheMb === undefined ? "" : `, a ${targetCacheMb} MiB page cache`;
    console.log(`a snapshot of ${fmt(restoredTxs)} CREATEs in ${snapshot.metadata.height} blocks, ${snapshot.chunks.length} chunks; restored into SQLite (one bulk load, the store opened as a node's${cache}):`);
    for (let round = 0; round < rounds; round++) {
      const verifyMicros = rawVerifyCpuMicros();
      console.log(`(one raw verify: ${verifyMicros.toFixed(1)} µs CPU)`);
      console.log(await restoreOnce(dir, snapshot, round, verifyMicros));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
