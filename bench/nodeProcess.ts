// A real node for the benchmarks that measure one: `ledgerd` in a child process (init, start,
// stop), its memory as /proc reports it, and a store filled directly, before the node starts,
// with records that need no signing (a million committed transactions in seconds, not hours).
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ChainCommitment } from "../src/ledger/commitment.js";
import { readNodeKey } from "../src/node/nodeKey.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import { makeKeypair } from "../src/transaction/builders/makeKeypair.js";
import { signTx } from "../src/transaction/builders/signTx.js";
import type { CommittedTx } from "../src/transaction/committed.js";

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
  return spawn(process.execPath, [...profiling, "--import", "tsx", cli, ...args, "--data_dir", dataDir], { stdio: ["ignore", "pipe", "inherit"], env });
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
  const exited = new Promise((resolve) => node.proc.once("exit", resolve));
  node.proc.kill("SIGTERM");
  await exited;
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
      // pid (comm) state ...: comm may hold spaces, so the fields are counted after its ')'.
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
      const group = Number(task) === each ? (each === pid ? "main" : "worker process main") : comm;
      groups.set(group, (groups.get(group) ?? 0) + ms);
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
  return { store, template: JSON.stringify(signTx(make, [makeKeypair(key.seed)])), nodeKey: key.publicKey, commit };
}
