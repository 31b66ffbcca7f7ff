// Issue #5: a real 4-validator CometBFT network on loopback (4 CometBFT + 4 ledgerd processes on
// this machine, made by `ledgerd testnet`), driven over HTTP like a client would:
//   - committed tx/s: pre-signed CREATEs posted in `async` mode by clients spread over the four
//     nodes (bench/rawHttp.ts: a light client, as real clients run elsewhere), as
//     fast as the network takes them, until node0's event stream has seen every one committed
//     (at 64 and at 128 in flight);
//   - commit latency: `mode=commit` POSTs from concurrent clients, p50/p99 of the answer time,
//     and the committed rate of that phase.
//   - the ceiling first (issue #18): CometBFT's own `kvstore` application on the same 4-node
//     network, fed by the same light client with transactions of the same size (JSON-RPC
//     `broadcast_tx_async` to the four nodes), at the same concurrencies; the ledgerd figures
//     are then printed as a ratio of it. Then two more ceilings on the same network: a bare
//     application behind ledgerd's ABCI socket server (bench/bareAbciApp.ts) that verifies each
//     transaction's signature once per validator and does nothing else, and the same doing
//     nothing at all: what any verifying application could reach here, and the socket's cost.
// Goal: at least 1,000 committed tx/s on 2 cores; issue #18: ledgerd >= 0.6 of the ceiling.
// Needs scripts/install-cometbft.sh.
// LEDGERD_BENCH_QUICK=1 posts fewer transactions.
// LEDGERD_BENCH_COMETBFT_DATABASE='{"writer_thread":"on"}': database settings of every ledgerd
// node, as JSON (an experiment).
// LEDGERD_BENCH_COMETBFT_CEILINGS_ONLY=1 runs the ceilings only.
// LEDGERD_BENCH_COMETBFT_FLOODS=128,64,128: the measured floods' posts in flight, in order
// (default 64,128).
// LEDGERD_BENCH_COMETBFT_CEILINGS=verify,none: which ceilings to run (default all three; an empty
// value none, the ledgerd network's figures then printed without ratios).
// LEDGERD_BENCH_CPU_PROF=<dir> writes the bare apps' and the ledgerd nodes' V8 CPU profiles there.
// LEDGERD_BENCH_COMETBFT_BINARY=<path>: another CometBFT binary for both networks (an experiment,
// e.g. one built with a change to measure; docs/cometbft-abci-flush.md).
// LEDGERD_BENCH_COMETBFT_NODE_FLAGS='--max-semi-space-size=32': Node flags of the ledgerd nodes,
// space-separated (an experiment, e.g. V8's heap settings); LEDGERD_BENCH_COMETBFT_NODE_ENV='A=1 B=2':
// variables of their environment (an experiment's switch in the code: not named LEDGERD_*, which
// ledgerd refuses when unknown; V8's heap options go here as NODE_OPTIONS, as a node's worker
// threads refuse V8 options in its argv). Both on the nodes of LEDGERD_BENCH_COMETBFT_NODES when
// it is set.
// LEDGERD_BENCH_COMETBFT_CONFIG='mempool.recheck=false': edits of every CometBFT node's
// config.toml, `section.key=value` space-separated, on the ceilings' networks and ledgerd's alike
// (an experiment).
// LEDGERD_BENCH_COMETBFT_NODES=0,1: the ledgerd network's nodes LEDGERD_BENCH_COMETBFT_DATABASE,
// _CONFIG, _NODE_FLAGS and _NODE_ENV apply to (default all; the ceilings' networks get _CONFIG on every node). The ledgerd
// CPU is then printed for those nodes and the others apart: an A/B inside one flood, under the
// same load and the same blocks (swap the halves in the next run: the nodes differ a little).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { setTomlValues, type TomlEdit } from "../src/engine/cometbft/cometBftConfig.js";
import { createTestnet, defaultCometBftBinary, startTestnet, stopTestnet, type NodeLaunch, type TestnetNode } from "../src/testnet/testnet.js";
import { bareSignedTxs, type BareMode } from "./bareAbciApp.js";
import { fmt, percentile, rawVerifyCpuMicros, signCreates } from "./lib.js";
import { machineCpuMs, processCpuMs, processThreadCpuMs, setNodeDatabaseSettings, stopChild } from "./nodeProcess.js";
import { RawHttpConnection } from "./rawHttp.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const throughputTxs = quick ? 3_000 : 12_000;
const latencyTxs = quick ? 600 : 2_000;
/**
 * A flood before the measured ones, not counted: V8 compiles the node's hot paths in its first
 * tens of seconds (15 % of the four nodes' samples in the first measured flood, profiled), which
 * a node that runs for months pays once. The kvstore ceiling is Go, compiled ahead. Measured
 * (issue #42, floods of 3,000 one after another): each validator's CPU per transaction fell from
 * 5.7 raw verifies in the first 1,000 to 4.2, 3.4, then 2.9 and 2.8, so ~7,000 warm the nodes.
 */
