// Store benchmark: commitBlock throughput and read latencies of each backend (SQLite, and
// PostgreSQL on a server started for the run; LEDGERD_BENCH_BACKENDS=sqlite or =postgres for
// one), at an empty store and after the store holds 1,000,000 transactions
// (LEDGERD_BENCH_QUICK=1: 100,000). The ratio of the two backends' commit rates ends the run.
//
// The node's target is 7,000 committed tx/s end to end, and 90% of that at 1M stored, so a
// block of 1,000 transactions must commit well under 40 ms at any size. Records are
// CREATE-shaped (asset data, metadata, one output, ~800 bytes of JSON like a BigchainDB v2.0
// CREATE) and TRANSFER-shaped (spending an earlier output). Synchronous = full, as deployed.

import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { PostgresStore } from "../src/store/postgres/postgresStore.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { durableServerSettings, startPostgres, type PostgresServer } from "../test/helpers/postgres.js";
import type { Store } from "../src/store/store.js";
import type { CommittedTx, OutputRef } from "../src/transaction/committed.js";
import { inVerifies, ofVerifyRate } from "./lib.js";
import { wholeOf } from "../test/helpers/wholeAnswers.js";

const blockTxs = 1_000;
const measuredBlocks = 30;
const fillBlockTxs = 10_000;
const hotKeyOutputs = 1_000;
/** A wallet's outputs: what most keys' reads look like, beside the hot key's thousand. */
const walletKeyOutputs = 10;

/** The backends this run measures (LEDGERD_BENCH_BACKENDS, default both). */
export function benchBackends(): ("sqlite" | "postgres")[] {
  const named = (process.env.LEDGERD_BENCH_BACKENDS ?? "sqlite,postgres").split(",");
  return (["sqlite", "postgres"] as const).filter((b) => named.includes(b));
}

/** A store of `backend` for a benchmark, and how to remove it after. */
export async function benchStore(backend: "sqlite" | "postgres", dir: string): Promise<BenchStore> {
  if (backend === "sqlite") {
    const path = join(dir, "bench.sqlite");
    const store = SqliteStore.open({ path });
    return { store, describe: "sqlite, synchronous=full", settle: async () => undefined, remove: () => undefined };
  }
  // A quarter of the machine's memory, as docs/postgres.md ("Tuning") advises, instead of
  // initdb's 128 MB: a broad search reads the pages of 10,000 matches spread over the text table.
  const sharedBuffers = `${Math.floor(totalmem() / 4 / 2 ** 20)}MB`;
  const server = await startPostgres({ ...durableServerSettings, shared_buffers: sharedBuffers });
  const url = await server.newDatabase();
  const store = await PostgresStore.open({ url });
  // After a bulk fill PostgreSQL's autovacuum would run under the measured reads (2 cores):
  // an operator's database is past that, so the fill is vacuumed and analysed first.
  return { store, describe: `postgres 15 on loopback, fsync on, synchronous_commit on, shared_buffers ${sharedBuffers}`, settle: () => vacuumAnalyze(url), remove: () => server.stop() };
}

/** `VACUUM (ANALYZE)` of the database at `url`: what autovacuum does to a bulk fill at its own pace. */
export async function vacuumAnalyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
  } finally {
    await client.end();
  }
}

/**
 * CPU time (ms) the PostgreSQL server's processes have used so far (the postmaster and its
 * children, living and ended, from /proc, as the kernel counts it in clock ticks of 10 ms): the node's own
 * process.cpuUsage() misses the server's share of a commit.
 */
export function postgresCpuMs(server: PostgresServer): number {
  const postmaster = Number(readFileSync(join(dirname(server.log), "data", "postmaster.pid"), "utf8").split("\n")[0]);
  let ticks = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // a process that ended meanwhile
    }
    // After the command's closing parenthesis: state, ppid, ... utime (12th), stime (13th).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(name) === postmaster || Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    // The children that ended (autovacuum workers, closed connections): counted in the
    // postmaster's cutime and cstime once it has waited for them, gone from /proc.
    if (Number(name) === postmaster) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks * 10;
}

