// Issue #14, nodes that join later: how fast a node added to a running network catches up. A
// 1-validator CometBFT network on loopback (ledgerd testnet) commits `committedTxs` CREATEs;
// then `ledgerd testnet add-node` adds a full node and starts it, and the time from its start
// until its ledger reports the network's height and app hash gives blocks/s and transactions/s
// replayed (CometBFT's block sync from the peer, and ledgerd's FinalizeBlock of every block,
// validation included), both processes on the same 2 cores as the validator.
// Issue #18: the replay rate beside a same-run baseline, the solo engine's committed rate for
// the same kind of pre-signed CREATEs (bench engine's measurement, in this process, on an empty
// SQLite ledger); goal: replay >= 0.8 of it, from the joining node's first block (before it, a
// start-up of fixed waits; printed too, and the rate with it). The baseline is taken before the
// network starts and again after the joining node caught up, and the ratios are to their mean:
// this machine's speed drifts within minutes, and the replay runs between the two. Beside the
// rates, CPU a transaction: the engine's process (all threads) against the replay's four processes
// and against the joining ledgerd alone; on cores shared with other work, the rates' ratio follows
// how the scheduler splits the machine between one process and four, the CPU's does not.
// LEDGERD_BENCH_QUICK=1: fewer transactions. LEDGERD_BENCH_CPU_PROF=<dir>: V8's CPU profile of
// each of the joining ledgerd's threads, written there when it stops (bench/cpuProfileSummary.ts).
// Needs scripts/install-cometbft.sh.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { addTestnetNode } from "../src/testnet/addNode.js";
import { createTestnet, defaultCometBftBinary, startTestnet, stopTestnet, type TestnetNode } from "../src/testnet/testnet.js";
import { SoloEngine } from "../src/engine/solo/soloEngine.js";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { runnableModule } from "../src/workerThread.js";
import { committedRate } from "./engine.bench.js";
import { fmt, signCreates } from "./lib.js";
import { machineCpuMs, processCpuMs, setNodeDatabaseSettings, setNodeSettings, threadCpuMs } from "./nodeProcess.js";
import { RawHttpConnection } from "./rawHttp.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
/** LEDGERD_BENCH_CATCHUP_TXS=<n>: the network's transactions (a shorter run on a busy machine). */
const committedTxs = Number(process.env["LEDGERD_BENCH_CATCHUP_TXS"] ?? (quick ? 3_000 : 100_000));
/**
 * LEDGERD_BENCH_CATCHUP_DATABASE='{"synchronous":"normal"}': database settings of the joining
 * node only, as JSON (an experiment: its fsync, its writer thread, ...).
 */
const joinerDatabase = process.env["LEDGERD_BENCH_CATCHUP_DATABASE"];
/**
 * LEDGERD_BENCH_CATCHUP_LEDGER='{"replay_batch_blocks_max":0}': ledger settings of the joining
 * node only, as JSON (an A/B switch: its replay batch off).
 */
const joinerLedger = process.env["LEDGERD_BENCH_CATCHUP_LEDGER"];
const profileDir = process.env["LEDGERD_BENCH_CPU_PROF"];
/** The baseline's transactions (bench engine posts as many in each of its measurements). */
const baselineTxs = 20_000;
const clients = 64;
const basePort = 29_000;

/**
 * Commits every body through `node`, `clients` POSTs in flight (mode=commit; mode=sync answers
 * once CheckTx took it, so the caller waits for the mempool to drain). 503 is retried.
 */
export async function commitAll(node: TestnetNode, bodies: readonly Buffer[], mode: "commit" | "sync" = "commit"): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    const connection = await RawHttpConnection.open(node.http);
    try {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        for (;;) {
          const answer = await connection.post(`/api/v1/transactions?mode=${mode}`, body);
          if (answer.status === 202) break;
          if (answer.status !== 503) throw new Error(`POST answered ${answer.status}: ${answer.body}`);
          await sleep(20);
        }
      }
    } finally {
      connection.close();
    }
  }));
}

/** The ledger's height and app hash through CometBFT's ABCI Info; null while it is down. */
export async function appState(node: TestnetNode): Promise<string | null> {
  try {
    const body = (await (await fetch(`http://${node.rpc}/abci_info`)).json()) as { result: { response: { last_block_height?: string; last_block_app_hash?: string } } };
    return `${body.result.response.last_block_height ?? 0}/${body.result.response.last_block_app_hash ?? ""}`;
  } catch {
    return null;
  }
}