const warmUpTxs = quick ? 7_000 : 12_000;
/**
 * Async POSTs in flight at once over the four nodes, one flood each. The machine is saturated at
 * both; more clients at once means more work per wake-up (fuller JSON-RPC batches to CometBFT,
 * more requests per event-loop turn), so the rate still grows.
 */
const asyncConcurrencies = (process.env["LEDGERD_BENCH_COMETBFT_FLOODS"] ?? "64,128").split(",").map(Number);
/** Clients each waiting for their `mode=commit` answer before the next POST. */
const commitClients = 32;
const validators = 4;
const basePort = 28_000;
/** LEDGERD_BENCH_COMETBFT_CEILINGS_ONLY=1: the ceilings' networks only, not ledgerd's. */
const ceilingsOnly = process.env["LEDGERD_BENCH_COMETBFT_CEILINGS_ONLY"] === "1";
const cometbftBinary = process.env["LEDGERD_BENCH_COMETBFT_BINARY"] ?? defaultCometBftBinary();
/** CometBFT's processes by their name in /proc (the binary's, cut to Linux's 15 characters). */
const cometbftComm = basename(cometbftBinary).slice(0, 15);

/** LEDGERD_BENCH_COMETBFT_CONFIG: `section.key=value` edits, the value a boolean, an integer or a string. */
const configEdits: readonly TomlEdit[] = (process.env["LEDGERD_BENCH_COMETBFT_CONFIG"] ?? "")
  .split(" ")
  .filter((edit) => edit !== "")
  .map((edit) => {
    const match = /^([a-z_]+)\.([a-z_]+)=(.*)$/.exec(edit);
    if (match === null) throw new Error(`LEDGERD_BENCH_COMETBFT_CONFIG: ${edit} is not section.key=value`);
    const raw = match[3]!;
    const value = raw === "true" || raw === "false" ? raw === "true" : /^\d+$/.test(raw) ? Number(raw) : raw;
    return { section: match[1]!, key: match[2]!, value };
  });

/** LEDGERD_BENCH_COMETBFT_NODES: the indexes of the ledgerd network's nodes the settings apply to; null for all. */
const settingsNodes = process.env["LEDGERD_BENCH_COMETBFT_NODES"]?.split(",").map(Number) ?? null;

/** The nodes the settings apply to, of `nodes` (all without LEDGERD_BENCH_COMETBFT_NODES). */
function setNodes(nodes: readonly TestnetNode[]): readonly TestnetNode[] {
  return settingsNodes === null ? nodes : nodes.filter((_, i) => settingsNodes.includes(i));
}

/** The edits of LEDGERD_BENCH_COMETBFT_CONFIG in each config.toml of `nodes` (of the network in `dir`). */
function editCometBftConfig(dir: string, nodes: readonly TestnetNode[]): void {
  if (configEdits.length === 0) return;
  for (const node of nodes) {
    const path = join(dir, node.home, "config", "config.toml");
    writeFileSync(path, setTomlValues(readFileSync(path, "utf8"), configEdits));
  }
}

/** Posts until accepted: a full mempool (503) is back-pressure, not a failure. */
async function postAccepted(connection: RawHttpConnection, node: TestnetNode, body: Buffer, mode: string): Promise<void> {
  for (;;) {
    const answer = await connection.post(`/api/v1/transactions?mode=${mode}`, body);
    if (answer.status === 202) return;
    if (answer.status !== 503) throw new Error(`POST ${mode} to ${node.name} answered ${answer.status}: ${answer.body}`);
    await sleep(20);
  }
}

