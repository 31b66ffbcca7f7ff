// Issue #3: committed transactions per second through the solo engine (no HTTP), pre-signed
// 1-input CREATEs and TRANSFERs, at an empty ledger and at 1,000,000 committed transactions,
// with the raw Ed25519 verify rate of one core from the same run. Goal: at least 7,000 tx/s on
// 2 cores, and at 1M at least 90% of the empty-ledger rate.
// LEDGERD_BENCH_QUICK=1 fills 100,000 instead of 1,000,000. Each backend in turn (SQLite, then
// PostgreSQL on a server started for the run; LEDGERD_BENCH_BACKENDS names one), with the ratio
// of their committed rates at the end (issue #42: PostgreSQL at least 0.9 of SQLite), and of the CPU
// each spends per committed transaction (this process and the PostgreSQL server).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { SoloEngine } from "../src/engine/solo/soloEngine.js";
import { ChainCommitment } from "../src/ledger/commitment.js";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { PostgresStore } from "../src/store/postgres/postgresStore.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import type { Store } from "../src/store/store.js";
import { durableServerSettings, startPostgres, type PostgresServer } from "../test/helpers/postgres.js";
import { benchBackends, postgresCpuMs, vacuumAnalyze } from "./store.bench.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import type { Keypair } from "../src/transaction/builders/makeKeypair.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { makeTransfer } from "../src/transaction/builders/makeTransfer.js";
import { signTx } from "../src/transaction/builders/signTx.js";
import type { JsonObject } from "../src/json/jsonValue.js";
import { fmt, rawVerifyCpuMicros, rawVerifyRate, ofVerifyRate } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const fillTxs = quick ? 100_000 : 1_000_000;
const batchTxs = 20_000;

interface Signed {
  readonly creates: Buffer[];
  readonly transfers: Buffer[];
}

function sign(count: number): Signed {
  const creates: Buffer[] = [];
  const transfers: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const owner: Keypair = makeRandomKeypair();
    const next: Keypair = makeRandomKeypair();
    const create = signTx(
      makeCreate({ issuers: [owner.publicKey], outputs: [{ publicKeys: [owner.publicKey], amount: 1n }], assetData: { bench: i }, metadata: null }),
      [owner],
    );
    const transfer = signTx(
      makeTransfer({ spends: [{ tx: create, outputIndex: 0 }], outputs: [{ publicKeys: [next.publicKey], amount: 1n }], metadata: null }),
      [owner],
    );
    creates.push(Buffer.from(JSON.stringify(create)));
    transfers.push(Buffer.from(JSON.stringify(transfer)));
  }
  return { creates, transfers };
}

/** Posts every transaction at once (async mode) and returns committed tx/s. */
export async function committedRate(engine: SoloEngine, ledger: LedgerApp, txs: readonly Buffer[]): Promise<number> {
  let committed = 0;
  const done = new Promise<void>((resolve) => {
    ledger.onCommitted((block) => {
      committed += block.txs.length;
      if (committed >= txs.length) resolve();
    });
  });
  const start = performance.now();
  const answers = await Promise.allSettled(txs.map((bytes) => engine.broadcast(bytes, "async")));
  const refused = answers.filter((a) => a.status === "rejected");
  if (refused.length > 0) throw new Error(`${refused.length} refused: ${String((refused[0] as PromiseRejectedResult).reason)}`);
  await done;
  return txs.length / ((performance.now() - start) / 1000);
}

/** Fills the store with synthetic committed CREATEs (realistic sizes), in big blocks. */
async function fill(store: Store, count: number): Promise<void> {
  const json = JSON.stringify({ filler: "x".repeat(600) });
  const state = await store.getChainState();
  // The chain's own app hash rule, so that the ledger goes on from the filled history.
  const commitment = await ChainCommitment.open(store, state);
  let height = state.height;
  for (let done = 0; done < count; done += 10_000) {
    const txs: CommittedTx[] = [];
    for (let i = 0; i < 10_000; i++) {
      const id = randomBytes(32).toString("hex");
      txs.push({
        id, operation: "CREATE", assetId: id, json, assetData: `{"serial":${done + i}}`, metadata: null,
        outputs: [{ outputIndex: 0, amount: 1n, conditionUri: "ni:///sha-256;x?fpt=ed25519-sha-256&cost=131072", publicKeys: [randomBytes(32).toString("base64url")] }],
        spends: [],
      });
    }
    height++;
    const staged = commitment.next(height, txs.map((tx) => tx.id));
    await store.commitBlock({ height, appHash: staged.appHash, txs, ...(staged.history === undefined ? {} : { history: staged.history }) });
    commitment.advance(staged);
  }
}

/**
 * CPU per committed transaction (ms) while `work` commits `count`: this process's threads and
 * PostgreSQL's server. On 2 shared cores a rate follows the other tenants' load; the CPU a
 * transaction costs each backend is what their ratio of rates comes to on an idle machine.
 */
