// A real node for the benchmarks that measure one: `ledgerd` in a child process (init, start,
// stop), its memory as /proc reports it, and a store filled directly, before the node starts,
// with records that need no signing (a million committed transactions in seconds, not hours).
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ChainCommitment } from "../src/ledger/commitment.js";
import { readNodeKey } from "../src/node/nodeKey.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import { makeKeypair } from "../src/transaction/builders/makeKeypair.js";
import { signTx } from "../src/transaction/builders/signTx.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { fmt, inVerifies, percentile } from "./lib.js";

const cli = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));

export interface BenchNode {
  readonly proc: ChildProcess;
  /** host:port of the HTTP API. */
  readonly http: string;
  /** `http://host:port`. */
  readonly base: string;
  readonly streams: string;
  /** The metrics' URL, when the node was started with them. */
  readonly metrics: string | null;
}

/** `ledgerd <args> --data_dir <dataDir>`, stdout piped, stderr inherited. */
export function ledgerd(args: readonly string[], dataDir: string): ChildProcess {
  // The node refuses unknown LEDGERD_* variables, and the benchmark's own are not its settings.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_BENCH_")));
  // LEDGERD_BENCH_CPU_PROF=<dir>: V8's CPU profile of each of the node's threads, written there
  // when it exits (bench/cpuProfileSummary.ts sums one up by where the time went).
  const profileDir = process.env["LEDGERD_BENCH_CPU_PROF"];
  const profiling = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];
  // LEDGERD_BENCH_NODE_FLAGS="--flag ...": Node's and V8's own flags for the node, for experiments.
  const flags = (process.env["LEDGERD_BENCH_NODE_FLAGS"] ?? "").split(" ").filter((flag) => flag !== "");
  return spawn(process.execPath, [...flags, ...profiling, "--import", "tsx", cli, ...args, "--data_dir", dataDir], { stdio: ["ignore", "pipe", "inherit"], env });
}

/** Runs a command to its end (e.g. `init`); a non-zero exit throws. */
export async function runCli(command: readonly string[], dataDir: string): Promise<void> {
  const proc = ledgerd(command, dataDir);
  const code = await new Promise((resolve) => proc.on("exit", resolve));
  if (code !== 0) throw new Error(`ledgerd ${command.join(" ")} exited ${String(code)}`);
}

/** `ledgerd start` on free local ports, resolved once it logs that it started. */
export async function startNode(dataDir: string, extraArgs: readonly string[] = []): Promise<BenchNode> {
  const args = ["start", "--server.bind", "127.0.0.1:0", "--wsserver.bind", "127.0.0.1:0", "--log.level", "info", ...extraArgs];
  const proc = ledgerd(args, dataDir);
  let out = "";
  return new Promise((resolve, reject) => {
    proc.on("exit", (code) => reject(new Error(`node exited ${String(code)}`)));
    proc.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const line = out.split("\n").find((l) => l.includes('"ledgerd started"'));
      if (line === undefined) return;
      const started = JSON.parse(line) as { http: string; streamsUrl: string; metrics: string | null };
      proc.stdout!.removeAllListeners("data");
      proc.stdout!.resume();
      const metrics = started.metrics === null ? null : `http://${started.metrics}/metrics`;
      resolve({ proc, http: started.http, base: `http://${started.http}`, streams: started.streamsUrl, metrics });
    });
  });
}

/** SIGTERM, resolved when the node has exited. */
export async function stopNode(node: BenchNode): Promise<void> {
  await stopChild(node.proc);
}

/**
 * SIGTERM, then SIGKILL after `killAfterMs` (never, by default), resolved when the process has
 * exited; at once if it already has.
 */
export async function stopChild(child: ChildProcess, killAfterMs = Infinity): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = Number.isFinite(killAfterMs) ? setTimeout(() => child.kill("SIGKILL"), killAfterMs) : null;
  await exited;
  if (timer !== null) clearTimeout(timer);
}

/** The resident memory of the node: its process and its HTTP workers, in MiB. */
export function rssMiB(pid: number): number {
  return memoryMiB(pid).rss;
}

/**
 * The node's resident memory (its process and its HTTP workers), in MiB: all of it, and the
 * anonymous part alone (heaps, buffers). The rest is the database file's pages mapped in
 * (`database.mmap_size_bytes`): the kernel's cache, shared and dropped under pressure, which
 * grows with every page a read touches; a node that holds a whole answer grows the anonymous part.
 */