/** `count` clients, client i on a connection of its own to node i mod 4, sharing one list of bodies. */
async function clients(nodes: readonly TestnetNode[], count: number, txs: readonly Buffer[], mode: string, each?: (ms: number) => void): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, client) => {
      const node = nodes[client % nodes.length]!;
      const connection = await RawHttpConnection.open(node.http);
      try {
        while (next < txs.length) {
          const body = txs[next++]!;
          const t0 = performance.now();
          await postAccepted(connection, node, body, mode);
          each?.(performance.now() - t0);
        }
      } finally {
        connection.close();
      }
    }),
  );
}

/** Which of `expected` node0's stream reports committed from now on. */
async function streamCounter(node: TestnetNode, expected: ReadonlySet<string>): Promise<{ seen: ReadonlySet<string>; close: () => void }> {
  const port = node.ws.split(":")[1];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/streams/valid_transactions`);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const seen = new Set<string>();
  ws.on("message", (data) => {
    const id = (JSON.parse(String(data)) as { transaction_id: string }).transaction_id;
    if (expected.has(id)) seen.add(id);
  });
  return { seen, close: () => ws.close() };
}

/** With no new commit for this long, the missing transactions are posted again. */
const stallMs = 3_000;
/**
 * A ceiling network with over 1 % of a flood missing waits this long for a commit before giving
 * up: CometBFT's consensus can stall for some seconds on the saturated machine (a proposal 4 s
 * late, seen in the verifying bare app's network), and a rate must include its stalls.
 */
const ceilingStallMs = 30_000;

/**
 * Posts `txs` in async mode and waits until node0 has seen all of them committed. An accepted
 * (202) async transaction can still be dropped by CometBFT after its CheckTx (its mempool counts
 * as full while a recheck runs into a new block), so, as a real async client must, the ones
 * still missing after a stall are posted again; how many is printed.
 */
async function throughput(nodes: readonly TestnetNode[], txs: readonly Buffer[], concurrency: number, dir: string): Promise<number> {
  const ids = txs.map((tx) => (JSON.parse(tx.toString("utf8")) as { id: string }).id);
  const counter = await streamCounter(nodes[0]!, new Set(ids));
  const committed = (): number => counter.seen.size;
  const cpu = cpuMeter(dir, nodes);
  const start = performance.now();
  await clients(nodes, concurrency, txs, "async");
  const posted = performance.now();
  let reposted = 0;
  let last = committed();
  let lastChange = performance.now();
  while (last < txs.length) {
    if (performance.now() - posted > 120_000) throw new Error(`only ${last} of ${txs.length} committed`);
    await sleep(10);
    const now = committed();
    if (now !== last) {
      last = now;
      lastChange = performance.now();
    } else if (performance.now() - lastChange > stallMs) {
      const missing = txs.filter((_, i) => !counter.seen.has(ids[i]!));
      reposted += missing.length;
      await repost(nodes[0]!, missing);
      lastChange = performance.now();
    }
  }
  const elapsed = (performance.now() - start) / 1000;
  counter.close();
  console.log(`  ${cpu(txs.length, elapsed)}`);
  const again = reposted === 0 ? "" : ` (${fmt(reposted)} posted again after CometBFT dropped them)`;
  console.log(`posted ${fmt(txs.length)} in ${((posted - start) / 1000).toFixed(1)} s; all committed after ${elapsed.toFixed(1)} s${again}`);
  return txs.length / elapsed;
}

/**
 * From now on, the CPU per committed transaction of the network's ledgerd and CometBFT processes
 * (those started in `dir`) and of the load generator, and the machine's idle cores over
 * `seconds` (up to `machineAt`, a reading taken then): where a rate's time goes, the ledgerd
 * network's beside the kvstore ceiling's.
 */
function cpuMeter(dir: string, nodes: readonly TestnetNode[] = []): (committed: number, seconds: number, machineAt?: Map<string, number>) => string {
  // With LEDGERD_BENCH_COMETBFT_NODES, the ledgerd nodes with the settings and the others apart.
  const withSettings = settingsNodes === null ? [] : setNodes(nodes).map((node) => join(dir, node.dataDir));
  const ledgerdGroup = (cmdline: string): string => {
    if (withSettings.length === 0) return `ledgerd (${validators} processes)`;
    return withSettings.some((data) => cmdline.includes(`${data} `) || cmdline.endsWith(data))
      ? `ledgerd with the settings (${withSettings.length} processes)`
      : `ledgerd without (${validators - withSettings.length} processes)`;
  };
  const groupOf = (cmdline: string, comm: string): string | null => {
    if (!cmdline.includes(dir)) return null;
    if (comm === cometbftComm) return "CometBFT (4 processes)";
    return cmdline.includes("bareAbciApp") ? "bare app (4 processes)" : ledgerdGroup(cmdline);
  };
  // The unit of issue #42's figures: the CPU of one raw verify, measured right before and after.
  const verifyBefore = rawVerifyCpuMicros();
  // The ledgerd processes' threads apart: main, V8's helpers (`node`), the WAL checkpointer.
  const threadsOf = (cmdline: string, comm: string): string | null => {
    const group = groupOf(cmdline, comm);
    return group?.startsWith("ledgerd") === true ? group : null;
  };
  const before = processCpuMs(groupOf);
  const threadsBefore = processThreadCpuMs(threadsOf);
  const machineBefore = machineCpuMs();
  const clientBefore = process.cpuUsage();
  return (committed, seconds, machineAt = machineCpuMs()) => {
    const after = processCpuMs(groupOf);
    const threadsAfter = processThreadCpuMs(threadsOf);
    const client = process.cpuUsage(clientBefore);
    const verifyAfter = rawVerifyCpuMicros();
    const verifyMicros = (verifyBefore + verifyAfter) / 2;
    const perTx = (ms: number): string => ((ms * 1000) / committed).toFixed(0);
    // Each of the four processes' share in raw verifies of CPU (issue #42's unit).
    const perValidator = (ms: number, processes: number): string => ` (${((ms * 1000) / committed / processes / verifyMicros).toFixed(2)} raw verifies a validator)`;
    const groups = [...after].sort(([a], [b]) => a.localeCompare(b)).map(([group, ms]) => {
      const spent = ms - (before.get(group) ?? 0);
      const processes = Number(/\((\d+) processes\)/.exec(group)![1]);
      return `${group} ${perTx(spent)} µs${group.startsWith("CometBFT") ? "" : perValidator(spent, processes)}`;
    });
    const idle = ((machineAt.get("idle")! - machineBefore.get("idle")!) / 1000 / seconds).toFixed(2);
    const unit = `one raw verify ${verifyBefore.toFixed(0)} / ${verifyAfter.toFixed(0)} µs of CPU before / after`;
    const threads = [...threadsAfter].sort(([a], [b]) => a.localeCompare(b)).map(([name, ms]) => {
      const processes = Number(/\((\d+) processes\)/.exec(name)![1]);
      return `${name} ${((ms - (threadsBefore.get(name) ?? 0)) * 1000 / committed / processes / verifyMicros).toFixed(2)}`;
    });
    const threadLine = threads.length === 0 ? "" : `\n  by thread, raw verifies a validator: ${threads.join(", ")}`;
    return `CPU per committed transaction: ${groups.join(", ")}, load generator ${perTx((client.user + client.system) / 1000)} µs; machine idle ${idle} of 2 cores; ${unit}${threadLine}`;
  };
}

/** Posts each again; "already pending" or "already committed" (400) are answers too. */
async function repost(node: TestnetNode, txs: readonly Buffer[]): Promise<void> {
  const connection = await RawHttpConnection.open(node.http);
  try {
    for (const body of txs) {
      const answer = await connection.post("/api/v1/transactions?mode=async", body);
      const known = answer.status === 400 && /Pending|Duplicate|already/.test(answer.body);
      if (answer.status !== 202 && !known) throw new Error(`repost answered ${answer.status}: ${answer.body}`);
    }
  } finally {
    connection.close();
  }
}

async function commitLatency(nodes: readonly TestnetNode[], txs: readonly Buffer[]): Promise<{ p50: number; p99: number; rate: number }> {
  const latencies: number[] = [];
  const start = performance.now();
  await clients(nodes, commitClients, txs, "commit", (ms) => latencies.push(ms));
  const rate = txs.length / ((performance.now() - start) / 1000);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rate };
}

/** A kvstore transaction (`key=value`) as long as a ledgerd CREATE body of the same run. */
function kvstoreTxs(count: number, bytes: number, tag: string): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const key = `${tag}${i}=`;
    return Buffer.from(key + randomBytes(bytes).toString("hex").slice(0, Math.max(1, bytes - key.length)));
  });
}

/** A JSON-RPC `broadcast_tx_async` until the mempool takes it (a full one is back-pressure). */
async function broadcast(connection: RawHttpConnection, tx: Buffer): Promise<void> {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "broadcast_tx_async", params: { tx: tx.toString("base64") } }));
  for (;;) {
    const answer = await connection.post("/", body);
    if (answer.status === 200 && /"code":0\b/.test(answer.body)) return;
    if (!/mempool is full/.test(answer.body)) throw new Error(`broadcast_tx_async answered ${answer.status}: ${answer.body}`);
    await sleep(20);
  }
}

/** The transactions node0's application holds: kvstore's keys, or the bare app's count (`abci_info` says `{"size": N}`). */
async function appCommitted(node: TestnetNode): Promise<number> {
  const answer = (await (await fetch(`http://${node.rpc}/abci_info`)).json()) as { result: { response: { data: string } } };
  return (JSON.parse(answer.result.response.data) as { size: number }).size;
}

