// `ledgerd testnet add-node`: a node added to a testnet after its genesis, as an operator adds a
// machine to a running network. It is a full node (a validator set changes only by election):
// its own CometBFT home (`cometbft init`) with the network's genesis, every existing node as a
// peer, and a ledgerd beside it. Started, CometBFT's block sync fetches every block from the
// peers and ledgerd replays them, to the same app hash, before it serves.
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { nodeIdOf, setTomlValues, stateSyncEdits, stateSyncTrustPeriodDefault } from "../engine/cometbft/cometBftConfig.js";
import type { TrustPoint } from "./trustPoint.js";
import {
  checkCometBft,
  manifestName,
  portOffset,
  portStride,
  readManifest,
  run,
  timeoutCommitMsDefault,
  threadsDefault,
  writeCometBftConfig,
  writeLedgerdConfig,
  writeLedgerdKey,
  type TestnetManifest,
  type TestnetNode,
} from "./testnet.js";

export interface AddNodeOptions {
  readonly timeoutCommitMs?: number;
  readonly threads?: number;
  readonly logLevel?: string;
  /**
   * Join by state sync (docs/state-sync.md): restore a peer's snapshot, trusting this block of
   * the network (`fetchTrustPoint` of the first node's RPC), whose RPC the light client reads
   * headers from. Without it, the node replays every block.
   */
  readonly stateSync?: TrustPoint;
}

/** How long a testnet's joining node gathers snapshots: CometBFT's least, every peer is on loopback. */
const testnetDiscoveryTime = "5s";

/** Writes one more node into the testnet at `dir` and its manifest; its plan and index. */
export function addTestnetNode(dir: string, options: AddNodeOptions = {}): { node: TestnetNode; index: number } {
  const root = resolve(dir);
  const manifest = readManifest(root);
  const first = manifest.nodes[0];
  if (first === undefined) throw new Error(`${root} holds a testnet without nodes`);
  checkCometBft(manifest.cometbft);
  const index = manifest.nodes.length;
  // Node i's ports are the first node's plus i strides (testnet.ts), wherever the network began.
  const base = Number(first.http.split(":")[1]) - portOffset.http;
  const port = (offset: number): string => `127.0.0.1:${base + portStride * index + offset}`;
  if (base + portStride * index + portOffset.p2p > 65_535) throw new Error("no ports left above the testnet's for another node");
  const name = `node${index}`;
  const home = join(name, "cometbft");
  mkdirSync(join(root, name), { recursive: true });
  run(manifest.cometbft, ["init", "--home", join(root, home)]);
  copyFileSync(join(root, first.home, "config", "genesis.json"), join(root, home, "config", "genesis.json"));
  const node: TestnetNode = {
    name,
    home,
    dataDir: join(name, "ledgerd"),
    nodeId: nodeIdOf(readFileSync(join(root, home, "config", "node_key.json"), "utf8")),
    http: port(portOffset.http),
    ws: port(portOffset.ws),
    abci: port(portOffset.abci),
    rpc: port(portOffset.rpc),
    p2p: port(portOffset.p2p),
    validator: false,
  };
  const nodes = [...manifest.nodes, node];
  writeCometBftConfig(root, node, nodes, options.timeoutCommitMs ?? timeoutCommitMsDefault);
  if (options.stateSync !== undefined) {
    const rpcServers = [first.rpc];
    const trust = { trustHeight: options.stateSync.height, trustHash: options.stateSync.hash };
    const edits = stateSyncEdits({ rpcServers, ...trust, trustPeriod: stateSyncTrustPeriodDefault, discoveryTime: testnetDiscoveryTime });
    const toml = join(root, home, "config", "config.toml");
    writeFileSync(toml, setTomlValues(readFileSync(toml, "utf8"), edits));
  }
  writeLedgerdConfig(root, node, manifest.chainId, options.threads ?? threadsDefault, options.logLevel ?? "info");
  writeLedgerdKey(root, node);
  const grown: TestnetManifest = { ...manifest, nodes };
  writeFileSync(join(root, manifestName), `${JSON.stringify(grown, null, 2)}\n`);
  return { node, index };
}