export function memoryMiB(pid: number): { rss: number; anon: number } {
  let rss = 0;
  let anon = 0;
  for (const each of nodeProcesses(pid)) {
    try {
      const status = readFileSync(`/proc/${each}/status`, "utf8");
      rss += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      anon += Number(/RssAnon:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
    } catch {
      // A worker that exited meanwhile.
    }
  }
  return { rss: rss / 1024, anon: anon / 1024 };
}

/** The node's process and its children (the HTTP workers), as /proc lists them now. */
function nodeProcesses(pid: number): number[] {
  const pids = [pid];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
    if (children !== "") pids.push(...children.split(/\s+/).map(Number));
  }
  return pids;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux everywhere). */
const ticksPerSecond = 100;

/**
 * CPU time (user + system, ms) of each thread of the node and of its HTTP workers, grouped by
 * what the thread is: each process's main thread (`main`, or `worker process` for the children),
 * and the others by the name the kernel knows them by (Node's worker threads are `node`,
 * libuv's pool `libuv-worker`, V8's garbage collector helpers `V8 DefaultWorke`).
 */
/** What /proc/<id>/stat says of a process or thread: its name, state letter and CPU time (ms). */
function parseStat(stat: string): { comm: string; state: string; cpuMs: number } {
  // pid (comm) state ...: comm may hold spaces, so the fields are counted after its ')'.
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  return {
    comm: stat.slice(stat.indexOf("(") + 1, close),
    state: fields[0] ?? "",
    cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond, // utime + stime
  };
}

/**
 * Merges `json` (an object of database settings, as an environment variable gives it) into the
 * `database` section of a testnet node's config.json, for experiments; returns the section.
 */
export function setNodeDatabaseSettings(configFile: string, json: string): Record<string, unknown> {
  return setNodeSettings(configFile, "database", json);
}

/** Merges `json` (an object of settings) into the `section` of a testnet node's config.json; returns the section. */
export function setNodeSettings(configFile: string, section: string, json: string): Record<string, unknown> {
  const config = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, Record<string, unknown> | undefined>;
  const merged = { ...config[section], ...(JSON.parse(json) as Record<string, unknown>) };
  writeFileSync(configFile, JSON.stringify({ ...config, [section]: merged }));
  return merged;
}

/**
 * The whole machine's CPU time by state since boot (ms, summed over cores), from /proc/stat:
 * what no process's own counters show (the hypervisor's steal, interrupts, idle).
 */
export function machineCpuMs(): Map<string, number> {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  return new Map(names.map((name, i) => [name, ((values[i] ?? 0) * 1000) / ticksPerSecond]));
}

/**
 * CPU time (ms, user and system, all threads) of every process on the machine, summed by the
 * group `groupOf` names from its command line and kernel name (null: not counted).
 */
export function processCpuMs(groupOf: (cmdline: string, comm: string) => string | null): Map<string, number> {
  return processCpuMsBy(groupOf, (pid, stat) => [["", parseStat(stat).cpuMs]]);
}

/**
 * The same by thread, the groups' names followed by the thread's: "main" or its kernel name
 * (Node's V8 helper threads are all `node`), e.g. `ledgerd (4 processes) ledgerd-ckpt`.
 */
export function processThreadCpuMs(groupOf: (cmdline: string, comm: string) => string | null): Map<string, number> {
  return processCpuMsBy(groupOf, (pid) => {
    try {
      return [...threadCpuMs(pid)].map(([thread, ms]): [string, number] => [` ${thread}`, ms]);
    } catch {
      return []; // exited meanwhile
    }
  });
}

function processCpuMsBy(
  groupOf: (cmdline: string, comm: string) => string | null,
  parts: (pid: number, stat: string) => readonly (readonly [string, number])[],
): Map<string, number> {
  const groups = new Map<string, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let cmdline: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue; // exited meanwhile
    }
    const group = groupOf(cmdline, parseStat(stat).comm);
    if (group === null) continue;
    for (const [part, ms] of parts(Number(entry), stat)) groups.set(group + part, (groups.get(group + part) ?? 0) + ms);
  }
  return groups;
}

/** What one sample saw a thread doing, from its /proc stat and syscall files. */
type ThreadState = "running" | "waiting for events" | "waiting on disk" | "asleep otherwise";

