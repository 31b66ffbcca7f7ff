// `npm run chaos`: a seeded fault-injection run (issue 38). Per seed: a testnet of 4 validators
// and a full node in a temporary folder (real CometBFT and ledgerd processes, as `ledgerd
// testnet` makes and runs them, peers linked through Toxiproxy, the ledgers of the nodes
// --postgres names in one PostgreSQL server), a client workload
// (workload.ts) and the nemesis (nemesis.ts) drawn from the seed, every fault healed, each node
// made to commit a new transaction, a snapshot of every node, `verify-chain` on each data
// folder, and the checker (checker.ts) over the record. Writes to --out/seed-N/ history.jsonl,
// record.json, report.txt and summary.json; prints the report; a failing seed prints the
// command that replays it, and the exit code is 1.
//   npm run chaos -- [--seed N]... [--duration S] [--postgres I,J] [--no-join] [--out DIR] [--keep] [--plan]
//   npm run chaos:short            the CI set: fixed seeds of about a minute each
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { appState, waitForAgreement } from "../test/e2e/cometbft/network.js";
import { checkRun, formatReport } from "./checker.js";
import { ChaosCluster } from "./cluster.js";
import type { NodeSnapshot, RunRecord } from "./history.js";
import { electionProblems, joinAndElect } from "./election.js";
import {
  Nemesis, planFaults, postgresPlanFork, addedPlanFork, diskPlanFork, withPostgresKills, withAddedFaults, withDiskFaults,
  type Incident, type PlannedFault,
} from "./nemesis.js";
import {
  chaosDefaults, electionLimits, fullNodes, nemesisLimits, recoveryLimits, shortDurationMs, shortRuns, validators, workloadLimits,
  type ChaosOptions, type ChaosRun,
} from "./options.js";
import { Random } from "./random.js";
import { Recorder } from "./recorder.js";
import { committedIds, faultEventsOf } from "./recovery.js";
import { snapshotNodes, verifyChain } from "./snapshot.js";
import { summaryOf, formatSummary, type RunSummary } from "./summary.js";
import { clockTools, type ClockTools } from "../test/helpers/clockSkew.js";
import { Client, runSubscribers } from "./workload.js";

const usage = `npm run chaos -- [--seed N]... [--duration S] [--postgres I,J] [--no-join] [--out DIR] [--keep] [--plan]
npm run chaos:short

A seeded fault-injection run per seed over a testnet of ${validators} validators and ${fullNodes} full node
(nodes 0 to ${validators + fullNodes - 1}, the full node last) under a client workload, then the checker.
  --seed N        a seed to run (repeatable; default: one drawn from the clock)
  --duration S    seconds of workload and faults per seed (default ${chaosDefaults.durationMs / 1_000}; --short: ${shortDurationMs / 1_000})
  --postgres I,J  these nodes keep their ledgers in PostgreSQL (one server for the run, a
                  database per node; default: every node on SQLite), and the nemesis adds
                  kill-postgres: the server killed mid-block and started again
  --no-join       no node joins: by default node ${validators + fullNodes} joins ${electionLimits.joinAtShare * 100}% of the way in (as
                  \`ledgerd testnet add-node\`), catches up, and an election by the validators'
                  keys makes it a validator while the workload and faults go on
  --short         the CI set: ${shortRuns.map(describeRun).join("; ")}
  --out DIR       where each seed's history, record and report go (default ${chaosDefaults.outDir})
  --keep          keep the testnet's folder (logs, data) after the run
  --plan          print each seed's fault plan for the duration, and run nothing
A failing seed prints the command that replays it; the exit code is then 1.`;

function describeRun(run: ChaosRun): string {
  const postgres = run.postgresNodes.length === 0 ? "" : `, nodes ${run.postgresNodes.join(",")} on PostgreSQL`;
  return `seed ${run.seed}${postgres}${run.join ? ", a node joins and is elected" : ""}`;
}

/** The flags that replay a run. */
function runFlags(run: ChaosRun): string {
  const postgres = run.postgresNodes.length === 0 ? "" : ` --postgres ${run.postgresNodes.join(",")}`;
  return `--seed ${run.seed}${postgres}${run.join ? "" : " --no-join"}`;
}