/**
 * Posts `txs` to a ceiling network (JSON-RPC `broadcast_tx_async`) with `concurrency` clients
 * over the nodes; committed tx/s on node0 up to its last commit. CometBFT drops some transactions its CheckTx accepted (see `stallMs`); the ledgerd
 * flood posts those again, here they are counted as dropped and left out of the rate.
 */
async function rpcThroughput(nodes: readonly TestnetNode[], txs: readonly Buffer[], concurrency: number, dir: string | null = null): Promise<number> {
  const before = await appCommitted(nodes[0]!);
  const cpu = dir === null ? null : cpuMeter(dir);
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      const connection = await RawHttpConnection.open(nodes[client % nodes.length]!.rpc);
      try {
        while (next < txs.length) await broadcast(connection, txs[next++]!);
      } finally {
        connection.close();
      }
    }),
  );
  let committed = (await appCommitted(nodes[0]!)) - before;
  let lastChange = performance.now();
  // The machine's figures up to the last commit, not through the wait for a dropped one.
  let machineAtLast = machineCpuMs();
  // A few missing after a stall were dropped by CometBFT; many missing is a stalled consensus,
  // which the rate must include: wait for it, up to `ceilingStallMs`.
  const waitMs = (): number => (txs.length - committed > txs.length / 100 ? ceilingStallMs : stallMs);
  while (committed < txs.length && performance.now() - lastChange < waitMs()) {
    await sleep(10);
    const now = (await appCommitted(nodes[0]!)) - before;
    if (now !== committed) [committed, lastChange, machineAtLast] = [now, performance.now(), machineCpuMs()];
  }
  if (committed < txs.length) console.log(`  (${fmt(txs.length - committed)} of ${fmt(txs.length)} accepted, then dropped by CometBFT)`);
  if (cpu !== null) console.log(`  ${cpu(committed, (lastChange - start) / 1000, machineAtLast)}`);
  return committed / ((lastChange - start) / 1000);
}

