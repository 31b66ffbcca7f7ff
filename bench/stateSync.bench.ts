// Issue #39, state sync: how much sooner a node joining a network of `committedTxs` transactions
// reaches the network's height by state sync than by block sync, in the same run. A
// 1-validator CometBFT network on loopback (ledgerd testnet) commits the CREATEs (as bench
// catchUp does); the validator is then restarted with a snapshot interval that lands on the
// next block, and one more transaction makes that block and its snapshot (its time printed).
// Two nodes join one after the other, each alone beside the idle validator on the same 2 cores:
// one by `testnet add-node` (block sync: every block replayed, signatures checked), one by
// `testnet add-node --state-sync` (the snapshot restored, then the blocks after it). For each:
// the time from its start until its ledger reports the network's height and app hash; the
// ratio; and the restore's own rate in transactions/s, from the joining node's log.
// LEDGERD_BENCH_QUICK=1: 3,000 transactions; LEDGERD_BENCH_STATESYNC_TXS=N sets N (100,000
// by default, the figure is at 1,000,000); LEDGERD_BENCH_STATESYNC_PORT its first port
// (29,500 by default). LEDGERD_BENCH_STATESYNC_LOAD=sync: the network is loaded with mode=sync
// POSTs (each back once CheckTx took it) instead of mode=commit, so blocks fill up to the
// mempool's pace rather than to the 64 clients' (64 a block at most): a million commits in
// minutes rather than hours, in fewer and larger blocks. Needs scripts/install-cometbft.sh.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { addTestnetNode } from "../src/testnet/addNode.js";
import { createTestnet, defaultCometBftBinary, logFile, startTestnet, stopTestnet, type TestnetNode } from "../src/testnet/testnet.js";
import { fetchTrustPoint } from "../src/testnet/trustPoint.js";
import { preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { appState, commitAll } from "./catchUp.bench.js";
import { fmt, signCreates } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const committedTxs = quick ? 3_000 : Number(process.env["LEDGERD_BENCH_STATESYNC_TXS"] ?? 100_000);
/** Bodies signed and committed at a time, so that a million is never held at once. */
const signedBatch = 20_000;
const basePort = Number(process.env["LEDGERD_BENCH_STATESYNC_PORT"] ?? 29_500);
const loadMode = process.env["LEDGERD_BENCH_STATESYNC_LOAD"] === "sync" ? "sync" : "commit";

/** Sets engine settings of a node's config.json. */
function setEngine(dir: string, node: TestnetNode, engine: Record<string, unknown>): void {
  const path = join(dir, node.dataDir, "config.json");
  const config = JSON.parse(readFileSync(path, "utf8")) as { engine: Record<string, unknown> };
  writeFileSync(path, JSON.stringify({ ...config, engine: { ...config.engine, ...engine } }));
}

/** Seconds from the node's start until its ledger reports `target` (height/app hash). */
async function timeToReach(dir: string, index: number, node: TestnetNode, target: string): Promise<number> {
  const started = performance.now();
  await startTestnet(dir, { nodes: [index], readyTimeoutMs: 600_000 });
  while ((await appState(node)) !== target) await sleep(100);
  return (performance.now() - started) / 1000;
}

/** The last JSON log line of `node`'s ledgerd whose msg is `msg`, or null. */
function lastLogOf(dir: string, node: TestnetNode, msg: string): Record<string, unknown> | null {
  const lines = readFileSync(logFile(dir, node, "ledgerd"), "utf8").split("\n").filter((line) => line.includes(`"msg":"${msg}"`));
  return lines.length === 0 ? null : (JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>);
}

/** Waits until CometBFT's mempool of `node` is empty: every transaction it took is in a block. */
async function mempoolDrained(node: TestnetNode): Promise<void> {
  for (;;) {
    const body = (await (await fetch(`http://${node.rpc}/num_unconfirmed_txs`)).json()) as { result: { total: string } };
    if (body.result.total === "0") return;
    await sleep(200);
  }
}

/** Posts one CREATE and waits for its commit. */
async function commitOne(node: TestnetNode, tag: string): Promise<void> {
  await commitAll(node, signCreates(1, tag));
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-statesync-"));
  try {
    const manifest = createTestnet({ validators: 1, dir, basePort, cometbft: defaultCometBftBinary(), logLevel: "info" });
    const validator = manifest.nodes[0]!;
    setEngine(dir, validator, { snapshot_interval: 0 });
    await startTestnet(dir);
    const loadStarted = performance.now();
    for (let done = 0; done < committedTxs; done += signedBatch) {
      const bodies = signCreates(Math.min(signedBatch, committedTxs - done), `stateSync-${done}`);
      await commitAll(validator, bodies, loadMode);
    }
    if (loadMode === "sync") await mempoolDrained(validator);
    const loaded = (await appState(validator))!.split("/")[0];
    console.log(`the network: 1 validator, ${fmt(committedTxs)} CREATEs committed (mode=${loadMode}) in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s, ${String(loaded)} blocks`);
    // A snapshot at the next block: the validator restarted with that interval, one more commit.
    await sleep(1_000);
    const tip = Number((await appState(validator))!.split("/")[0]);
    await stopTestnet(dir);
    setEngine(dir, validator, { snapshot_interval: tip + 1, snapshot_keep: 1 });
    await startTestnet(dir);
    await commitOne(validator, "snapshot-block");
    const snapshotDir = join(dir, validator.dataDir, "snapshots", String(tip + 1), "metadata.json");
    while (!existsSync(snapshotDir)) await sleep(200);
    const taken = lastLogOf(dir, validator, "snapshot taken");
    console.log(`the validator's snapshot of height ${tip + 1}: ${String(taken?.["chunks"])} chunks, taken in ${(Number(taken?.["ms"]) / 1000).toFixed(1)} s beside the running node`);
    // Blocks after it, so that CometBFT's light client can verify its height (it reads two more).
    await commitOne(validator, "after-1");
    await commitOne(validator, "after-2");
    await sleep(1_000);
    const target = (await appState(validator))!;
    console.log(`the network's height and app hash to reach: ${target}`);

    const syncing = addTestnetNode(dir, { logLevel: "info", threads: preparePoolOptionsDefault.threads, stateSync: await fetchTrustPoint(validator.rpc) });
    const stateSeconds = await timeToReach(dir, syncing.index, syncing.node, target);
    await stopTestnet(dir, { nodes: [syncing.index] });
    const restored = lastLogOf(dir, syncing.node, "state sync: ledger restored");
    console.log(`by state sync: the network's height reached in ${stateSeconds.toFixed(1)} s (CometBFT's snapshot discovery, 5 s on a testnet, included); ` +
      `the chunks' checks (first pass, as they arrive): ${String(restored?.["checkSeconds"])} s; ` +
      `the restore itself (second pass): ${String(restored?.["seconds"])} s, ${fmt(Number(restored?.["txsPerSecond"]))} transactions/s; ` +
      `${fmt(committedTxs / stateSeconds)} transactions/s from the start`);

    const replaying = addTestnetNode(dir, { logLevel: "warn", threads: preparePoolOptionsDefault.threads });
    const blockSeconds = await timeToReach(dir, replaying.index, replaying.node, target);
    console.log(`by block sync: the network's height reached in ${blockSeconds.toFixed(1)} s, ${fmt(committedTxs / blockSeconds)} transactions/s from the start`);
    console.log(`state sync reached the network's height ${(blockSeconds / stateSeconds).toFixed(1)}x sooner than block sync (goal at 1,000,000 transactions: >= 10x)`);
  } finally {
    await stopTestnet(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