/** What the solo engine did with the baseline's transactions: committed tx/s, and the CPU a transaction cost its process (all threads). */
interface Baseline {
  readonly rate: number;
  readonly cpuMicrosPerTx: number;
}

/** The solo engine's committed rate for `bodies` on an empty SQLite ledger, as bench engine measures it. */
async function engineBaseline(bodies: readonly Buffer[]): Promise<Baseline> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-catchup-engine-"));
  const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: availableParallelism() });
  try {
    const ledger = await LedgerApp.open({}, { store, pool });
    const engine = await SoloEngine.start({ blockIntervalMs: 20, txsPerBlockMax: 2_000 }, { ledger, validator: { publicKey: "00".repeat(32), power: 10 } });
    const cpu = process.cpuUsage();
    const rate = await committedRate(engine, ledger, bodies);
    const used = process.cpuUsage(cpu);
    await engine.stop();
    return { rate, cpuMicrosPerTx: (used.user + used.system) / bodies.length };
  } finally {
    await pool.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-catchup-"));
  try {
    const first = await engineBaseline(signCreates(baselineTxs, "baseline"));
    const baselineBefore = first.rate;
    console.log(`same-run baseline: the solo engine commits ${fmt(baselineBefore)} CREATEs/s (${fmt(baselineTxs)} posted at once, empty SQLite ledger), ` +
      `${first.cpuMicrosPerTx.toFixed(0)} µs of CPU a transaction`);
    const manifest = createTestnet({ validators: 1, dir, basePort, cometbft: defaultCometBftBinary(), logLevel: "warn" });
    const bodies = signCreates(committedTxs, "catchUp");
    await startTestnet(dir);
    const validator = manifest.nodes[0]!;
    await commitAll(validator, bodies);
    await sleep(1_000);
    const target = (await appState(validator))!;
    const height = Number(target.split("/")[0]);
    console.log(`the network: 1 validator, ${fmt(committedTxs)} transactions committed in ${fmt(height)} blocks`);
    // The joining node verifies on as many threads as a node on its own machine does by default
    // (server.threads): the testnet's default of none is for several validators sharing the
    // cores, and here the validator is idle once the network has committed.
    const { node, index } = addTestnetNode(dir, { logLevel: "warn", threads: preparePoolOptionsDefault.threads });
    if (joinerDatabase !== undefined) {
      // The experiment of LEDGERD_BENCH_CATCHUP_DATABASE: the joining node's store otherwise set.
      const database = setNodeDatabaseSettings(join(dir, node.dataDir, "config.json"), joinerDatabase);
      console.log(`the joining node runs with database settings ${JSON.stringify(database)}`);
    }
    if (joinerLedger !== undefined) {
      const ledger = setNodeSettings(join(dir, node.dataDir, "config.json"), "ledger", joinerLedger);
      console.log(`the joining node runs with ledger settings ${JSON.stringify(ledger)}`);
    }
    // Where the replay's CPU goes: each node's ledgerd and CometBFT processes, and the machine.
    const groupOf = (cmdline: string, comm: string): string | null => {
      const who = cmdline.includes(join(dir, node.home)) || cmdline.includes(join(dir, node.dataDir)) ? "joining node"
        : cmdline.includes(join(dir, validator.home)) || cmdline.includes(join(dir, validator.dataDir)) ? "validator" : null;
      return who === null ? null : `${who}: ${comm === "cometbft" ? "CometBFT" : "ledgerd"}`;
    };
    const cpuBefore = processCpuMs(groupOf);
    const machineBefore = machineCpuMs();
    const started = performance.now();
    const ledgerd = { args: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, runnableModule(import.meta.url, "../src/cli/main")], cwd: process.cwd() };
    await startTestnet(dir, { nodes: [index], ...(profileDir === undefined ? {} : { launch: () => ({ ledgerd }) }) });
    // Polled through CometBFT's status (its block store's height) until the last block, not the
    // ledger's ABCI Info: an Info waits for the write of the last committed block, which the
    // node otherwise makes beside the next block's verification (abciApp.ts, `commit`).
    let firstBlockAt: number | null = null; // the start-up's share of the time
    for (let stored = await chainHeight(node); stored < height; stored = await chainHeight(node)) {
      if (firstBlockAt === null && stored > 0) firstBlockAt = performance.now();
      await sleep(50);
    }
    while ((await appState(node)) !== target) await sleep(50);
    const seconds = (performance.now() - started) / 1000;
    const cpuUsed = [...processCpuMs(groupOf)].map(([group, ms]): [string, number] => [group, ((ms - (cpuBefore.get(group) ?? 0)) * 1000) / committedTxs]);
    const cpu = cpuUsed.map(([group, micros]) => `${group} ${micros.toFixed(0)}`);
    const replayCpu = cpuUsed.reduce((sum, [, micros]) => sum + micros, 0);
    const joiningLedgerdCpu = cpuUsed.find(([group]) => group === "joining node: ledgerd")?.[1] ?? Number.NaN;
    // The joining ledgerd's threads by name (the main thread, the verify threads, ...): all of
    // their CPU since the node started, which is the replay and its start-up.
    const joiningPid = ledgerdPidOf(join(dir, node.dataDir));
    const threads = joiningPid === null ? [] : [...threadCpuMs(joiningPid)].sort((a, b) => b[1] - a[1])
      .map(([group, ms]) => `${group} ${((ms * 1000) / committedTxs).toFixed(0)}`);
    const machine = [...machineCpuMs()].map(([state, ms]) => `${state} ${((ms - (machineBefore.get(state) ?? 0)) / 1000 / seconds).toFixed(2)}`);
    await stopTestnet(dir);
    const second = await engineBaseline(signCreates(baselineTxs, "baseline-after"));
    const baselineAfter = second.rate;
    const baseline = (baselineBefore + baselineAfter) / 2;
    console.log(`same-run baseline again, after the replay: ${fmt(baselineAfter)} CREATEs/s, ${second.cpuMicrosPerTx.toFixed(0)} µs of CPU a transaction; ` +
      `the ratios below are to the mean, ${fmt(baseline)}`);
    if (firstBlockAt !== null) {
      // The goal's figure: the replay itself. Before it, CometBFT's block sync waits a fixed 3 s
      // for peers before it asks for any block (v0.38 blocksync/pool.go, peerConnWait).
      const startUp = (firstBlockAt - started) / 1000;
      const replayRate = committedTxs / (seconds - startUp);
      console.log(`the joining node's first block was applied ${startUp.toFixed(1)} s after its start (CometBFT's block sync waits 3 s for peers); ` +
        `from there ${fmt(replayRate)} transactions/s replayed: ${(replayRate / baseline).toFixed(2)} of the engine's committed rate ` +
        `(${(replayRate / baselineBefore).toFixed(2)} of the first baseline alone; goal >= 0.8)`);
    }
    // Ratios of CPU, which the machine's load moves less than rates: to the replay's four
    // processes, and to the joining ledgerd alone (the engine has no CometBFT beside it).
    const engineCpu = (first.cpuMicrosPerTx + second.cpuMicrosPerTx) / 2;
    console.log(`CPU per replayed transaction (µs): ${cpu.join(", ")}; all four processes ${replayCpu.toFixed(0)}; ` +
      `the engine's (${engineCpu.toFixed(0)}) is ${(engineCpu / replayCpu).toFixed(2)} of the four's, ${(engineCpu / joiningLedgerdCpu).toFixed(2)} of the joining ledgerd's`);
    console.log(`the joining ledgerd's threads, CPU per replayed transaction (µs): ${threads.join(", ")}`);
    console.log(`machine's cores by state during the replay (on average): ${machine.join(", ")}`);
    console.log(`an added full node reached the same height and app hash in ${seconds.toFixed(1)} s: ` +
      `${fmt(height / seconds)} blocks/s, ${fmt(committedTxs / seconds)} transactions/s with the start-up, ` +
      `${(committedTxs / seconds / baseline).toFixed(2)} of the engine's committed rate`);
  } finally {
    await stopTestnet(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The height of the blocks CometBFT holds (its block store's; it applies each right after storing it); 0 while it is down. */
async function chainHeight(node: TestnetNode): Promise<number> {
  try {
    const body = (await (await fetch(`http://${node.rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
    return Number(body.result.sync_info.latest_block_height);
  } catch {
    return 0;
  }
}

/** The pid of the ledgerd process running on this data directory, if one is. */
function ledgerdPidOf(dataDir: string): number | null {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const comm = readFileSync(`/proc/${entry}/comm`, "utf8").trim();
      if (cmdline.includes(dataDir) && comm !== "cometbft") return Number(entry);
    } catch {
      // exited meanwhile
    }
  }
  return null;
}