/**
 * The applications of the ceilings, each on the same 4-validator network: CometBFT's own
 * `kvstore` in its process (the ceiling), and the bare app behind ledgerd's ABCI socket
 * server (bench/bareAbciApp.ts), doing one Ed25519 verify per transaction on each validator or
 * nothing: what any application that checks each signature once could reach on these two cores,
 * and what the socket alone costs.
 */
type CeilingApp = "kvstore" | BareMode;

const ceilingApps: readonly CeilingApp[] = (process.env["LEDGERD_BENCH_COMETBFT_CEILINGS"]?.split(",") ?? ["kvstore", "verify", "none"]).filter(
  (app): app is CeilingApp => app === "kvstore" || app === "verify" || app === "none",
);

const ceilingNames: Record<CeilingApp, string> = {
  kvstore: "CometBFT kvstore",
  verify: "bare app, one verify per validator",
  none: "bare app, nothing",
};

/** Each ceiling network's ports, clear of the ledgerd network's and of each other's. */
const ceilingBasePorts: Record<CeilingApp, number> = { kvstore: 29_000, verify: 30_000, none: 31_000 };

/** LEDGERD_BENCH_CPU_PROF=<dir>: the bare apps' V8 CPU profiles too (bench/cpuProfileSummary.ts). */
const profileDir = process.env["LEDGERD_BENCH_CPU_PROF"];
const profiling = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];

