// Issue #15: what the ledger commitment costs and how fast a proof is served.
// 1. Committed tx/s through the solo engine (pre-signed CREATEs, no HTTP), a chain with
//    BigchainDB's app hash against one with the commitment v1, alternated in one run (A B A B):
//    goal, v1 at least 0.97 of BigchainDB's rate (the commitment costs at most 3%).
// 2. GET /api/v1/proofs/transactions/{id} through the HTTP app (inject, no socket) at 1,000,000
//    committed transactions, random ids: p50 and p99, goal p99 at most 10 ms. Two shapes:
//    blocks of 2,000 (the engine's largest: big block trees) and of 10 (a big history tree).
// 3. Issue #18: a node hash (65 bytes in three parts) with node:crypto, as the node makes it, and
//    with @noble/hashes, as a browser does, alternated: µs per hash and the ratio.
// LEDGERD_BENCH_QUICK=1 makes 100,000 instead of 1,000,000.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { Broadcaster } from "../src/engine/broadcaster.js";
import { SoloEngine } from "../src/engine/solo/soloEngine.js";
import { buildHttpApp } from "../src/http/httpApp.js";
import { ChainCommitment } from "../src/ledger/commitment.js";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import type { CommitmentVersion } from "../src/proofs/commitment.js";
import { sha256, sha256Implementation, sha256Js } from "../src/proofs/sha256.js";
import { verifyTransactionProof, type TransactionProof } from "../src/proofs/verify.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { committedRate } from "./engine.bench.js";
import { fmt, median, rate, requestLatencies, signCreates, inVerifies, ofVerifyRate } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const proofLedgerTxs = quick ? 100_000 : 1_000_000;
const engineTxs = 10_000;
const rounds = 3;

/** Committed tx/s of `txs` posted at once to a new solo node whose chain uses `rule`. */
async function engineRate(dir: string, rule: CommitmentVersion, txs: readonly Buffer[]): Promise<number> {
  const path = join(dir, `${rule}-${randomBytes(4).toString("hex")}.sqlite`);
  const store = SqliteStore.open({ path });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: availableParallelism() });
  const ledger = await LedgerApp.open({}, { store, pool });
  const validator = { publicKey: "00".repeat(32), power: 10 };
  await ledger.initChain("bench", [validator], rule);
  const engine = await SoloEngine.start({ blockIntervalMs: 20, txsPerBlockMax: 2_000 }, { ledger, validator });
  const rate = await committedRate(engine, ledger, txs);
  await engine.stop();
  await pool.close();
  await store.close();
  rmSync(path, { force: true });
  return rate;
}

/** A v1 ledger of `count` synthetic CREATEs in blocks of `perBlock`, through the ledger's commitment. */
export async function fillV1(path: string, count: number, perBlock: number): Promise<{ store: SqliteStore; ids: string[] }> {
  const store = SqliteStore.open({ path });
  await store.initChain("proof-bench", [{ publicKey: "00".repeat(32), power: 10 }]);
  const commitment = await ChainCommitment.open(store, await store.getChainState());
  const json = JSON.stringify({ filler: "x".repeat(600) });
  const ids: string[] = [];
  for (let height = 1; ids.length < count; height++) {
    const txs: CommittedTx[] = [];
    for (let i = 0; i < perBlock && ids.length + txs.length < count; i++) {
      const id = randomBytes(32).toString("hex");
      txs.push({
        id, operation: "CREATE", assetId: id, json, assetData: null, metadata: null,
        outputs: [{ outputIndex: 0, amount: 1n, conditionUri: "ni:///sha-256;x?fpt=ed25519-sha-256&cost=131072", publicKeys: [randomBytes(32).toString("base64url")] }],
        spends: [],
      });
    }
    const staged = commitment.next(height, txs.map((tx) => tx.id));
    await store.commitBlock({ height, appHash: staged.appHash, txs, history: staged.history! });
    commitment.advance(staged);
    ids.push(...txs.map((tx) => tx.id));
  }
  return { store, ids };
}

const noBroadcasts = { broadcast: () => Promise.reject(new Error("no posts in this benchmark")) } as unknown as Broadcaster;

async function proofLatency(dir: string, perBlock: number): Promise<void> {
  const started = performance.now();
  const { store, ids } = await fillV1(join(dir, `proofs-${perBlock}.sqlite`), proofLedgerTxs, perBlock);
  const head = await store.getChainState();
  console.log(`filled ${fmt(proofLedgerTxs)} transactions in blocks of ${fmt(perBlock)} (${fmt(head.historySize)} history leaves) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const app = await buildHttpApp({}, { broadcaster: noBroadcasts, store });
  const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
  // One answer checked: the benchmark measures proofs that verify.
  const sample = await app.inject({ method: "GET", url: `/api/v1/proofs/transactions/${ids[0]}` });
  if (!verifyTransactionProof(JSON.parse(sample.body) as TransactionProof).ok) throw new Error("a proof did not verify");
  await requestLatencies(`proof at ${fmt(proofLedgerTxs)}, blocks of ${fmt(perBlock)}`, 3_000, () => app.inject({ method: "GET", url: `/api/v1/proofs/transactions/${pick()}` }), "p99 <= 10 ms");
  await app.close();
  await store.close();
}

/** µs per node hash, node:crypto against noble, alternated over `rounds`. */
function nodeHashes(): void {
  const prefix = Uint8Array.of(0x01);
  const [left, right] = [randomBytes(32), randomBytes(32)];
  const us: Record<"node" | "js", number[]> = { node: [], js: [] };
  for (let round = 0; round < rounds; round++) {
    us.node.push(1e6 / rate(1, () => sha256(prefix, left, right)));
    us.js.push(1e6 / rate(1, () => sha256Js(prefix, left, right)));
  }
  const [node, js] = [median(us.node), median(us.js)];
  console.log(`node hash, µs, median of ${rounds}: ${sha256Implementation} ${node.toFixed(2)} ${inVerifies(node / 1000)}, @noble/hashes ${js.toFixed(2)}; ratio ${(node / js).toFixed(2)}`);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-proofs-"));
  try {
    nodeHashes();
    const txs = signCreates(engineTxs, "proofBench");
    const rates: Record<CommitmentVersion, number[]> = { bigchaindb: [], v1: [] };
    for (let round = 0; round < rounds; round++) {
      for (const rule of ["bigchaindb", "v1"] as const) rates[rule].push(await engineRate(dir, rule, txs));
    }
    const [before, after] = [median(rates.bigchaindb), median(rates.v1)];
    console.log(`committed CREATE tx/s, median of ${rounds}: BigchainDB's app hash ${fmt(before)}, commitment v1 ${fmt(after)} ${ofVerifyRate(after)}`);
    console.log(`ratio v1 / BigchainDB's: ${(after / before).toFixed(3)} (goal >= 0.97); rounds ${rates.bigchaindb.map(fmt).join(", ")} / ${rates.v1.map(fmt).join(", ")}`);
    await proofLatency(dir, 2_000);
    await proofLatency(dir, 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