function parseOptions(argv: readonly string[]): ChaosOptions | null {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seed: { type: "string", multiple: true },
      duration: { type: "string" },
      postgres: { type: "string" },
      "no-join": { type: "boolean", default: false },
      short: { type: "boolean", default: false },
      out: { type: "string" },
      keep: { type: "boolean", default: false },
      plan: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return null;
  const whole = (name: string, text: string): number => {
    if (!/^[0-9]+$/.test(text)) throw new Error(`--${name} must be a whole number: ${text}`);
    return Number(text);
  };
  const postgresNodes = values.postgres?.split(",").map((n) => whole("postgres", n.trim())) ?? [];
  const runOf = (seed: number): ChaosRun => ({ seed, postgresNodes, join: values["no-join"] !== true });
  const runs = values.seed?.map((s) => runOf(whole("seed", s))) ?? (values.short ? shortRuns : [runOf(Date.now() % 1_000_000)]);
  const durationDefaultMs = values.short ? shortDurationMs : chaosDefaults.durationMs;
  const durationMs = values.duration === undefined ? durationDefaultMs : whole("duration", values.duration) * 1_000;
  const outDir = resolve(values.out ?? chaosDefaults.outDir);
  return { runs, durationMs, outDir, keep: values.keep, planOnly: values.plan };
}

interface SeedResult {
  readonly record: RunRecord;
  readonly incidents: readonly Incident[];
  readonly problems: readonly string[];
}