export interface BenchStore {
  readonly store: Store;
  readonly describe: string;
  /** What the backend does after a bulk fill before it serves (PostgreSQL: VACUUM ANALYZE). */
  settle(): Promise<void>;
  remove(): void;
}

export async function run(): Promise<void> {
  const rates = new Map<string, number>();
  for (const backend of benchBackends()) rates.set(backend, await runOn(backend));
  const [sqlite, postgres] = [rates.get("sqlite"), rates.get("postgres")];
  if (sqlite !== undefined && postgres !== undefined) {
    // The goal (0.7) is of committed tx/s through the engine, where signature checks
    // share the cost (bench/engine.bench.ts); this is the stores alone.
    console.log(`commit rate postgres / sqlite, the stores alone, CREATE and TRANSFER blocks at the fill: ${(postgres / sqlite).toFixed(2)}`);
  }
}

/** The whole benchmark on one backend; its commit rate at the fill (CREATE and TRANSFER blocks). */
async function runOn(backend: "sqlite" | "postgres"): Promise<number> {
  const quick = process.env.LEDGERD_BENCH_QUICK === "1";
  const fillTotal = quick ? 100_000 : 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-store-bench-"));
  const opened = await benchStore(backend, dir);
  const store = opened.store;
  const chain = new Chain(store, fillTotal);
  try {
    console.log(`\nstore bench: ${opened.describe}, blocks of ${blockTxs}, fill ${fillTotal}`);
    await chain.measure("CREATE blocks, empty store", () => chain.creates(blockTxs));
    await chain.measure("TRANSFER blocks, empty store", () => chain.transfers(blockTxs));

    const fillStart = performance.now();
    while (chain.created < fillTotal) {
      await chain.commit(chain.creates(Math.min(fillBlockTxs, fillTotal - chain.created)));
    }
    const fillSeconds = (performance.now() - fillStart) / 1000;
    console.log(
      `fill: ${chain.created} records in ${fillSeconds.toFixed(1)} s ` +
        `(${Math.round(chain.created / fillSeconds)} tx/s in blocks of ${fillBlockTxs}), ${((await opened.store.sizeBytes()) / 2 ** 20).toFixed(0)} MiB on disk`,
    );
    const settleStart = performance.now();
    await opened.settle();
    console.log(`settled after the fill in ${((performance.now() - settleStart) / 1000).toFixed(1)} s`);

    // The hashed indexes merge one slice per commit (deferredIndex.ts): after a fill in big
    // blocks they hold a backlog, so let them settle into the steady state of 1,000-tx blocks.
    const settle = () => chain.creates(blockTxs);
    await chain.measure("CREATE blocks, settling after the fill", settle, 64);
    const creates = await chain.measure(`CREATE blocks at ${chain.created}`, () => chain.creates(blockTxs));
    const transfers = await chain.measure(`TRANSFER blocks at ${chain.created}`, () => chain.transfers(blockTxs));
    await readLatencies(store, chain);
    return 2 / (1 / creates + 1 / transfers);
  } finally {
    await store.close();
    opened.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readLatencies(store: Store, chain: Chain): Promise<void> {
  const n = chain.created;
  const random = (k: number) => Math.floor(pseudoRandom(k) * n);
  await latency("getTransaction", 10_000, (i) => store.getTransaction(txId(random(i))));
  await latency("getOutputs (1 ref)", 10_000, (i) =>
    store.getOutputs([{ transactionId: txId(random(i)), outputIndex: 0 }]),
  );
  const wallet = await wholeOf(store).getOutputsByPublicKey(walletKey);
  await latency(`getOutputsByPublicKey (${wallet.length} outputs)`, 10_000, () => wholeOf(store).getOutputsByPublicKey(walletKey));
  const hot = await wholeOf(store).getOutputsByPublicKey(hotKey);
  await latency(`getOutputsByPublicKey (${hot.length} outputs)`, 200, () =>
    wholeOf(store).getOutputsByPublicKey(hotKey),
  );
  await latency("getOutputsByPublicKey unspent", 200, () =>
    wholeOf(store).getOutputsByPublicKey(hotKey, false),
  );
  // Three kinds of search: one hit, 1% of the assets (limit 10), every asset (limit 10).
  await latency("searchAssets, 1 hit", 1_000, (i) => wholeOf(store).searchAssets(`s${random(i)}`, 0));
  // Every 100th asset has kindK (createRecord); counted, not searched: a search for all of
  // them is refused past database.search_ranked_matches_max (SearchTooBroad).
  // 200 calls, each of the 100 words twice: a p99 of 20 calls was their slowest one alone.
  const kindHits = Math.ceil(n / 100);
  await latency(`searchAssets, ${kindHits} hits, limit 10`, 200, (i) =>
    wholeOf(store).searchAssets(`kind${i % 100}`, 10),
  );
  await latency(`searchAssets, ${n} hits, limit 10`, 3, () => wholeOf(store).searchAssets("bench", 10));
}

async function latency(name: string, calls: number, call: (i: number) => Promise<unknown>) {
  const ms: number[] = [];
  // The benchmark's own process holds the fill's bookkeeping: its garbage collector's pauses
  // land in the measured calls, so they are counted beside the figures.
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => pauses.push(...list.getEntries().map((entry) => entry.duration)));
  gc.observe({ entryTypes: ["gc"] });
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call(i);
    ms.push(performance.now() - start);
  }
  gc.disconnect();
  ms.sort((a, b) => a - b);
  const at = (q: number) => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0);
  console.log(
    `${name.padEnd(44)} p50 ${at(0.5).toFixed(3)} ms  p99 ${at(0.99).toFixed(3)} ms ${inVerifies(at(0.99))}  ` +
      `max ${(ms[ms.length - 1] ?? 0).toFixed(3)} ms  (${calls} calls; gc ${pauses.length} pauses, ` +
      `longest ${Math.max(0, ...pauses).toFixed(1)} ms)`,
  );
}

