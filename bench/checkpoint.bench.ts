// Issue #40: what signed checkpoints and tiles cost (docs/transparency.md).
// 1. One checkpoint signed (a size not signed before: the root read from the store, the note
//    signed with Ed25519 by node:crypto): µs each, and the cached answer for a size signed before.
// 2. The engine benchmark's load (pre-signed CREATEs, solo engine, blocks of up to 2,000, 20 ms):
//    committed tx/s and blocks/s without checkpoints and with one signed after every block (the
//    worst case: a client asking after each block), alternated A B A B in one run. The cost is
//    signing µs × blocks/s of one core's time; goal, at most 2 % of committed tx/s.
// 3. Tiles served per second through the HTTP app (inject, no socket) from a history of 70,000
//    blocks: full level-0 hash tiles and full entry bundles, random indexes.
// 4. The witness: POST /api/v1/witness/add-checkpoint through the HTTP app (inject), each
//    request one leaf more than the last with its consistency proof, the heads in a file synced
//    before each answer: p50 and p99.
// LEDGERD_BENCH_QUICK=1 makes fewer of each.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { Broadcaster } from "../src/engine/broadcaster.js";
import { SoloEngine } from "../src/engine/solo/soloEngine.js";
import { buildHttpApp } from "../src/http/httpApp.js";
import { CheckpointNotary } from "../src/ledger/checkpoints.js";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { checkpointSignerOf } from "../src/node/checkpointSigner.js";
import { Witness } from "../src/ledger/witness.js";
import { fileWitnessState } from "../src/node/witnessService.js";
import { checkpointBody } from "../src/proofs/checkpoint.js";
import { toBase64 } from "../src/proofs/encoding.js";
import { consistencyPath, leafHash, leafNodes, rangeRoot } from "../src/proofs/merkle.js";
import { noteKeyId, signedNoteOf } from "../src/proofs/signedNote.js";
import { tilePath } from "../src/proofs/tiles.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { makeKeypair } from "../src/transaction/builders/makeKeypair.js";
import { committedRate } from "./engine.bench.js";
import { fmt, median, requestLatencies, signCreates } from "./lib.js";
import { fillV1 } from "./proofs.bench.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const engineTxs = quick ? 6_000 : 20_000;
const rounds = quick ? 2 : 3;
const tileLedgerBlocks = quick ? 20_000 : 70_000;
const tileRequests = quick ? 1_000 : 5_000;
const witnessRequests = quick ? 300 : 1_000;

const notaryOf = () => new CheckpointNotary(checkpointSignerOf(makeKeypair(randomBytes(32)), "bench.example/log"));
const noBroadcasts = { broadcast: () => Promise.reject(new Error("no posts in this benchmark")) } as unknown as Broadcaster;

/** Committed tx/s and blocks/s of the engine load, with a checkpoint signed after each block or not. */
async function engineRun(dir: string, txs: readonly Buffer[], signEachBlock: boolean): Promise<{ txRate: number; blockRate: number; signed: number }> {
  const store = SqliteStore.open({ path: join(dir, `engine-${randomBytes(4).toString("hex")}.sqlite`) });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: availableParallelism() });
  const ledger = await LedgerApp.open({}, { store, pool });
  const validator = { publicKey: "00".repeat(32), power: 10 };
  await ledger.initChain("bench", [validator], "v1");
  const engine = await SoloEngine.start({ blockIntervalMs: 20, txsPerBlockMax: 2_000 }, { ledger, validator });
  const notary = notaryOf();
  let blocks = 0;
  let signed = 0;
  ledger.onCommitted((block) => {
    blocks++;
    if (!signEachBlock || block.txs.length === 0) return;
    void store.getChainState().then(async (state) => {
      await notary.at(store, state.historySize, state.historySize, state.height);
      signed++;
    });
  });
  const started = performance.now();
  const txRate = await committedRate(engine, ledger, txs);
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  await pool.close();
  await store.close();
  return { txRate, blockRate: blocks / seconds, signed };
}

/** µs per checkpoint of a new size (root read and signed), and per cached one. */
async function signingCost(store: SqliteStore): Promise<{ fresh: number; cached: number }> {
  const notary = notaryOf();
  const size = (await store.getChainState()).historySize;
  const count = Math.min(2_000, size);
  let t0 = performance.now();
  // Sizes of blocks of one transaction: the height is the size.
  for (let s = size - count + 1; s <= size; s++) await notary.at(store, s, size, s);
  const fresh = ((performance.now() - t0) * 1000) / count;
  t0 = performance.now();
  for (let i = 0; i < count; i++) await notary.at(store, size, size);
  const cached = ((performance.now() - t0) * 1000) / count;
  return { fresh, cached };
}

