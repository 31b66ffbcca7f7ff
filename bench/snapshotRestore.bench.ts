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
//
// What bounds state sync's gain over block sync, per transaction and in one run: the snapshot's
// ledger is built block by block with every signature checked (a block-syncing node's
// application work, CometBFT's own left out), and each round's store writes (the calls the
// second pass made to the store, recorded) are made again alone into an empty store: what a
// restore would still cost if preparing and executing its transactions cost nothing. The
// ceilings printed: in CPU, the replay over the first pass plus those writes; in clock time, the
// replay over the writes alone (all else counted free). A kept snapshot skips them.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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

/** A ledger on a new SQLite store at `path`; `store` is the one the ledger uses, as `wrap` made it. */
async function openLedger(path: string, options: Partial<SqliteStoreOptions> = {}, wrap = (opened: SqliteStore) => opened): Promise<{ store: SqliteStore; ledger: LedgerApp; close: () => Promise<void> }> {
  const opened = SqliteStore.open({ path, ...options });
  const store = wrap(opened);
  const pool = new PreparePool({ ...preparePoolOptionsDefault });
  const ledger = await LedgerApp.open({}, { store, pool });
  return { store, ledger, close: async () => { await pool.close(); await opened.close(); } };
}

interface Snapshot {
  readonly metadata: SnapshotMetadata;
  readonly chunks: Buffer[];
  /** Building the ledger block by block, signatures checked (not known of a kept snapshot). */
  readonly replay?: Pass;
}

/**
 * The snapshot of a ledger of `restoredTxs` CREATEs, its chunks in memory. The ledger is built as
 * a block-syncing node's is (opened as a node's, every block finalized and committed, every
 * signature checked); its CPU, the signing apart, is the replay's.
 */
async function snapshotOf(dir: string): Promise<Snapshot> {
  const source = await openLedger(join(dir, "source.sqlite"), asANode);
  await source.ledger.initChain("bench-restore", [{ publicKey: "ab".repeat(32), power: 10 }], "v1", { appVersion: 1n, ruleHeights: new Map() });
  let height = 0;
  let replay = { seconds: 0, cpu: 0 };
  for (let done = 0; done < restoredTxs; done += blockTxs) {
    const txs = signCreates(Math.min(blockTxs, restoredTxs - done), `restore-${done}`);
    const started = performance.now();
    const cpu = process.cpuUsage();
    await source.ledger.finalizeBlock(++height, txs);
    await source.ledger.commit();
    replay = { seconds: replay.seconds + (performance.now() - started) / 1000, cpu: replay.cpu + cpuSeconds(cpu) };
  }
  const chunks: Buffer[] = [];
  const metadata = await takeSnapshot(source.store, height, async (_index, chunk) => void chunks.push(chunk));
  await source.close();
  return { metadata, chunks, replay };
}

