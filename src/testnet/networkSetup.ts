// `ledgerd network init | genesis | join`: forming a network of machines without a manual
// (BigchainDB's most reported problem: peers, genesis, the ABCI connection). Each machine runs
// `init` (a CometBFT home, a ledgerd data folder whose node key is the validator's key, both
// configured for each other, and a part file to share); one machine joins the parts into the
// genesis and the peer list (`genesis`); every machine imports both (`join`). A machine whose
// part is not in the genesis joins as a full node, as a machine added years later does.
// Nothing is shared but the files an operator would copy.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { configFileName } from "../config/loadConfig.js";
import {
  nodeConfigEdits,
  nodeIdOf,
  setTomlValues,
  stateSyncDiscoveryTimeDefault,
  stateSyncEdits,
  stateSyncTrustPeriodDefault,
  type TomlEdit,
} from "../engine/cometbft/cometBftConfig.js";
import { genesisAppState, genesisConsensusParams } from "../engine/cometbft/genesisAppState.js";
import { httpOptionsDefault } from "../http/options.js";
import { createNodeKey, keyFileOfValidator } from "../node/nodeKey.js";
import { run, timeoutCommitMsDefault } from "./testnet.js";
import type { TrustPoint } from "./trustPoint.js";

/** What a machine shares with the others: who it is and where to reach it. */
export interface NetworkPart {
  readonly moniker: string;
  readonly node_id: string;
  /** `host:port` the other machines dial for CometBFT's P2P. */
  readonly p2p: string;
  /** The validator's Ed25519 public key, base64 (as CometBFT's files write it). */
  readonly pub_key: string;
  readonly power: number;
}

export interface NetworkInitOptions {
  readonly dir: string;
  readonly cometbft: string;
  readonly moniker: string;
  /** `host:port` the others dial. */
  readonly p2pExternal: string;
  readonly p2pListen: string;
  readonly rpc: string;
  readonly abci: string;
  readonly http: string;
  readonly ws: string;
  readonly power: number;
  /** Every machine on one address (a test on loopback). */
  readonly loopback: boolean;
}

const partFile = "part.json";
const homeOf = (dir: string) => join(dir, "cometbft");
const dataDirOf = (dir: string) => join(dir, "ledgerd");
/** How long validators wait for a proposer that may be down (a LAN, not the internet). */
const timeoutProposeMs = 1_000;
const commitTimeoutMs = 30_000;

/** Makes this machine's CometBFT home and ledgerd data folder in `dir`; returns its part. */
export function networkInit(options: NetworkInitOptions): NetworkPart {
  const dir = resolve(options.dir);
  if (existsSync(join(dir, partFile))) throw new Error(`${dir} already holds a machine (${partFile})`);
  mkdirSync(dir, { recursive: true });
  run(options.cometbft, ["init", "--home", homeOf(dir)]);
  const config = join(homeOf(dir), "config");
  const edits = nodeConfigEdits({
    moniker: options.moniker,
    addresses: { abci: options.abci, rpc: options.rpc, p2p: options.p2pListen, externalP2p: options.p2pExternal },
    persistentPeers: [],
    timeoutCommitMs: timeoutCommitMsDefault,
    timeoutProposeMs,
    broadcastCommitTimeoutMs: commitTimeoutMs + 5_000,
    txBytesMax: httpOptionsDefault.bodyBytesMax,
    loopback: options.loopback,
  });
  writeFileSync(join(config, "config.toml"), setTomlValues(readFileSync(join(config, "config.toml"), "utf8"), edits));
  const privValidatorKey = readFileSync(join(config, "priv_validator_key.json"), "utf8");
  if (createNodeKey(dataDirOf(dir), undefined, keyFileOfValidator(privValidatorKey)) === null) {
    throw new Error(`${dataDirOf(dir)} already has a node key`);
  }
  writeLedgerdConfig(dir, options, "");
  const part: NetworkPart = {
    moniker: options.moniker,
    node_id: nodeIdOf(readFileSync(join(config, "node_key.json"), "utf8")),
    p2p: options.p2pExternal,
    pub_key: (JSON.parse(privValidatorKey) as { pub_key: { value: string } }).pub_key.value,
    power: options.power,
  };
  writeFileSync(join(dir, partFile), `${JSON.stringify(part, null, 2)}\n`);
  return part;
}

