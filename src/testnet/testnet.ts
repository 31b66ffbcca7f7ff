// `ledgerd testnet`: a network of N validators on this machine's loopback, each a CometBFT
// process plus the ledgerd process it drives over ABCI (issue #5), as BigchainDB nodes ran next
// to Tendermint.
//   ledgerd testnet --validators N --dir DIR   writes the genesis, the CometBFT homes and the
//                                              ledgerd data folders (real `cometbft testnet`,
//                                              then our config.toml edits)
//   ledgerd testnet start --dir DIR [--node I]  starts ledgerd, then CometBFT, per node
//   ledgerd testnet stop --dir DIR [--node I]   stops CometBFT, then ledgerd (SIGTERM, then SIGKILL)
// Layout: DIR/testnet.json (the plan), DIR/nodeI/{cometbft/, ledgerd/, *.log, *.pid}. Each
// ledgerd's node key is its CometBFT validator's key, so legacy CREATEs it signs are accepted.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { dirname, extname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { configFileName } from "../config/loadConfig.js";
import { nodeConfigEdits, nodeIdOf, setTomlValues } from "../engine/cometbft/cometBftConfig.js";
import { httpOptionsDefault } from "../http/options.js";
import { defaultCometBftBinary, packageRoot } from "../engine/cometbft/cometBftSupervisor.js";
import { createNodeKey, keyFileOfValidator } from "../node/nodeKey.js";

/** Per node, ports `basePort + portStride * index + offset` (node0's HTTP on BigchainDB's 9984). */
export const basePortDefault = 9984;
export const portStride = 10;
export const portOffset = { http: 0, ws: 1, abci: 2, rpc: 3, p2p: 4 } as const;
/** More validators than this on one machine is a typo (and ports run out). */
export const validatorsMax = 64;
export const fullNodesMax = 64;
export const testnetChainIdDefault = "ledgerd-testnet";
/** A short pause between heights: loopback needs no more, and tests and benchmarks stay quick. */
export const timeoutCommitMsDefault = 200;
/**
 * ledgerd's server.threads on testnet nodes: 0, verification on each node's main thread. With
 * 2N processes on a few cores, worker threads add message passing, not parallelism (measured).
 */
export const threadsDefault = 0;
/** A stopped validator's turn to propose costs this long before the next round. */
const timeoutProposeMs = 1_000;
/** ledgerd's commit_timeout_ms on testnet nodes; CometBFT's own limit is set above it. */
const commitTimeoutMs = 30_000;
const commitTimeoutMarginMs = 5_000;
/** How long start waits for a node's HTTP API and then its CometBFT RPC. */
export const readyTimeoutMsDefault = 60_000;
/** How long stop waits for a process after SIGTERM before SIGKILL. */
export const stopTimeoutMsDefault = 15_000;
const pollMs = 50;
export const manifestName = "testnet.json";

export interface TestnetNode {
  readonly name: string;
  /** CometBFT's home, relative to the testnet folder. */
  readonly home: string;
  /** ledgerd's data_dir, relative to the testnet folder. */
  readonly dataDir: string;
  readonly nodeId: string;
  readonly http: string;
  readonly ws: string;
  readonly abci: string;
  readonly rpc: string;
  readonly p2p: string;
  /**
   * False for a full node: it holds and serves the whole ledger, but is not in the validator set
   * (it signs no blocks, and its key signs no legacy CREATE). Absent in a manifest made before
   * full nodes: a validator.
   */
  readonly validator?: boolean;
}

export interface TestnetManifest {
  readonly chainId: string;
  /** The CometBFT binary the network was made with and is run with. */
  readonly cometbft: string;
  readonly nodes: readonly TestnetNode[];
}

export interface CreateTestnetOptions {
  readonly validators: number;
  /** Nodes that follow the chain without voting (reads scale on them); default 0. */
  readonly fullNodes?: number;
  readonly dir: string;
  readonly basePort?: number;
  readonly chainId?: string;
  /** The CometBFT binary (default: `.cache/bin/cometbft` of this package, else `cometbft` on PATH). */
  readonly cometbft?: string;
  readonly timeoutCommitMs?: number;
  /** ledgerd's server.threads per node (signature verification threads). */
  readonly threads?: number;
  readonly logLevel?: string;
}