/** The snapshot kept in `kept` (LEDGERD_BENCH_RESTORE_SNAPSHOT) if one of `restoredTxs` is there, else made (and kept there). */
async function keptSnapshotOf(dir: string, kept: string | undefined): Promise<Snapshot> {
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

/** The store's methods that change it: what the second pass's writes are made of. */
const writeMethods = new Set(["initChain", "recordAppVersion", "beginBulkLoad", "commitBlock", "putSignedHeaders", "endBulkLoad"]);

interface WriteCall {
  readonly method: string;
  readonly args: unknown[];
}

/** `store`, with each call of a writing method recorded in `calls` before it is made. */
function recording(store: SqliteStore, calls: WriteCall[]): SqliteStore {
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (typeof key === "string" && writeMethods.has(key)) {
        return (...args: unknown[]) => {
          calls.push({ method: key, args });
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

interface Pass {
  readonly seconds: number;
  readonly cpu: number;
}

/** The recorded writes made again, alone, into an empty store opened as the restoring one was. */
async function writesAlone(path: string, calls: readonly WriteCall[], options: Partial<SqliteStoreOptions>, expected: { height: number; appHash: string }): Promise<Pass & { bytes: number }> {
  const store = SqliteStore.open({ path, ...options });
  let pass: Pass;
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (const call of calls) await (Reflect.get(store, call.method) as (...a: unknown[]) => Promise<unknown>).apply(store, call.args);
    pass = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
    const state = await store.getChainState();
    if (state.height !== expected.height || state.appHash !== expected.appHash) throw new Error(`the writes alone ended at ${state.height}, ${state.appHash}`);
  } finally {
    await store.close();
  }
  return { ...pass, bytes: statSync(path).size };
}

async function restoreOnce(dir: string, snapshot: Snapshot, round: number, verifyMicros: number): Promise<string> {
  const cache = targetCacheMb === undefined ? {} : { cacheSizeBytes: Number(targetCacheMb) * 2 ** 20 };
  const calls: WriteCall[] = [];
  const target = await openLedger(join(dir, `target-${round}-${Date.now()}.sqlite`), { ...asANode, ...cache }, (store) => recording(store, calls));
  let first: Pass;
  let second: Pass;
  try {
    let started = performance.now();
    let cpu = process.cpuUsage();
    const verifier = await SnapshotVerifier.start(snapshot.metadata, snapshot.metadata.app_hash);
    for (const chunk of snapshot.chunks) if (verifier.chunk(chunk) !== null) throw new Error("the snapshot does not verify");
    if (verifier.finish() !== null) throw new Error("the snapshot does not verify");
    first = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
    const headers: SnapshotHeaders = { store: target.store, onRefused: () => undefined };
    started = performance.now();
    cpu = process.cpuUsage();
    await restoreSnapshot(target.ledger, snapshot.metadata, (async function* () { yield* snapshot.chunks; })(), headers);
    second = { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
  } finally {
    await target.close();
  }
  const expected = { height: snapshot.metadata.height, appHash: snapshot.metadata.app_hash };
  const writes = await writesAlone(join(dir, `writes-${round}-${Date.now()}.sqlite`), calls, { ...asANode, ...cache }, expected);
  const micros = (cpu: number): number => (cpu * 1e6) / restoredTxs;
  const pass = (p: Pass): string => `${p.seconds.toFixed(2)} s (${fmt(restoredTxs / p.seconds)} tx/s), CPU ${micros(p.cpu).toFixed(1)} µs/tx = ${(micros(p.cpu) / verifyMicros).toFixed(2)} raw verifies`;
  const lines = [
    `round ${round + 1}: first pass ${pass(first)}; second pass ${pass(second)}`,
    `  the second pass's store writes alone: ${pass(writes)}; the file ${(writes.bytes / 2 ** 20).toFixed(1)} MiB`,
  ];
  const replay = snapshot.replay;
  if (replay !== undefined) {
    const cpuFloor = micros(first.cpu) + micros(writes.cpu);
    lines.push(`  ceiling of state sync over block sync in CPU: the replay's ${micros(replay.cpu).toFixed(1)} µs / (first pass + writes alone) ${cpuFloor.toFixed(1)} µs = ${(micros(replay.cpu) / cpuFloor).toFixed(1)}x`);
    lines.push(`  ceiling in clock time, the first pass left out: the replay's ${replay.seconds.toFixed(2)} s / the writes alone ${writes.seconds.toFixed(2)} s = ${(replay.seconds / writes.seconds).toFixed(1)}x`);
  }
  return lines.join("\n");
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-restore-"));
  try {
    const snapshot = await keptSnapshotOf(dir, process.env["LEDGERD_BENCH_RESTORE_SNAPSHOT"]);
    const cache = targetCacheMb === undefined ? "" : `, a ${targetCacheMb} MiB page cache`;
    const bytes = snapshot.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    console.log(`a snapshot of ${fmt(restoredTxs)} CREATEs in ${snapshot.metadata.height} blocks, ${snapshot.chunks.length} chunks (${(bytes / 2 ** 20).toFixed(1)} MiB); restored into SQLite (one bulk load, the store opened as a node's${cache}):`);
    const replay = snapshot.replay;
    if (replay !== undefined) {
      const micros = (replay.cpu * 1e6) / restoredTxs;
      console.log(`the ledger built block by block, every signature checked (a block-syncing node's application work, CometBFT's apart): ${replay.seconds.toFixed(2)} s (${fmt(restoredTxs / replay.seconds)} tx/s), CPU ${micros.toFixed(1)} µs/tx`);
    }
    for (let round = 0; round < rounds; round++) {
      const verifyMicros = rawVerifyCpuMicros();
      console.log(`(one raw verify: ${verifyMicros.toFixed(1)} µs CPU)`);
      console.log(await restoreOnce(dir, snapshot, round, verifyMicros));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