async function tilesPerSecond(store: SqliteStore, level: number | "entries"): Promise<number> {
  const app = await buildHttpApp({}, { broadcaster: noBroadcasts, store });
  const full = Math.floor((await store.getChainState()).historySize / 256);
  const t0 = performance.now();
  for (let n = 0; n < tileRequests; n++) {
    const url = `/api/v1/tlog/${tilePath({ level, index: Math.floor(Math.random() * full), width: 256 })}`;
    const response = await app.inject({ method: "GET", url });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  }
  const perSecond = tileRequests / ((performance.now() - t0) / 1000);
  await app.close();
  return perSecond;
}

/** p50 and p99 of add-checkpoint requests, each extending the last cosigned tree by one leaf. */
async function witnessLatency(dir: string, store: SqliteStore): Promise<void> {
  const log = checkpointSignerOf(makeKeypair(randomBytes(32)), "bench.example/witnessed");
  const cosigner = checkpointSignerOf(makeKeypair(randomBytes(32)), "bench.example/witness");
  const witness = new Witness([log], { cosigner, state: fileWitnessState(join(dir, "witness.json")), now: () => Date.now() });
  const app = await buildHttpApp({}, { broadcaster: noBroadcasts, store, witness });
  const leaves = Array.from({ length: witnessRequests + 1 }, (_, i) => leafHash(new TextEncoder().encode(`leaf ${i}`)));
  const nodes = leafNodes(leaves);
  const bodies = Array.from({ length: witnessRequests }, (_, i) => {
    const size = i + 1;
    const body = checkpointBody({ origin: log.name, size, root: rangeRoot(nodes, 0, size) });
    const note = signedNoteOf(body, [{ name: log.name, keyId: noteKeyId(log), signature: log.sign(new TextEncoder().encode(body)) }]);
    const proof = i === 0 ? [] : consistencyPath(nodes, i, size);
    return `old ${i}\n${proof.map((h) => `${toBase64(h)}\n`).join("")}\n${note}`;
  });
  await requestLatencies("witness add-checkpoint", witnessRequests, (n) => app.inject({ method: "POST", url: "/api/v1/witness/add-checkpoint", payload: bodies[n]! }));
  await app.close();
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-checkpoint-"));
  try {
    const { store } = await fillV1(join(dir, "tiles.sqlite"), tileLedgerBlocks, 1);
    const cost = await signingCost(store);
    console.log(`checkpoint of a new size: ${cost.fresh.toFixed(1)} µs (root read + Ed25519 signature); of a size signed before: ${cost.cached.toFixed(1)} µs`);
    const txs = signCreates(engineTxs, "checkpoint-bench");
    const runs: Record<"plain" | "signed", { txRate: number; blockRate: number; signed: number }[]> = { plain: [], signed: [] };
    for (let round = 0; round < rounds; round++) {
      runs.plain.push(await engineRun(dir, txs, false));
      runs.signed.push(await engineRun(dir, txs, true));
    }
    const plain = median(runs.plain.map((r) => r.txRate));
    const signed = median(runs.signed.map((r) => r.txRate));
    const blockRate = median(runs.plain.map((r) => r.blockRate));
    const share = (cost.fresh * blockRate) / 1e6;
    console.log(`engine load (${fmt(engineTxs)} CREATEs, median of ${rounds}): ${fmt(plain)} committed tx/s, ${blockRate.toFixed(1)} blocks/s`);
    console.log(`with a checkpoint signed after every block: ${fmt(signed)} committed tx/s (${(signed / plain).toFixed(3)} of without; ${runs.signed.map((r) => r.signed).join(", ")} signed)`);
    console.log(`signing cost: ${cost.fresh.toFixed(1)} µs × ${blockRate.toFixed(1)} blocks/s = ${(share * 100).toFixed(3)} % of one core (goal: at most 2 % of committed tx/s)`);
    const hashTiles = await tilesPerSecond(store, 0);
    const bundles = await tilesPerSecond(store, "entries");
    console.log(`tiles served (inject, ${fmt(tileLedgerBlocks)} blocks): full hash tiles ${fmt(hashTiles)}/s, full entry bundles ${fmt(bundles)}/s (${tileRequests} each)`);
    await witnessLatency(dir, store);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