async function cpuPerTx<T>(server: PostgresServer | null, count: number, work: () => Promise<T>): Promise<{ result: T; node: number; server: number }> {
  const node = process.cpuUsage();
  const before = server === null ? 0 : postgresCpuMs(server);
  const result = await work();
  const used = process.cpuUsage(node);
  return { result, node: (used.user + used.system) / 1000 / count, server: server === null ? 0 : (postgresCpuMs(server) - before) / count };
}

async function measure(open: () => Promise<Store>, server: PostgresServer | null, label: string, signed: Signed): Promise<{ create: number; transfer: number; cpuMs: number }> {
  const store = await open();
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: availableParallelism() });
  const ledger = await LedgerApp.open({}, { store, pool });
  const engine = await SoloEngine.start({ blockIntervalMs: 20, txsPerBlockMax: 2_000 }, { ledger, validator: { publicKey: "00".repeat(32), power: 10 } });
  const creates = await cpuPerTx(server, signed.creates.length, () => committedRate(engine, ledger, signed.creates));
  const transfers = await cpuPerTx(server, signed.transfers.length, () => committedRate(engine, ledger, signed.transfers));
  const [create, transfer] = [creates.result, transfers.result];
  console.log(`${label}: CREATE ${fmt(create)} committed tx/s ${ofVerifyRate(create)}, TRANSFER ${fmt(transfer)} committed tx/s ${ofVerifyRate(transfer)}`);
  // In raw verifies of CPU time, measured now: a rate's baseline is wall time, which a shared core stretches.
  const verifyMs = rawVerifyCpuMicros() / 1000;
  const cpu = (c: { node: number; server: number }) =>
    `${(c.node + c.server).toFixed(3)} ms (${((c.node + c.server) / verifyMs).toFixed(2)} raw verifies of CPU; server ${c.server.toFixed(3)} ms)`;
  console.log(`${label}: CPU per committed tx, CREATE ${cpu(creates)}, TRANSFER ${cpu(transfers)}`);
  await engine.stop();
  await pool.close();
  await store.close();
  const both = (c: { node: number; server: number }) => c.node + c.server;
  return { create, transfer, cpuMs: (both(creates) + both(transfers)) / 2 };
}

export async function run(): Promise<void> {
  const verify = rawVerifyRate(2);
  console.log(`raw Ed25519 verify, 1 core: ${fmt(verify)} /s; threads: ${availableParallelism()}`);
  const rates = new Map<string, { empty: number; full: number; cpuEmpty: number; cpuFull: number }>();
  for (const backend of benchBackends()) rates.set(backend, await runOn(backend));
  const [sqlite, postgres] = [rates.get("sqlite"), rates.get("postgres")];
  if (sqlite !== undefined && postgres !== undefined) {
    console.log(
      `committed tx/s postgres / sqlite: empty ${(postgres.empty / sqlite.empty).toFixed(2)}, ` +
        `at the fill ${(postgres.full / sqlite.full).toFixed(2)} (goal >= 0.9); ` +
        `CPU per committed tx sqlite / postgres: empty ${(sqlite.cpuEmpty / postgres.cpuEmpty).toFixed(2)}, at the fill ${(sqlite.cpuFull / postgres.cpuFull).toFixed(2)}`,
    );
  }
}

/** The benchmark on one backend: committed tx/s (CREATE and TRANSFER together) empty and at the fill. */
async function runOn(backend: "sqlite" | "postgres"): Promise<{ empty: number; full: number; cpuEmpty: number; cpuFull: number }> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-engine-"));
  const server = backend === "postgres" ? await startPostgres(durableServerSettings) : null;
  try {
    const url = server === null ? "" : await server.newDatabase();
    const path = join(dir, "ledger.sqlite");
    const open = async (): Promise<Store> => (server === null ? SqliteStore.open({ path }) : PostgresStore.open({ url }));
    console.log(`\n${backend}:`);
    const empty = await measure(open, server, "empty ledger", sign(batchTxs));
    const store = await open();
    const started = performance.now();
    await fill(store, fillTxs);
    console.log(`filled ${fmt(fillTxs)} committed transactions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await store.close();
    if (server !== null) {
      // Autovacuum would otherwise work through the fill's rows in the measured minute (2 cores),
      // charged to the transactions measured; its cost a filled transaction is printed instead.
      const before = postgresCpuMs(server);
      await vacuumAnalyze(url);
      console.log(`VACUUM (ANALYZE) of the fill: ${((1000 * (postgresCpuMs(server) - before)) / fillTxs).toFixed(1)} µs of the server's CPU a filled transaction`);
    }
    const full = await measure(open, server, `at ${fmt(fillTxs + 2 * batchTxs)} transactions`, sign(batchTxs));
    console.log(`ratio at fill / empty: CREATE ${(full.create / empty.create).toFixed(2)}, TRANSFER ${(full.transfer / empty.transfer).toFixed(2)}`);
    const both = (r: { create: number; transfer: number }) => 2 / (1 / r.create + 1 / r.transfer);
    return { empty: both(empty), full: both(full), cpuEmpty: empty.cpuMs, cpuFull: full.cpuMs };
  } finally {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
