// Running a testnet's processes (`ledgerd testnet start | stop`): per node a ledgerd, then its
// CometBFT, detached, with pid and log files in the node's folder; stopped in the reverse order.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { failpointsEnv } from "../failpoints.js";
import { commandLineOf, isRunning, packageRoot } from "../engine/cometbft/cometBftSupervisor.js";
import { readManifest, type TestnetManifest, type TestnetNode } from "./manifest.js";
import { runnableModule } from "../workerThread.js";

/** How long start waits for a node's HTTP API and then its CometBFT RPC. */
export const readyTimeoutMsDefault = 60_000;
/** How long stop waits for a process after SIGTERM before SIGKILL. */
export const stopTimeoutMsDefault = 15_000;
const pollMs = 50;

export type TestnetProcess = "ledgerd" | "cometbft";

export interface NodeSelection {
  /** Node indexes; default all. */
  readonly nodes?: readonly number[];
}

export interface StartTestnetOptions extends NodeSelection {
  readonly readyTimeoutMs?: number;
  /** The ledgerd processes started get this LEDGERD_TEST_FAILPOINTS (a test's crash points, src/failpoints.ts). */
  readonly failpoints?: string;
  /**
   * For tests of faults: how a node's processes run other than as the testnet's plan says (a
   * CometBFT build with its clock moved, a ledgerd under libfaketime); the plan is not changed.
   */
  readonly launch?: (node: TestnetNode) => NodeLaunch | undefined;
}

export interface NodeLaunch {
  /** This node's CometBFT binary instead of the manifest's. */
  readonly cometbft?: string;
  /**
   * This node's ledgerd instead of this one's: node's arguments before `start` (another
   * release's `main.js`, or `--import tsx` and its `main.ts`), run from that release's folder.
   */
  readonly ledgerd?: { readonly args: readonly string[]; readonly cwd: string };
  /** Variables added to each process's environment. */
  readonly env?: Partial<Record<TestnetProcess, Readonly<Record<string, string>>>>;
}

/**
 * Starts the selected nodes: ledgerd first (CometBFT needs its ABCI server), then CometBFT; a
 * process already running is left alone. Resolves when every selected CometBFT answers RPC.
 */
export async function startTestnet(dir: string, options: StartTestnetOptions = {}): Promise<void> {
  const root = resolve(dir);
  const manifest = readManifest(root);
  const timeoutMs = options.readyTimeoutMs ?? readyTimeoutMsDefault;
  const selected = selectNodes(manifest, options);
  await Promise.all(selected.map((node) => stopOrphanedCometBft(root, node, stopTimeoutMsDefault)));
  // ledgerd of every node first, in parallel; then every CometBFT, so that peers find each other.
  await Promise.all(
    selected.map((node) =>
      startOne(root, node, "ledgerd", timeoutMs, {
        ports: [node.http, node.ws, node.abci],
        command: process.execPath,
        args: [...(options.launch?.(node)?.ledgerd?.args ?? ledgerdEntry()), "start", "--data_dir", join(root, node.dataDir)],
        cwd: options.launch?.(node)?.ledgerd?.cwd ?? packageRoot(),
        env: {
          ...(options.failpoints === undefined ? {} : { [failpointsEnv]: options.failpoints }),
          ...options.launch?.(node)?.env?.ledgerd,
        },
        readyUrl: `http://${node.http}/`,
      }),
    ),
  );
  await Promise.all(
    selected.map((node) =>
      startOne(root, node, "cometbft", timeoutMs, {
        ports: [node.rpc, node.p2p],
        command: options.launch?.(node)?.cometbft ?? manifest.cometbft,
        args: ["start", "--home", join(root, node.home)],
        cwd: packageRoot(),
        env: { ...options.launch?.(node)?.env?.cometbft },
        readyUrl: `http://${node.rpc}/status`,
      }),
    ),
  );
}

interface ProcessPlan {
  readonly ports: readonly string[];
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Added to the environment (which has no LEDGERD_* variable of the caller's). */
  readonly env?: Readonly<Record<string, string>>;
  readonly readyUrl: string;
}

/** Starts one process of a node unless it runs, and waits until `readyUrl` answers. */
async function startOne(
  root: string,
  node: TestnetNode,
  which: "ledgerd" | "cometbft",
  timeoutMs: number,
  how: ProcessPlan,
): Promise<void> {
  if (runningPid(root, node, which) !== null) return;
  await assertPortsFree(node, which, how.ports);
  const child = startProcess(root, node, which, how);
  await waitUntil(() => httpAnswers(how.readyUrl), timeoutMs, () => exitedError(root, node, which, child));
}

/**
 * A CometBFT whose ledgerd is gone has lost its application for good: CometBFT never reconnects
 * to the app, and the ledgerd about to start needs it to run its handshake again. It usually
 * exits by itself (it sends itself SIGTERM when an ABCI connection ends), but its shutdown can
 * hang (cometbft/cometbft#4054; seen here under load, still running after 60 s), and then a
 * restart would leave the new ledgerd without an engine. Stopped here (SIGTERM, then SIGKILL
 * after `timeoutMs`, which CometBFT's write-ahead log is made for). Answers whether it stopped one.
 */
export async function stopOrphanedCometBft(root: string, node: TestnetNode, timeoutMs: number): Promise<boolean> {
  if (runningPid(root, node, "ledgerd") !== null || runningPid(root, node, "cometbft") === null) return false;
  await stopProcess(root, node, "cometbft", timeoutMs);
  return true;
}

export interface StopTestnetOptions extends NodeSelection {
  readonly timeoutMs?: number;
}

/** Stops the selected nodes: CometBFT first (it stops calling the app), then ledgerd. */
export async function stopTestnet(dir: string, options: StopTestnetOptions = {}): Promise<void> {
  const root = resolve(dir);
  const manifest = readManifest(root);
  const timeoutMs = options.timeoutMs ?? stopTimeoutMsDefault;
  const selected = selectNodes(manifest, options);
  await Promise.all(selected.map((node) => stopProcess(root, node, "cometbft", timeoutMs)));
  await Promise.all(selected.map((node) => stopProcess(root, node, "ledgerd", timeoutMs)));
}

/** The pid of a node's process if its pid file names one that is alive and ours, else null. */
export function runningPid(root: string, node: TestnetNode, which: TestnetProcess): number | null {
  const file = pidFile(root, node, which);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid) || !isOurs(pid, root, node, which)) return null;
  return pid;
}