/** ledgerd runs this machine's CometBFT itself (engine.cometbft_home): one service to start. */
function writeLedgerdConfig(dir: string, options: Pick<NetworkInitOptions, "http" | "ws" | "abci" | "rpc" | "cometbft">, chainId: string): void {
  const engine = {
    kind: "cometbft",
    chain_id: chainId,
    abci_bind: options.abci,
    rpc_url: `http://${options.rpc}`,
    commit_timeout_ms: commitTimeoutMs,
    cometbft_home: homeOf(dir),
    cometbft_binary: options.cometbft.includes("/") ? resolve(options.cometbft) : options.cometbft,
  };
  const config = { server: { bind: options.http }, wsserver: { bind: options.ws }, engine };
  writeFileSync(join(dataDirOf(dir), configFileName), `${JSON.stringify(config, null, 2)}\n`);
}

/** The genesis of the parts' validators, and every part's `id@host:port`, into `outDir`. */
export function networkGenesis(chainId: string, partPaths: readonly string[], outDir: string): { genesis: string; peers: string } {
  if (!/^[\w.-]{1,50}$/.test(chainId)) throw new Error(`--chain-id must be 1 to 50 letters, digits, '.', '_' or '-': ${chainId}`);
  const parts = partPaths.map((path) => JSON.parse(readFileSync(path, "utf8")) as NetworkPart);
  if (parts.length === 0) throw new Error("give every validator's part.json");
  const ids = new Set(parts.map((part) => part.node_id));
  if (ids.size !== parts.length) throw new Error("two parts have the same node id: each machine runs `network init` once");
  const genesis = {
    genesis_time: new Date().toISOString(),
    chain_id: chainId,
    initial_height: "1",
    consensus_params: genesisConsensusParams,
    validators: parts.map((part) => ({
      pub_key: { type: "tendermint/PubKeyEd25519", value: part.pub_key },
      power: String(part.power),
      name: part.moniker,
    })),
    app_hash: "",
    app_state: genesisAppState,
  };
  mkdirSync(outDir, { recursive: true });
  const genesisPath = join(outDir, "genesis.json");
  const peersPath = join(outDir, "peers.json");
  writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`);
  writeFileSync(peersPath, `${JSON.stringify(parts.map((part) => `${part.node_id}@${part.p2p}`), null, 2)}\n`);
  return { genesis: genesisPath, peers: peersPath };
}

/** Imports the network's genesis and peers into the machine at `dir` (its own entry left out). */
/** `network join --state-sync`: the CometBFT RPCs the light client reads, and the block trusted (from the first). */
export interface JoinStateSync {
  readonly rpcServers: readonly string[];
  readonly trust: TrustPoint;
}

export function networkJoin(dir: string, genesisPath: string, peersPath: string, stateSync?: JoinStateSync): { chainId: string; validator: boolean } {
  const root = resolve(dir);
  const part = JSON.parse(readFileSync(join(root, partFile), "utf8")) as NetworkPart;
  const genesis = JSON.parse(readFileSync(genesisPath, "utf8")) as { chain_id: string; validators: { pub_key: { value: string } }[] };
  const peers = (JSON.parse(readFileSync(peersPath, "utf8")) as string[]).filter((peer) => !peer.startsWith(`${part.node_id}@`));
  const config = join(homeOf(root), "config");
  copyFileSync(genesisPath, join(config, "genesis.json"));
  const toml = join(config, "config.toml");
  const edits: TomlEdit[] = [{ section: "p2p", key: "persistent_peers", value: peers.join(",") }];
  if (stateSync !== undefined) {
    const { rpcServers, trust } = stateSync;
    const period = { trustPeriod: stateSyncTrustPeriodDefault, discoveryTime: stateSyncDiscoveryTimeDefault };
    edits.push(...stateSyncEdits({ rpcServers, trustHeight: trust.height, trustHash: trust.hash, ...period }));
  }
  writeFileSync(toml, setTomlValues(readFileSync(toml, "utf8"), edits));
  const ledgerdConfig = join(dataDirOf(root), configFileName);
  const settings = JSON.parse(readFileSync(ledgerdConfig, "utf8")) as { engine: { chain_id: string } };
  settings.engine.chain_id = genesis.chain_id;
  writeFileSync(ledgerdConfig, `${JSON.stringify(settings, null, 2)}\n`);
  return { chainId: genesis.chain_id, validator: genesis.validators.some((v) => v.pub_key.value === part.pub_key) };
}