/** Writes a new testnet into `dir` (which must not hold one) and returns its plan. */
export function createTestnet(options: CreateTestnetOptions): TestnetManifest {
  const dir = resolve(options.dir);
  const validators = options.validators;
  if (!Number.isSafeInteger(validators) || validators < 1 || validators > validatorsMax) {
    throw new Error(`--validators must be from 1 to ${validatorsMax}, got ${validators}`);
  }
  const fullNodes = options.fullNodes ?? 0;
  if (!Number.isSafeInteger(fullNodes) || fullNodes < 0 || fullNodes > fullNodesMax) {
    throw new Error(`--full-nodes must be from 0 to ${fullNodesMax}, got ${fullNodes}`);
  }
  const count = validators + fullNodes;
  const basePort = options.basePort ?? basePortDefault;
  if (!Number.isSafeInteger(basePort) || basePort < 1 || basePort + portStride * count > 65_535) {
    throw new Error(`--base-port ${basePort} leaves no room for ${count} nodes below port 65535`);
  }
  if (existsSync(join(dir, manifestName))) throw new Error(`${dir} already holds a testnet (${manifestName})`);
  const cometbft = options.cometbft ?? defaultCometBftBinary();
  checkCometBft(cometbft);
  const chainId = options.chainId ?? testnetChainIdDefault;

  mkdirSync(dir, { recursive: true });
  const generated = join(dir, ".cometbft-testnet");
  rmSync(generated, { recursive: true, force: true });
  // `--n`: CometBFT's non-validators, the last nodes; the genesis names only the validators.
  run(cometbft, ["testnet", "--v", String(validators), "--n", String(fullNodes), "--o", generated, "--populate-persistent-peers=false"]);

  const nodes: TestnetNode[] = [];
  for (let i = 0; i < count; i++) {
    const name = `node${i}`;
    const port = (offset: number): string => `127.0.0.1:${basePort + portStride * i + offset}`;
    mkdirSync(join(dir, name), { recursive: true });
    renameSync(join(generated, name), join(dir, name, "cometbft"));
    const home = join(name, "cometbft");
    const nodeId = nodeIdOf(readFileSync(join(dir, home, "config", "node_key.json"), "utf8"));
    nodes.push({
      name,
      home,
      dataDir: join(name, "ledgerd"),
      nodeId,
      http: port(portOffset.http),
      ws: port(portOffset.ws),
      abci: port(portOffset.abci),
      rpc: port(portOffset.rpc),
      p2p: port(portOffset.p2p),
      validator: i < validators,
    });
  }
  rmSync(generated, { recursive: true, force: true });

  writeGenesis(dir, nodes, chainId);
  for (const node of nodes) {
    // Each node's own config of `cometbft testnet` (a full node has its own key, not in genesis).
    writeCometBftConfig(dir, node, nodes, options.timeoutCommitMs ?? timeoutCommitMsDefault);
    writeLedgerdConfig(dir, node, chainId, options.threads ?? threadsDefault, options.logLevel ?? "info");
    writeLedgerdKey(dir, node);
  }
  const manifest: TestnetManifest = { chainId, cometbft: resolveBinary(cometbft), nodes };
  writeFileSync(join(dir, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Every node gets the same genesis: `cometbft testnet`'s validators, our chain id. */
function writeGenesis(dir: string, nodes: readonly TestnetNode[], chainId: string): void {
  const path = (node: TestnetNode): string => join(dir, node.home, "config", "genesis.json");
  const genesis = JSON.parse(readFileSync(path(nodes[0]!), "utf8")) as Record<string, unknown>;
  genesis["chain_id"] = chainId;
  genesis["initial_height"] = "1";
  const text = `${JSON.stringify(genesis, null, 2)}\n`;
  for (const node of nodes) writeFileSync(path(node), text);
}

export function writeCometBftConfig(dir: string, node: TestnetNode, nodes: readonly TestnetNode[], timeoutCommitMs: number): void {
  const path = join(dir, node.home, "config", "config.toml");
  const peers = nodes.filter((n) => n !== node).map((n) => `${n.nodeId}@${n.p2p}`);
  const edits = nodeConfigEdits({
    moniker: node.name,
    addresses: { abci: node.abci, rpc: node.rpc, p2p: node.p2p, externalP2p: node.p2p },
    persistentPeers: peers,
    timeoutCommitMs,
    timeoutProposeMs,
    broadcastCommitTimeoutMs: commitTimeoutMs + commitTimeoutMarginMs,
    txBytesMax: httpOptionsDefault.bodyBytesMax,
    loopback: true,
  });
  writeFileSync(path, setTomlValues(readFileSync(path, "utf8"), edits));
}

/** `<data_dir>/config.json`: only what differs from ledgerd's defaults. */
export function writeLedgerdConfig(dir: string, node: TestnetNode, chainId: string, threads: number, logLevel: string): void {
  const dataDir = join(dir, node.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const config = {
    log: { level: logLevel },
    server: { bind: node.http, threads },
    wsserver: { bind: node.ws },
    engine: {
      kind: "cometbft",
      chain_id: chainId,
      abci_bind: node.abci,
      rpc_url: `http://${node.rpc}`,
      commit_timeout_ms: commitTimeoutMs,
    },
  };
  writeFileSync(join(dataDir, configFileName), `${JSON.stringify(config, null, 2)}\n`);
}

/**
 * `<data_dir>/node_key.json`: the node's CometBFT validator key, so that the legacy CREATEs it
 * signs come from a federation key (the validator set, docs/legacy-variants.md §7.2) and are
 * accepted.
 */
export function writeLedgerdKey(dir: string, node: TestnetNode): void {
  const privValidatorKey = readFileSync(join(dir, node.home, "config", "priv_validator_key.json"), "utf8");
  const written = createNodeKey(join(dir, node.dataDir), undefined, keyFileOfValidator(privValidatorKey));
  if (written === null) throw new Error(`${node.name} already has a ledgerd key`);
}

export function readManifest(dir: string): TestnetManifest {
  const path = join(resolve(dir), manifestName);
  if (!existsSync(path)) throw new Error(`${path} not found: make the testnet first (ledgerd testnet --validators N --dir DIR)`);
  return JSON.parse(readFileSync(path, "utf8")) as TestnetManifest;
}

export type TestnetProcess = "ledgerd" | "cometbft";

export interface NodeSelection {
  /** Node indexes; default all. */
  readonly nodes?: readonly number[];
}

export interface StartTestnetOptions extends NodeSelection {
  readonly readyTimeoutMs?: number;
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
  // ledgerd of every node first, in parallel; then every CometBFT, so that peers find each other.
  await Promise.all(
    selected.map(async (node) => {
      if (runningPid(root, node, "ledgerd") !== null) return;
      await assertPortsFree(node, "ledgerd", [node.http, node.ws, node.abci]);
      const child = startProcess(root, node, "ledgerd", process.execPath, [...ledgerdEntry(), "start", "--data_dir", join(root, node.dataDir)]);
      await waitUntil(() => httpAnswers(`http://${node.http}/`), timeoutMs, () => exitedError(root, node, "ledgerd", child));
    }),
  );
  await Promise.all(
    selected.map(async (node) => {
      if (runningPid(root, node, "cometbft") !== null) return;
      await assertPortsFree(node, "cometbft", [node.rpc, node.p2p]);
      const child = startProcess(root, node, "cometbft", manifest.cometbft, ["start", "--home", join(root, node.home)]);
      await waitUntil(() => httpAnswers(`http://${node.rpc}/status`), timeoutMs, () => exitedError(root, node, "cometbft", child));
    }),
  );
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
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isAlive(pid) || !isOurs(pid, root, node, which)) return null;
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
    while (isAlive(pid) && Date.now() < deadline) await sleep(pollMs);
    if (isAlive(pid)) signal(pid, "SIGKILL");
    while (isAlive(pid)) await sleep(pollMs);
  }
  rmSync(pidFile(root, node, which), { force: true });
}

/** Spawns a node's process detached (it outlives `testnet start`), logging to its file. */
function startProcess(root: string, node: TestnetNode, which: TestnetProcess, command: string, args: readonly string[]) {
  const log = openSync(logFile(root, node, which), "a");
  try {
    const child = spawn(command, args, { cwd: packageRoot(), detached: true, stdio: ["ignore", log, log], env: childEnv() });
    if (child.pid === undefined) throw new Error(`${which} of ${node.name} did not start (${command})`);
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

/** `node <main>` as this process runs: main.ts under tsx (from source), main.js once built. */
function ledgerdEntry(): string[] {
  const here = fileURLToPath(import.meta.url);
  const main = join(dirname(here), "..", "cli", `main${extname(here)}`);
  return extname(here) === ".ts" ? ["--import", "tsx", main] : [main];
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // A zombie (exited, not yet reaped) is not running.
  try {
    return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** Where /proc tells, the pid must still be this node's process (pids are reused). */
function isOurs(pid: number, root: string, node: TestnetNode, which: TestnetProcess): boolean {
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return true;
  }
  return cmdline.includes(join(root, which === "ledgerd" ? node.dataDir : node.home));
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

export { defaultCometBftBinary };

function resolveBinary(binary: string): string {
  return binary.includes("/") ? resolve(binary) : binary;
}

export function checkCometBft(binary: string): void {
  const result = spawnSync(binary, ["version"], { encoding: "utf8" });
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(
      `CometBFT not found or not runnable at ${binary}: run scripts/install-cometbft.sh, or pass --cometbft PATH` +
        (result.error === undefined ? `\n${result.stderr}` : ` (${result.error.message})`),
    );
  }
}

export function run(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed: ${result.error?.message ?? result.stderr}`);
  }
}