function threadState(pid: number, tid: string): ThreadState | null {
  try {
    const { state } = parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
    if (state === "R") return "running";
    if (state === "D") return "waiting on disk";
    const syscall = readFileSync(`/proc/${pid}/task/${tid}/syscall`, "utf8").split(" ")[0];
    return syscall === "232" || syscall === "281" ? "waiting for events" : "asleep otherwise"; // epoll_wait, epoll_pwait
  } catch {
    return null; // exited meanwhile
  }
}

/**
 * Samples every `everyMs` what the node's main thread and its `busiest` most working other
 * threads are doing ("running" includes runnable, waiting for a core), until `stop` is called;
 * `stop` returns each state's share per thread and how often the main thread ran while all the
 * others slept. Reading /proc costs this process ~20 µs a thread a sample.
 */
export function sampleThreadStates(pid: number, busiest: number, everyMs: number): { stop: () => string[] } {
  const cpuOf = (tid: string): number => parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")).cpuMs;
  const before = new Map(readdirSync(`/proc/${pid}/task`).map((tid) => [tid, cpuOf(tid)]));
  const samples: (ThreadState | null)[][] = [];
  let watched: string[] = [String(pid)];
  // The busiest threads are known only after some work: chosen again after the first second.
  const choose = setTimeout(() => {
    const others = [...before].filter(([tid]) => tid !== String(pid))
      .map(([tid, cpu]) => ({ tid, used: cpuOf(tid) - cpu }))
      .sort((a, b) => b.used - a.used).slice(0, busiest).map((t) => t.tid);
    watched = [String(pid), ...others];
    samples.length = 0;
  }, 1_000);
  const timer = setInterval(() => {
    if (watched.length > 1) samples.push(watched.map((tid) => threadState(pid, tid)));
  }, everyMs);
  return {
    stop: () => {
      clearTimeout(choose);
      clearInterval(timer);
      const share = (n: number) => `${((100 * n) / Math.max(samples.length, 1)).toFixed(0)} %`;
      const lines = watched.map((_, i) => {
        const counts = new Map<string, number>();
        for (const sample of samples) counts.set(sample[i] ?? "gone", (counts.get(sample[i] ?? "gone") ?? 0) + 1);
        const states = [...counts].sort((a, b) => b[1] - a[1]).map(([state, n]) => `${state} ${share(n)}`);
        return `${i === 0 ? "main thread" : `busy thread ${i}`}: ${states.join(", ")}`;
      });
      const mainAlone = samples.filter((s) => s[0] === "running" && s.slice(1).every((t) => t !== "running")).length;
      const noneRunning = samples.filter((s) => s.every((t) => t !== "running")).length;
      lines.push(`main thread running while the others sleep: ${share(mainAlone)}; none running: ${share(noneRunning)} (${samples.length} samples)`);
      return lines;
    },
  };
}

/** What each key of two readings of CPU time (`threadCpuMs`, `machineCpuMs`, ...) spent between them. */
export function cpuSince(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...after].map(([key, ms]) => [key, ms - (before.get(key) ?? 0)]));
}

export function threadCpuMs(pid: number): Map<string, number> {
  const groups = new Map<string, number>();
  for (const each of nodeProcesses(pid)) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${each}/task`);
    } catch {
      continue; // a worker that exited meanwhile
    }
    for (const task of tasks) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${each}/task/${task}/stat`, "utf8");
      } catch {
        continue;
      }
      const { comm, cpuMs } = parseStat(stat);
      const group = Number(task) === each ? (each === pid ? "main" : "worker process main") : comm;
      groups.set(group, (groups.get(group) ?? 0) + cpuMs);
    }
  }
  return groups;
}

/** The most resident memory the node's main process has held, in MiB. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** A condition URI the fills give every output: the store keeps it, nothing checks it. */
export const fillConditionUri = "ni:///sha-256;x?fpt=ed25519-sha-256&cost=131072";

/** A store being filled, before the node starts on it. */
export interface FillStore {
  readonly store: SqliteStore;
  /** One real signed CREATE's JSON, stored as the body of every filled record. */
  readonly template: string;
  /**
   * The id the template hashes to: the one filled record a GET by id can serve (the API checks
   * that a stored transaction hashes to its id), so a bench that reads one by id gives it this.
   */
  readonly templateId: string;
  readonly nodeKey: string;
  /** Commits the next block of `txs`, with the app hash and history the chain's rule gives. */
  commit(txs: readonly CommittedTx[]): Promise<void>;
}

/**
 * The store of an initialised data folder, its chain begun as `ledgerd start` would, and how to
 * commit blocks to it: each with its app hash by the chain's own rule (commitment v1), so that
 * the node goes on from the filled history and its proofs hold.
 */
