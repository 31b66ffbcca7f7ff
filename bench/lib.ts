// Small helpers shared by the benchmarks.
import { createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from "node:crypto";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import type { Keypair } from "../src/transaction/builders/makeKeypair.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { signTx } from "../src/transaction/builders/signTx.js";
import { validator } from "../test/unit/store/fixtures.js";

/** Calls `fn` repeatedly for about `seconds` and returns calls per second. */
export function rate(seconds: number, fn: () => void, warmMs = 200): number {
  const warmEnd = performance.now() + warmMs;
  while (performance.now() < warmEnd) fn();
  let calls = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 64; i++) fn();
    calls += 64;
  }
  return calls / ((performance.now() - start) / 1000);
}

/**
 * Signatures the raw verify rate cycles through. OpenSSL's Ed25519 verify runs in variable time,
 * and one signature verified again and again lets the CPU learn its branches: measured here,
 * 60-61 µs per verify for one repeated signature, 63-64 µs for 512 distinct ones (the same with
 * one key or 512). Validation always meets new signatures, so the raw figure does too.
 */
const distinctSignatures = 512;

/** Raw node:crypto Ed25519 verifications per second on this thread, cached key objects. */
export function rawVerifyRate(seconds = 2, distinct = distinctSignatures): number {
  return rate(seconds, rawVerifier(distinct));
}

/**
 * CPU time (this process's, in µs) one raw verify takes, over about `seconds` of verifies: the
 * unit for a CPU-per-transaction figure. CPU time holds up under other processes' load far
 * better than a rate does (a loaded core verifies less per second, not less per CPU second).
 */
export function rawVerifyCpuMicros(seconds = 0.5, distinct = distinctSignatures): number {
  const verifyOne = rawVerifier(distinct);
  rate(0.05, verifyOne);
  const before = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  let calls = 0;
  for (; performance.now() < end; calls += 64) for (let i = 0; i < 64; i++) verifyOne();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / calls;
}

/**
 * The same-run baseline every benchmark's figures are printed beside: one core's raw Ed25519
 * verify rate, measured by bench/run.ts just before each benchmark (and again after). This
 * machine's speed moves ~2.4x from day to day, so a figure means something only in these units.
 */
let baselineVerifiesPerSecond: number | null = null;

export function setSameRunBaseline(rawVerifiesPerSecond: number): void {
  baselineVerifiesPerSecond = rawVerifiesPerSecond;
}

function baselineRate(): number {
  return (baselineVerifiesPerSecond ??= rawVerifyRate(1));
}

/** A duration in ms as the raw verifies one core does meanwhile: `(12.3 raw verifies)`. */
export function inVerifies(ms: number): string {
  const verifies = (ms / 1000) * baselineRate();
  return `(${verifies < 10 ? verifies.toFixed(2) : fmt(verifies)} raw verifies)`;
}

/** A rate (per second) as a share of one core's raw verify rate: `(0.48 x the raw verify rate)`. */
export function ofVerifyRate(perSecond: number): string {
  const share = perSecond / baselineRate();
  return `(${share < 10 ? share.toFixed(3) : fmt(share)} x the raw verify rate)`;
}

/** One raw verify per call, cycling through `distinct` pre-made signatures. */
export function rawVerifier(distinct = distinctSignatures): () => void {
  const triples = Array.from({ length: distinct }, () => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const message = randomBytes(32); // BigchainDB signs a 32-byte sha3-256 digest
    const key = createPublicKey({ key: publicKey.export({ format: "der", type: "spki" }), format: "der", type: "spki" });
    return { key, message, signature: sign(null, message, privateKey) };
  });
  let i = 0;
  return () => {
    const { key, message, signature } = triples[i++ % triples.length]!;
    if (!verify(null, message, key, signature)) throw new Error("verify failed");
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Runs `request(n)` `samples` times, one after another; each must answer 200. Prints and returns
 * p50 and p99 in ms, labelled `name`, beside the goal given.
 */
export async function requestLatencies(
  name: string,
  samples: number,
  request: (n: number) => Promise<{ statusCode: number; body: string }>,
  goal = "",
): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let n = 0; n < samples; n++) {
    const t0 = performance.now();
    const response = await request(n);
    times.push(performance.now() - t0);
    if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode} ${response.body}`);
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const p99 = percentile(times, 99);
  console.log(`${name}: p50 ${p50.toFixed(2)} ms ${inVerifies(p50)}, p99 ${p99.toFixed(2)} ms ${inVerifies(p99)} (${samples} requests${goal === "" ? "" : `, goal ${goal}`})`);
  return { p50, p99 };
}

/**
 * A new SQLite ledger at `path` for a store-level benchmark, its chain begun (one validator, the
 * `bigchaindb` commitment, so blocks need no app-hash rule): opened as the node's writer, but
 * without the checkpoint thread, which would share the cores with what is timed.
 */
export async function openBenchLedger(path: string, chainId: string): Promise<SqliteStore> {
  const store = SqliteStore.open({ path, access: "readers", checkpointIntervalMs: 0 });
  await store.initChain(chainId, [validator("a")], "bigchaindb");
  return store;
}

/**
 * `count` CREATEs, signed, as posted bodies; `tag` names their asset field. Each by a key of its
 * own, or all by `oneOwner` (its key object made once in the node; a random nonce in the asset
 * keeps their ids apart from another call's).
 */
export function signCreates(count: number, tag: string, oneOwner?: Keypair): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const owner = oneOwner ?? makeRandomKeypair();
    const assetData = oneOwner === undefined ? { [tag]: i } : { [tag]: i, nonce: randomBytes(6).toString("hex") };
    const tx = makeCreate({ issuers: [owner.publicKey], outputs: [{ publicKeys: [owner.publicKey], amount: 1n }], assetData, metadata: null });
    return Buffer.from(JSON.stringify(signTx(tx, [owner])));
  });
}
