// A real node for the benchmarks that measure one: `ledgerd` in a child process (init, start,
// stop), its memory as /proc reports it, and a store filled directly, before the node starts,
// with records that need no signing (a million committed transactions in seconds, not hours).
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readNodeKey } from "../src/node/nodeKey.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import { makeKeypair } from "../src/transaction/builders/makeKeypair.js";
import { signTx } from "../src/transaction/builders/signTx.js";

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
  return spawn(process.execPath, ["--import", "tsx", cli, ...args, "--data_dir", dataDir], { stdio: ["ignore", "pipe", "inherit"], env });
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
  const pids = [pid];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
    if (children !== "") pids.push(...children.split(/\s+/).map(Number));
  }
  let rss = 0;
  let anon = 0;
  for (const each of pids) {
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

/** The most resident memory the node's main process has held, in MiB. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** A condition URI the fills give every output: the store keeps it, nothing checks it. */
export const fillConditionUri = "ni:///sha-256;x?fpt=ed25519-sha-256&cost=131072";

/**
 * The store of an initialised data folder, its chain begun as `ledgerd start` would, and one
 * real signed CREATE's JSON to store as the body of every filled record, and the node's key.
 */
export async function openForFill(dataDir: string): Promise<{ store: SqliteStore; template: string; nodeKey: string }> {
  const key = readNodeKey(dataDir);
  if (key === null) throw new Error("no node key");
  const store = SqliteStore.open({ path: join(dataDir, "ledgerd.sqlite") });
  await store.initChain("ledgerd-solo", [{ publicKey: key.publicKeyHex, power: 10 }]);
  const make = makeCreate({ issuers: [key.publicKey], outputs: [{ publicKeys: [key.publicKey], amount: 1n }], assetData: { fill: true }, metadata: null });
  return { store, template: JSON.stringify(signTx(make, [makeKeypair(key.seed)])), nodeKey: key.publicKey };
}