export async function openForFill(dataDir: string): Promise<FillStore> {
  const key = readNodeKey(dataDir);
  if (key === null) throw new Error("no node key");
  const store = SqliteStore.open({ path: join(dataDir, "ledgerd.sqlite") });
  await store.initChain("ledgerd-solo", [{ publicKey: key.publicKeyHex, power: 10 }]);
  const make = makeCreate({ issuers: [key.publicKey], outputs: [{ publicKeys: [key.publicKey], amount: 1n }], assetData: { fill: true }, metadata: null });
  const state = await store.getChainState();
  const commitment = await ChainCommitment.open(store, state);
  let height = state.height;
  const commit = async (txs: readonly CommittedTx[]): Promise<void> => {
    height++;
    const staged = commitment.next(height, txs.map((tx) => tx.id));
    await store.commitBlock({ height, appHash: staged.appHash, txs: [...txs], ...(staged.history === undefined ? {} : { history: staged.history }) });
    commitment.advance(staged);
  };
  const signed = signTx(make, [makeKeypair(key.seed)]);
  return { store, template: JSON.stringify(signed), templateId: String(signed["id"]), nodeKey: key.publicKey, commit };
}

/** The keep-alive agent of the benchmarks' many clients. */
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** GETs `url`, reading and dropping the body: status, bytes, ms. */
export function getDropping(url: string, using: Agent = agent): Promise<{ status: number; bytes: number; ms: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: using }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - start }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** One GET of a whole answer: its status, size and time, and the node's memory around it. */
export async function wholeRead(node: BenchNode, label: string, url: string): Promise<void> {
  const pid = node.proc.pid!;
  const before = memoryMiB(pid);
  const peak = { ...before };
  const sampler = setInterval(() => {
    const now = memoryMiB(pid);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.anon = Math.max(peak.anon, now.anon);
  }, 20);
  const answer = await getDropping(url);
  clearInterval(sampler);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = memoryMiB(pid);
  console.log(`${label}: ${answer.status}, ${fmt(answer.bytes / 2 ** 20)} MiB in ${fmt(answer.ms)} ms ${inVerifies(answer.ms)}; ` +
    `node RSS ${before.rss.toFixed(0)} MiB before, ${peak.rss.toFixed(0)} at most during, ${after.rss.toFixed(0)} after; ` +
    `of it anonymous (not the database's mapped pages) ${before.anon.toFixed(0)}, ${peak.anon.toFixed(0)}, ${after.anon.toFixed(0)}`);
}

/**
 * GET /api/v1/transactions/{someId}, one at a time on a connection of its own, while `clients`
 * clients read `urls` in turn for `seconds`: its p50, p99 and longest, what the expensive reads
 * got (200, 503 from server.expensive_reads_max, other) and the node's RSS at most.
 */
export async function getByIdUnderLoad(node: BenchNode, someId: string, urls: readonly string[], clients: number, seconds: number): Promise<void> {
  const end = performance.now() + seconds * 1000;
  const counts = { done: 0, refused: 0, failed: 0 };
  const expensive = async (i: number): Promise<void> => {
    while (performance.now() < end) {
      const { status } = await getDropping(urls[i % urls.length]!);
      if (status === 200) counts.done++;
      else if (status === 503) counts.refused++;
      else counts.failed++;
    }
  };
  const cheapAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const cheap = async (): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, 500)); // the load first
    while (performance.now() < end) {
      const { status, ms } = await getDropping(`${node.base}/api/v1/transactions/${someId}`, cheapAgent);
      if (status !== 200) throw new Error(`GET by id answered ${status}`);
      latencies.push(ms);
    }
  };
  const pid = node.proc.pid!;
  let peak = rssMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  await Promise.all([cheap(), ...Array.from({ length: clients }, (_, i) => expensive(i))]);
  clearInterval(sampler);
  cheapAgent.destroy();
  latencies.sort((a, b) => a - b);
  console.log(`  GET by id under load: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms ${inVerifies(percentile(latencies, 99))}, ` +
    `longest ${latencies.at(-1)?.toFixed(1) ?? "-"} ms (${fmt(latencies.length)} requests); expensive reads: ${fmt(counts.done / seconds)}/s answered, ` +
    `${fmt(counts.refused)} 503, ${counts.failed} other; node RSS at most ${peak.toFixed(0)} MiB`);
}