/** One seed's run, start to snapshot; the testnet's folder is removed unless `keep`. */
async function runSeed(
  { seed, postgresNodes, join: joins }: ChaosRun, durationMs: number, keep: boolean,
): Promise<SeedResult & { root: string }> {
  const plan = planOf({ seed, postgresNodes, join: joins }, durationMs);
  console.log(`chaos: the plan: ${formatPlan(plan)}`);
  const clock = plan.some((f) => f.kind === "clock-skew") ? clockToolsTimed() : null;
  const root = mkdtempSync(join(tmpdir(), `ledgerd-chaos-${seed}-`));
  const rng = new Random(seed);
  const cluster = await ChaosCluster.create(root, postgresNodes, {
    genesisAgeMs: clock === null ? 0 : nemesisLimits.genesisAgeMs,
    twin: plan.some((f) => f.kind === "double-sign"),
  });
  // The nodes run detached: an interrupted run stops them before it ends.
  const interrupted = (): void => void cluster.stop().finally(() => {
    cluster.stopPostgres();
    process.exit(130);
  });
  process.once("SIGINT", interrupted);
  try {
    await cluster.start();
    const recorder = new Recorder();
    const ctx = { nodes: cluster.manifest.nodes, recorder, seed };
    const subscribers = new AbortController();
    const streaming = runSubscribers(ctx, subscribers.signal);
    const nemesis = new Nemesis(cluster, recorder, clock);
    const watching = new AbortController();
    const watchdog = nemesis.watch(watching.signal);
    const work = AbortSignal.timeout(durationMs);
    const clients = Array.from({ length: workloadLimits.clients }, (_, c) => new Client(ctx, c, rng.fork(c + 1)));
    const clientsDone = Promise.all(clients.map((client) => client.run(work)));
    const joinAtMs = recorder.now() + durationMs * electionLimits.joinAtShare;
    const electing = joins ? joinAndElect(cluster, recorder, joinAtMs, work) : Promise.resolve(null);
    await nemesis.run(plan, work);
    const election = await electing;
    // Probes go out at once after the last heal, while the clients' last requests finish.
    // The prober reaches every node, the one that joined too.
    const everyNode = { ...ctx, nodes: cluster.manifest.nodes };
    const prober = new Client(everyNode, clients.length, rng.fork(clients.length + 1));
    const problems = await recover(cluster, nemesis, prober);
    problems.push(...electionProblems(election));
    await clientsDone;
    problems.push(...nemesis.errors);
    if (cluster.links.restarts > 0) console.log(`chaos: Toxiproxy's API stuck at a heal; restarted ${cluster.links.restarts} time(s)`);
    watching.abort();
    await watchdog;
    const height = await agreedHeight(cluster, problems);
    // The stream sends a block once it is durable: a moment for the last ones to arrive.
    await sleep(1_000);
    subscribers.abort();
    await streaming;
    const partial = await snapshotNodes(cluster, height);
    await cluster.stop();
    const nodes = partial.map((snapshot, i) => ({ ...snapshot, verifyChainPassed: verifyChainOf(cluster, i, problems) }));
    const events = [...recorder.events, ...faultEventsOf(nemesis.ran, recorder.events, committedIds(nodes))];
    return { root, record: { seed, events, nodes, election }, incidents: nemesis.incidents, problems };
  } finally {
    process.off("SIGINT", interrupted);
    await cluster.stop().catch(() => undefined);
    cluster.stopPostgres();
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}

/** The seed's plan: its faults, the added faults, PostgreSQL kills and torn logs each from a fork of its own. */
function planOf({ seed, postgresNodes }: ChaosRun, durationMs: number): PlannedFault[] {
  const rng = new Random(seed);
  const size = validators + fullNodes;
  const seeds = planFaults(rng.fork(0), durationMs, size);
  const planned = withAddedFaults(seeds, rng.fork(addedPlanFork), size);
  const withKills = withPostgresKills(planned, rng.fork(postgresPlanFork), postgresNodes);
  return withDiskFaults(withKills, rng.fork(diskPlanFork), size, postgresNodes);
}

function formatPlan(plan: readonly PlannedFault[]): string {
  const one = (f: PlannedFault): string =>
    `${f.kind}${f.detail === undefined ? "" : ` ${f.detail}`} [${f.nodes.join(",")}] ${f.durationMs} ms`;
  return plan.map(one).join(", ");
}

/**
 * The clock-offset CometBFT and libfaketime, for a plan with clock skew: built once (minutes the
 * first time; kept in .cache), its time said. A run that cannot have them stops here.
 */
function clockToolsTimed(): ClockTools {
  const startedMs = Date.now();
  try {
    const tools = clockTools();
    const tookMs = Date.now() - startedMs;
    console.log(`chaos: the plan moves clocks: the clock-offset CometBFT ready in ${tookMs} ms`);
    return tools;
  } catch (error) {
    console.log(`chaos: the plan moves clocks and cannot: ${(error as Error).message}; the run stops`);
    process.exit(1);
  }
}

/** After the last heal: every process up, and every node commits a new transaction in time. */
async function recover(cluster: ChaosCluster, nemesis: Nemesis, prober: Client): Promise<string[]> {
  await nemesis.restartTheDead();
  const problems: string[] = [];
  await Promise.all(
    cluster.manifest.nodes.map(async (_, node) => {
      const deadline = Date.now() + recoveryLimits.recoveryMsMax;
      while (Date.now() < deadline) {
        if ((await prober.probe(node)) === 202) return;
        await sleep(workloadLimits.pollMs);
      }
      problems.push(`node ${node} committed no new transaction within ${recoveryLimits.recoveryMsMax} ms of the last heal`);
    }),
  );
  return problems;
}

/** The height every node agrees on (block and app hash); else the highest any node reached. */
async function agreedHeight(cluster: ChaosCluster, problems: string[]): Promise<number> {
  try {
    return (await waitForAgreement(cluster.manifest.nodes, 1, recoveryLimits.agreementMsMax)).height;
  } catch {
    const states = await Promise.all(cluster.manifest.nodes.map(appState));
    const heights = states.map((s) => (s === null ? "down" : `${s.height}`)).join(", ");
    problems.push(`the nodes did not agree on a height and app hash: ${heights}`);
    return Math.max(...states.map((s) => s?.height ?? 0));
  }
}

function verifyChainOf(cluster: ChaosCluster, node: number, problems: string[]): boolean {
  const result = verifyChain(join(cluster.root, cluster.node(node).dataDir));
  if (!result.passed) problems.push(`verify-chain failed on node ${node}: ${result.output.slice(0, 500)}`);
  return result.passed;
}

function writeOutputs(dir: string, result: SeedResult, reportText: string, summary: RunSummary): void {
  mkdirSync(dir, { recursive: true });
  const recorder = new Recorder();
  for (const event of result.record.events) recorder.add(event);
  writeFileSync(join(dir, "history.jsonl"), recorder.jsonLines());
  const nodes = result.record.nodes.map((n: NodeSnapshot) => ({ ...n, transactions: Object.fromEntries(n.transactions) }));
  writeFileSync(join(dir, "record.json"), `${JSON.stringify({ ...result.record, nodes })}\n`);
  writeFileSync(join(dir, "report.txt"), reportText);
  writeFileSync(join(dir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === null) {
    console.log(usage);
    return;
  }
  if (options.planOnly) {
    for (const run of options.runs) {
      console.log(`seed ${run.seed}: ${formatPlan(planOf(run, options.durationMs))}`);
    }
    return;
  }
  const failed: number[] = [];
  for (const run of options.runs) {
    const seed = run.seed;
    console.log(`chaos: ${describeRun(run)}, ${options.durationMs / 1_000} s`);
    const result = await runSeed(run, options.durationMs, options.keep);
    const report = checkRun(result.record);
    const summary = summaryOf(result.record, result.incidents, result.problems);
    const text = `${formatReport(report)}\n${formatSummary(summary)}\n`;
    writeOutputs(join(options.outDir, `seed-${seed}`), result, text, summary);
    console.log(text);
    if (options.keep) console.log(`chaos: the testnet is kept in ${result.root}`);
    if (!report.ok || result.incidents.length > 0 || result.problems.length > 0) {
      failed.push(seed);
      const replay = `npm run chaos -- ${runFlags(run)} --duration ${options.durationMs / 1_000} --keep`;
      console.log(`chaos: seed ${seed} FAILED; replay: ${replay}`);
    }
  }
  console.log(`chaos: ${options.runs.length - failed.length} of ${options.runs.length} seeds passed; written to ${options.outDir}`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

await main();
