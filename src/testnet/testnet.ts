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
// This file makes the network; manifest.ts is its plan, processes.ts runs it, addNode.ts grows it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { configFileName } from "../config/loadConfig.js";
import { nodeConfigEdits, nodeIdOf, setTomlValues } from "../engine/cometbft/cometBftConfig.js";
import { genesisAppState, genesisConsensusParams } from "../engine/cometbft/genesisAppState.js";
import { httpOptionsDefault } from "../http/options.js";
import { defaultCometBftBinary } from "../engine/cometbft/cometBftSupervisor.js";
import { createNodeKey, keyFileOfValidator } from "../node/nodeKey.js";
import { manifestName, type TestnetManifest, type TestnetNode } from "./manifest.js";

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
  /**
   * The validators' `database.read_indexes` (default true). False: validators that serve no
   * searches or queries by field (docs/operations.md); the full nodes keep theirs, for the reads.
   */
  readonly readIndexes?: boolean;
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
    const readIndexes = node.validator === false || options.readIndexes !== false;
    writeLedgerdConfig(dir, node, chainId, options.threads ?? threadsDefault, options.logLevel ?? "info", readIndexes);
    writeLedgerdKey(dir, node);
  }
  const manifest: TestnetManifest = { chainId, cometbft: resolveBinary(cometbft), nodes };
  writeFileSync(join(dir, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Every node gets the same genesis: `cometbft testnet`'s validators, our chain id, rules and protocol version. */
function writeGenesis(dir: string, nodes: readonly TestnetNode[], chainId: string): void {
  const path = (node: TestnetNode): string => join(dir, node.home, "config", "genesis.json");
  const genesis = JSON.parse(readFileSync(path(nodes[0]!), "utf8")) as Record<string, unknown>;
  genesis["chain_id"] = chainId;
  genesis["initial_height"] = "1";
  genesis["app_state"] = genesisAppState;
  genesis["consensus_params"] = genesisConsensusParams;
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
export function writeLedgerdConfig(dir: string, node: TestnetNode, chainId: string, threads: number, logLevel: string, readIndexes = true): void {
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
    ...(readIndexes ? {} : { database: { read_indexes: false } }),
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


export { defaultCometBftBinary };
export { readManifest, manifestName, type TestnetManifest, type TestnetNode } from "./manifest.js";
export {
  logFile,
  type NodeLaunch,
  pidFile,
  readyTimeoutMsDefault,
  runningPid,
  startTestnet,
  stopTestnet,
  stopTimeoutMsDefault,
  type NodeSelection,
  type StartTestnetOptions,
  type StopTestnetOptions,
  type TestnetProcess,
} from "./processes.js";

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

