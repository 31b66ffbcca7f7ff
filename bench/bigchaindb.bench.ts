// `npm run bench bigchaindb`: the same load on a real BigchainDB 2.x and on a ledgerd solo node
// in one run (issue 42, "Against BigchainDB itself"), alternating, with the ratios: CREATEs in
// `mode=commit` from many clients at once, CREATEs in `async` with many in flight until every
// one is committed, and reads of a key's outputs. BigchainDB's node is given by
// LEDGERD_BENCH_BIGCHAINDB_URL (skipped without it); both get the same signed bodies, made by
// ledgerd's builders (the official drivers' format). A BigchainDB node built as in
// docs/migrating-from-bigchaindb.md's tests runs on FerretDB, not MongoDB: say so beside its
// figures.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { fmt, percentile, signCreates } from "./lib.js";
import { startNode, stopNode } from "./nodeProcess.js";

/** Clients posting `mode=commit` at once: each waits for its block before the next POST. */
const commitClients = 32;
const commitSeconds = 20;
/** CREATEs posted `async`, and how many are in flight at once. */
const asyncCount = 600;
const asyncInFlight = 64;
/** Reads of one key's outputs (the async batch's, `asyncCount` of them), one after another. */
const outputReads = 200;
/** The wait between looks for an async CREATE's commit. */
const pollMs = 100;
/** Most time an async batch may take to commit on either. */
const asyncTimeoutMs = 300_000;

interface Figures {
  commitTxPerSecond: number;
  commitP50Ms: number;
  asyncTxPerSecond: number;
  outputsP50Ms: number;
  outputsP99Ms: number;
}

export async function run(): Promise<void> {
  const bigchaindb = process.env["LEDGERD_BENCH_BIGCHAINDB_URL"]?.replace(/\/+$/, "");
  if (bigchaindb === undefined) {
    console.log("skipped: set LEDGERD_BENCH_BIGCHAINDB_URL to a BigchainDB 2.x node's URL (e.g. http://127.0.0.1:9984) to compare ledgerd with it");
    return;
  }
  const root = (await (await fetch(`${bigchaindb}/`)).json()) as { software?: string; version?: string };
  console.log(`BigchainDB: ${String(root.software)} ${String(root.version)} at ${bigchaindb} (its store as the node was built: FerretDB, not MongoDB, for the anchor of this repository's tests)`);
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-bdb-"));
  const node = await startNode(dir);
  try {
    const ours = { name: "ledgerd (solo)", base: node.base };
    const theirs = { name: "BigchainDB", base: bigchaindb };
    const figures = new Map<string, Figures>();
    for (const target of [theirs, ours]) figures.set(target.name, await measure(target.name, target.base));
    const a = figures.get(ours.name)!;
    const b = figures.get(theirs.name)!;
    console.log(`ratios ledgerd / BigchainDB: commit ${(a.commitTxPerSecond / b.commitTxPerSecond).toFixed(1)}x tx/s (p50 ${(b.commitP50Ms / a.commitP50Ms).toFixed(1)}x shorter), async ${(a.asyncTxPerSecond / b.asyncTxPerSecond).toFixed(1)}x tx/s, outputs p50 ${(b.outputsP50Ms / a.outputsP50Ms).toFixed(1)}x shorter, p99 ${(b.outputsP99Ms / a.outputsP99Ms).toFixed(1)}x`);
  } finally {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(name: string, base: string): Promise<Figures> {
  const owner = makeRandomKeypair();
  // The async batch's owner holds exactly its outputs on both: their reads read the same list.
  const batchOwner = makeRandomKeypair();
  const commit = await commitLoad(base, owner);
  console.log(`${name}: commit mode, ${commitClients} clients for ${commitSeconds} s: ${fmt(commit.txPerSecond)} tx/s, p50 ${fmt(commit.p50Ms)} ms, p99 ${fmt(commit.p99Ms)} ms (${commit.count} committed)`);
  const asyncRate = await asyncLoad(base, batchOwner);
  console.log(`${name}: async, ${asyncCount} CREATEs, ${asyncInFlight} in flight, until all committed: ${fmt(asyncRate)} tx/s`);
  const outputs = await outputsReads(base, batchOwner.publicKey);
  console.log(`${name}: GET /api/v1/outputs of a key with ${outputs.count} outputs, ${outputReads} reads: p50 ${outputs.p50Ms.toFixed(2)} ms, p99 ${outputs.p99Ms.toFixed(2)} ms`);
  return { commitTxPerSecond: commit.txPerSecond, commitP50Ms: commit.p50Ms, asyncTxPerSecond: asyncRate, outputsP50Ms: outputs.p50Ms, outputsP99Ms: outputs.p99Ms };
}

async function post(base: string, body: Buffer, mode: "commit" | "async"): Promise<void> {
  const response = await fetch(`${base}/api/v1/transactions?mode=${mode}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`POST ${mode}: ${response.status} ${text.slice(0, 200)}`);
}

async function commitLoad(base: string, owner: ReturnType<typeof makeRandomKeypair>): Promise<{ txPerSecond: number; p50Ms: number; p99Ms: number; count: number }> {
  const times: number[] = [];
  const start = performance.now();
  const end = start + commitSeconds * 1000;
  await Promise.all(
    Array.from({ length: commitClients }, async () => {
      while (performance.now() < end) {
        const [body] = signCreates(1, "commit", owner);
        const t0 = performance.now();
        await post(base, body!, "commit");
        times.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  times.sort((x, y) => x - y);
  return { txPerSecond: times.length / seconds, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), count: times.length };
}

async function asyncLoad(base: string, owner: ReturnType<typeof makeRandomKeypair>): Promise<number> {
  const bodies = signCreates(asyncCount, "async", owner);
  const ids = bodies.map((body) => (JSON.parse(body.toString("utf8")) as { id: string }).id);
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: asyncInFlight }, async () => {
      while (next < bodies.length) await post(base, bodies[next++]!, "async");
    }),
  );
  // Committed: each readable (BigchainDB serves only committed transactions), looked at by
  // `asyncInFlight` readers at once, so that the looking does not set the pace.
  let unread = 0;
  await Promise.all(
    Array.from({ length: asyncInFlight }, async () => {
      while (unread < ids.length) {
        const id = ids[unread++]!;
        while ((await statusOf(`${base}/api/v1/transactions/${id}`)) !== 200) {
          if (performance.now() - start > asyncTimeoutMs) throw new Error(`async batch not committed within ${asyncTimeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, pollMs));
        }
      }
    }),
  );
  return asyncCount / ((performance.now() - start) / 1000);
}

async function statusOf(url: string): Promise<number> {
  const response = await fetch(url);
  await response.arrayBuffer();
  return response.status;
}

async function outputsReads(base: string, publicKey: string): Promise<{ p50Ms: number; p99Ms: number; count: number }> {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < outputReads; i++) {
    const t0 = performance.now();
    const response = await fetch(`${base}/api/v1/outputs?public_key=${publicKey}&spent=false`);
    const list = (await response.json()) as unknown[];
    times.push(performance.now() - t0);
    if (response.status !== 200) throw new Error(`outputs: ${response.status}`);
    count = list.length;
  }
  times.sort((x, y) => x - y);
  return { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), count };
}