/** Until `address` takes a TCP connection (the bare app listens). */
async function untilListening(address: string): Promise<void> {
  const [host, port] = address.split(":");
  const start = performance.now();
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), host!, () => {
        socket.destroy();
        resolve(true);
      }).once("error", () => resolve(false));
    });
    if (open) return;
    if (performance.now() - start > 60_000) throw new Error(`nothing listens on ${address}`);
    await sleep(100);
  }
}

/** The same 4-validator network with `app` as the application: committed tx/s by concurrency. */
async function ceiling(app: CeilingApp, bodyBytes: number): Promise<Map<number, number>> {
  const dir = mkdtempSync(join(tmpdir(), `ledgerd-bench-ceiling-${app}-`));
  const cometbfts: ChildProcess[] = [];
  const apps: ChildProcess[] = [];
  const rates = new Map<number, number>();
  const txsOf = (count: number, tag: string): Buffer[] => (app === "verify" ? bareSignedTxs(count, bodyBytes, tag) : kvstoreTxs(count, bodyBytes, tag));
  try {
    const manifest = createTestnet({ validators, dir, basePort: ceilingBasePorts[app], cometbft: cometbftBinary, logLevel: "warn" });
    editCometBftConfig(dir, manifest.nodes);
    if (app !== "kvstore") {
      for (const node of manifest.nodes) {
        const appFile = join(import.meta.dirname, "bareAbciApp.ts");
        // `dir` last, unused by the app: the CPU meter finds the network's processes by it.
        apps.push(spawn(process.execPath, [...profiling, ...process.execArgv, appFile, node.abci, app, dir], { stdio: ["ignore", "ignore", "inherit"] }));
      }
      for (const node of manifest.nodes) await untilListening(node.abci);
    }
    for (const node of manifest.nodes) {
      const proxy = app === "kvstore" ? ["--proxy_app=kvstore"] : [];
      cometbfts.push(spawn(manifest.cometbft, ["start", "--home", join(dir, node.home), ...proxy, "--log_level", "error"], { stdio: "ignore" }));
    }
    for (const node of manifest.nodes) {
      const start = performance.now();
      while (!(await fetch(`http://${node.rpc}/status`).then((r) => r.ok).catch(() => false))) {
        if (performance.now() - start > 60_000) throw new Error(`${node.name}'s CometBFT (${app}) did not start`);
        await sleep(100);
      }
    }
    await rpcThroughput(manifest.nodes, txsOf(100, "warm"), 8);
    // As the ledgerd network gets: its first flood is not counted either.
    await rpcThroughput(manifest.nodes, txsOf(warmUpTxs, "warm-flood"), asyncConcurrencies[0]!);
    for (const concurrency of asyncConcurrencies) {
      const rate = await rpcThroughput(manifest.nodes, txsOf(throughputTxs, `c${concurrency}-`), concurrency, dir);
      rates.set(concurrency, rate);
      console.log(`ceiling, ${ceilingNames[app]}: committed ${fmt(rate)} tx/s (${fmt(bodyBytes)}-byte transactions, ${concurrency} in flight over ${validators} nodes)`);
    }
    return rates;
  } finally {
    // CometBFT first: one whose application is gone may ignore SIGTERM (seen with the bare app).
    await stopAll(cometbfts);
    await stopAll(apps);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How long a ceiling network's process gets after SIGTERM before SIGKILL. */
const stopTimeoutMs = 10_000;

async function stopAll(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(children.map((child) => stopChild(child, stopTimeoutMs)));
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-cometbft-"));
  try {
    const manifest = createTestnet({ validators, dir, basePort, cometbft: cometbftBinary, logLevel: "warn" });
    console.log(`${validators} validators on loopback; CometBFT ${manifest.cometbft}; consensus.timeout_commit 200 ms`);
    const settingsOn = setNodes(manifest.nodes);
    const onWhich = settingsOn.length === manifest.nodes.length ? "every node" : settingsOn.map((node) => node.name).join(", ");
    editCometBftConfig(dir, settingsOn);
    if (configEdits.length > 0) console.log(`CometBFT's config.toml edited on ${onWhich}: ${process.env["LEDGERD_BENCH_COMETBFT_CONFIG"]}`);
    const floods = asyncConcurrencies.map((concurrency) => signCreates(throughputTxs, `flood-${concurrency}`));
    const bodyBytes = Math.round(floods[0]!.reduce((sum, body) => sum + body.length, 0) / throughputTxs);
    const ceilings = new Map<CeilingApp, Map<number, number>>();
    for (const app of ceilingApps) ceilings.set(app, await ceiling(app, bodyBytes));
    if (ceilingsOnly) return;
    const signedCommit = signCreates(latencyTxs, "commit");
    const database = process.env["LEDGERD_BENCH_COMETBFT_DATABASE"];
    if (database !== undefined) {
      for (const node of settingsOn) setNodeDatabaseSettings(join(dir, node.dataDir, "config.json"), database);
      console.log(`ledgerd's database settings on ${onWhich}: ${database}`);
    }
    // The ledgerd nodes' V8 CPU profiles, written when each stops (bench/cpuProfileSummary.ts).
    const ledgerdMain = join(import.meta.dirname, "..", "src", "cli", "main.ts");
    const nodeFlags = process.env["LEDGERD_BENCH_COMETBFT_NODE_FLAGS"]?.split(" ").filter((flag) => flag !== "") ?? [];
    if (nodeFlags.length > 0) console.log(`ledgerd on ${onWhich} runs with Node flags ${nodeFlags.join(" ")}`);
    const nodeEnv = Object.fromEntries(
      (process.env["LEDGERD_BENCH_COMETBFT_NODE_ENV"] ?? "").split(" ").filter((pair) => pair.includes("=")).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
    );
    if (Object.keys(nodeEnv).length > 0) console.log(`ledgerd on ${onWhich} runs with ${process.env["LEDGERD_BENCH_COMETBFT_NODE_ENV"]}`);
    // Every node through `launch`, so that the flags reach them with or without profiles (they
    // were given only with LEDGERD_BENCH_CPU_PROF before).
    const launch = (node: TestnetNode): NodeLaunch => {
      // By name: startTestnet reads the manifest again, so its nodes are other objects.
      const on = settingsOn.some((setOn) => setOn.name === node.name);
      return {
        ledgerd: { args: [...profiling, ...(on ? nodeFlags : []), "--import", "tsx", ledgerdMain], cwd: join(import.meta.dirname, "..") },
        env: { ledgerd: on ? nodeEnv : {} },
      };
    };
    await startTestnet(dir, { launch });
    // Warm up: the first blocks, connections and JIT.
    await commitLatency(manifest.nodes, signCreates(100, "warm"));
    const warm = await throughput(manifest.nodes, signCreates(warmUpTxs, "warm-flood"), asyncConcurrencies[0]!, dir);
    console.log(`warm-up flood, not counted: ${fmt(warm)} tx/s (${fmt(warmUpTxs)} async POSTs, ${asyncConcurrencies[0]!} in flight)`);
    for (const [i, concurrency] of asyncConcurrencies.entries()) {
      const rate = await throughput(manifest.nodes, floods[i]!, concurrency, dir);
      const of = (app: CeilingApp): string => {
        const ceilingRate = ceilings.get(app)?.get(concurrency);
        return ceilingRate === undefined ? "(not run)" : (rate / ceilingRate).toFixed(2);
      };
      console.log(
        `committed ${fmt(rate)} tx/s (async POSTs, ${concurrency} in flight over ${validators} nodes); of the kvstore ceiling ${of("kvstore")} (goal >= 0.6), of the bare app's: with one verify ${of("verify")}, with nothing ${of("none")}`,
      );
    }
    const latency = await commitLatency(manifest.nodes, signedCommit);
    console.log(
      `mode=commit, ${commitClients} clients: p50 ${latency.p50.toFixed(0)} ms, p99 ${latency.p99.toFixed(0)} ms, ${fmt(latency.rate)} committed tx/s`,
    );
  } finally {
    await stopTestnet(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