/** Commits blocks and remembers which CREATE outputs are still unspent. */
export class Chain {
  height = 0;
  created = 0;
  /** CREATE records are 0..created-1; these have been spent. */
  readonly #spent = new Set<number>();
  #nextSpend = 0;
  #transfers = 0;
  readonly #store: Store;
  readonly #hotEvery: number;
  readonly #walletEvery: number;

  constructor(store: Store, fillTotal: number) {
    this.#store = store;
    this.#hotEvery = Math.floor(fillTotal / hotKeyOutputs);
    this.#walletEvery = Math.floor(fillTotal / walletKeyOutputs);
  }

  creates(count: number): CommittedTx[] {
    const txs: CommittedTx[] = [];
    for (let i = 0; i < count; i++) {
      const n = this.created++;
      const key = n % this.#hotEvery === 0 ? hotKey : n % this.#walletEvery === 1 ? walletKey : keyOf(`c${n}`);
      txs.push(createRecord(n, key));
    }
    return txs;
  }

  /** TRANSFERs of the oldest unspent CREATE outputs, so they reach back through the store. */
  transfers(count: number): CommittedTx[] {
    const txs: CommittedTx[] = [];
    for (let i = 0; i < count; i++) {
      // Stride through the stored records so spends touch pages all over the outputs table.
      let n = (this.#nextSpend++ * 7919) % this.created;
      while (this.#spent.has(n)) n = (this.#nextSpend++ * 7919) % this.created;
      this.#spent.add(n);
      txs.push(transferRecord(this.#transfers++, { transactionId: txId(n), outputIndex: 0 }));
    }
    return txs;
  }

  async commit(txs: CommittedTx[]): Promise<void> {
    this.height++;
    await this.#store.commitBlock({ height: this.height, appHash: txId(-this.height), txs });
  }

  /** Commits `blocks` blocks of `make()` and prints their figures; the committed tx/s. */
  async measure(name: string, make: () => CommittedTx[], blocks = measuredBlocks): Promise<number> {
    const ms: number[] = [];
    let cpuMicros = 0; // CPU time of this process: less sensitive to a busy machine than wall time
    for (let b = 0; b < blocks; b++) {
      const txs = make(); // built outside the timed part: the store is measured, not the fixture
      const cpu = process.cpuUsage();
      const start = performance.now();
      await this.commit(txs);
      ms.push(performance.now() - start);
      const used = process.cpuUsage(cpu);
      cpuMicros += used.user + used.system;
    }
    const total = ms.reduce((a, b) => a + b, 0);
    ms.sort((a, b) => a - b);
    const rate = (blocks * blockTxs * 1000) / total;
    console.log(
      `${name.padEnd(44)} ${Math.round((blocks * blockTxs * 1000) / total)} tx/s ${ofVerifyRate((blocks * blockTxs * 1000) / total)}  ` +
        `block mean ${(total / blocks).toFixed(1)} ms  ` +
        `p50 ${(ms[blocks >> 1] ?? 0).toFixed(1)} ms  ` +
        `max ${(ms[blocks - 1] ?? 0).toFixed(1)} ms  ` +
        `cpu ${(cpuMicros / 1000 / blocks).toFixed(1)} ms/block`,
    );
    return rate;
  }
}

const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const hotKey = keyOf("hot");
const walletKey = keyOf("wallet");
const fulfillment = `pGSAI${"A".repeat(43)}gUD${"B".repeat(84)}`;

function createRecord(n: number, key: string): CommittedTx {
  const id = txId(n);
  const data = `{"kind":"kind${n % 100}","name":"bench asset ${n}","serial":"s${n}"}`;
  const metadata = `{"batch":"${Math.floor(n / 1000)}","note":"made for the store benchmark"}`;
  const json =
    `{"asset":{"data":${data}},"id":"${id}","inputs":[{"fulfillment":"${fulfillment}",` +
    `"fulfills":null,"owners_before":["${key}"]}],"metadata":${metadata},"operation":"CREATE",` +
    `"outputs":[${outputJson(key, id)}],"version":"2.0"}`;
  return {
    id,
    operation: "CREATE",
    assetId: id,
    json,
    assetData: data,
    metadata,
    outputs: [{ outputIndex: 0, amount: 1n, conditionUri: uriOf(id), publicKeys: [key] }],
    spends: [],
  };
}

function transferRecord(t: number, spend: OutputRef): CommittedTx {
  const id = txId(-1_000_000_000 - t);
  const key = keyOf(`t${t}`);
  const metadata = `{"note":"transfer ${t}"}`;
  const json =
    `{"asset":{"id":"${spend.transactionId}"},"id":"${id}","inputs":[{"fulfillment":` +
    `"${fulfillment}","fulfills":{"output_index":0,"transaction_id":"${spend.transactionId}"},` +
    `"owners_before":["${keyOf("x")}"]}],"metadata":${metadata},"operation":"TRANSFER",` +
    `"outputs":[${outputJson(key, id)}],"version":"2.0"}`;
  return {
    id,
    operation: "TRANSFER",
    assetId: spend.transactionId,
    json,
    assetData: null,
    metadata,
    outputs: [{ outputIndex: 0, amount: 1n, conditionUri: uriOf(id), publicKeys: [key] }],
    spends: [spend],
  };
}

function outputJson(key: string, id: string): string {
  return (
    `{"amount":"1","condition":{"details":{"public_key":"${key}","type":"ed25519-sha-256"},` +
    `"uri":"${uriOf(id)}"},"public_keys":["${key}"]}`
  );
}

function uriOf(id: string): string {
  const fingerprint = Buffer.from(id, "hex").toString("base64url");
  return `ni:///sha-256;${fingerprint}?fpt=ed25519-sha-256&cost=131072`;
}

function txId(n: number): string {
  return createHash("sha256").update(`bench:${n}`).digest("hex");
}


function keyOf(label: string): string {
  const bytes = createHash("sha512").update(label).digest();
  let out = "";
  for (let i = 0; i < 44; i++) out += base58[(bytes[i] as number) % 58];
  return out;
}

/** A fixed sequence in [0, 1), so runs are comparable. */
function pseudoRandom(k: number): number {
  const x = Math.sin(k * 12.9898 + 78.233) * 43758.5453;
  return x - Math.floor(x);
}