export function pidFile(root: string, node: TestnetNode, which: TestnetProcess): string {
  return join(root, node.name, `${which}.pid`);
}

export function logFile(root: string, node: TestnetNode, which: TestnetProcess): string {
  return join(root, node.name, `${which}.log`);
}

async function stopProcess(root: string, node: TestnetNode, which: TestnetProcess, timeoutMs: number): Promise<void> {
  const pid = runningPid(root, node, which);
  if (pid !== null) {
    signal(pid, "SIGTERM");
    const deadline = Date.now() + timeoutMs;
    while (isRunning(pid) && Date.now() < deadline) await sleep(pollMs);
    if (isRunning(pid)) signal(pid, "SIGKILL");
    while (isRunning(pid)) await sleep(pollMs);
  }
  rmSync(pidFile(root, node, which), { force: true });
}

/** Spawns a node's process detached (it outlives `testnet start`), logging to its file. */
function startProcess(root: string, node: TestnetNode, which: TestnetProcess, how: ProcessPlan) {
  const log = openSync(logFile(root, node, which), "a");
  try {
    const env = { ...childEnv(), ...how.env };
    const child = spawn(how.command, how.args, { cwd: how.cwd, detached: true, stdio: ["ignore", log, log], env });
    if (child.pid === undefined) throw new Error(`${which} of ${node.name} did not start (${how.command})`);
    writeFileSync(pidFile(root, node, which), `${child.pid}\n`);
    child.unref();
    return child;
  } finally {
    closeSync(log);
  }
}

/** LEDGERD_* variables of the caller would override each node's config.json: leave them out. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("LEDGERD_")) env[name] = value;
  return env;
}

/** `node <main>` as this process runs: main.js once built, the bundle of main.ts from sources. */
function ledgerdEntry(): string[] {
  return [runnableModule(import.meta.url, "../cli/main")];
}

function selectNodes(manifest: TestnetManifest, selection: NodeSelection): TestnetNode[] {
  if (selection.nodes === undefined) return [...manifest.nodes];
  return selection.nodes.map((i) => {
    const node = manifest.nodes[i];
    if (node === undefined) throw new Error(`no node ${i}: the testnet has nodes 0 to ${manifest.nodes.length - 1}`);
    return node;
  });
}

async function waitUntil(ready: () => Promise<boolean>, timeoutMs: number, failed: () => Error | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready()) return;
    const error = failed();
    if (error !== null) throw error;
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

function exitedError(root: string, node: TestnetNode, which: TestnetProcess, child: { exitCode: number | null; signalCode: string | null }): Error | null {
  if (child.exitCode === null && child.signalCode === null) return null;
  const log = logFile(root, node, which);
  const tail = readFileSync(log, "utf8").split("\n").slice(-15).join("\n");
  return new Error(`${which} of ${node.name} exited (${child.exitCode ?? child.signalCode}); end of ${log}:\n${tail}`);
}

/**
 * A port something else listens on would make the readiness check pass for the wrong process
 * (or the new one fail): say so before starting.
 */
async function assertPortsFree(node: TestnetNode, which: TestnetProcess, addresses: readonly string[]): Promise<void> {
  for (const address of addresses) {
    if (await listening(address)) {
      throw new Error(`${which} of ${node.name} cannot start: ${address} is already in use by another process`);
    }
  }
}

function listening(address: string): Promise<boolean> {
  const colon = address.lastIndexOf(":");
  return new Promise((resolveListening) => {
    const socket = connect(Number(address.slice(colon + 1)), address.slice(0, colon));
    socket.once("connect", () => {
      socket.destroy();
      resolveListening(true);
    });
    socket.once("error", () => resolveListening(false));
  });
}

function httpAnswers(url: string): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const req = request(url, { method: "GET", timeout: 2_000 }, (res) => {
      res.resume();
      resolveAnswer((res.statusCode ?? 0) > 0);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolveAnswer(false));
    req.end();
  });
}

/** Where /proc tells, the pid must still be this node's process (pids are reused). */
function isOurs(pid: number, root: string, node: TestnetNode, which: TestnetProcess): boolean {
  const folder = join(root, which === "ledgerd" ? node.dataDir : node.home);
  return commandLineOf(pid)?.some((arg) => arg.includes(folder)) ?? true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
