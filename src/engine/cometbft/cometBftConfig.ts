// What a ledgerd node's CometBFT needs in its `config/config.toml` (v0.38 keys), as edits to the
// file `cometbft init` / `cometbft testnet` writes, so every other key keeps CometBFT's default.
// Pure: text in, text out.
import { createHash } from "node:crypto";
import { publicKeyFromSeed } from "../../crypto-conditions/publicKeyFromSeed.js";

export type TomlValue = string | number | boolean;

/** `[section] key = value`; section "" is the top of the file, before any table. */
export interface TomlEdit {
  readonly section: string;
  readonly key: string;
  readonly value: TomlValue;
}

/**
 * Replaces the value of each `key = ...` line in its section. Every edited key must already be
 * in the file (CometBFT writes them all), so a typo or a renamed key fails loudly instead of
 * leaving CometBFT's default in force.
 */
export function setTomlValues(text: string, edits: readonly TomlEdit[]): string {
  const lines = text.split("\n");
  const sectionOf: string[] = [];
  let section = "";
  for (const line of lines) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header !== null) section = header[1]!.trim();
    sectionOf.push(section);
  }
  for (const edit of edits) {
    const pattern = new RegExp(`^(\\s*)${escapeRegExp(edit.key)}(\\s*)=`);
    const index = lines.findIndex((line, i) => sectionOf[i] === edit.section && pattern.test(line));
    if (index < 0) throw new Error(`config.toml has no key ${edit.key} in [${edit.section}]`);
    const indent = pattern.exec(lines[index]!)![1]!;
    lines[index] = `${indent}${edit.key} = ${tomlLiteral(edit.value)}`;
  }
  return lines.join("\n");
}

export function tomlLiteral(value: TomlValue): string {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a TOML integer: ${value}`);
    return String(value);
  }
  return JSON.stringify(value);
}

/** A Go duration for CometBFT's timeouts: `150ms`, `35s`. */
export function goDuration(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/**
 * A CometBFT node id from its `node_key.json`: the hex of the first 20 bytes of SHA-256 of the
 * Ed25519 public key (`p2p.PubKeyToID`; the key file holds the 64-byte private key, seed then
 * public key, base64).
 */
export function nodeIdOf(nodeKeyJson: string): string {
  const priv = ed25519PrivateKeyOf(nodeKeyJson, "node_key.json");
  return createHash("sha256").update(priv.subarray(32)).digest().subarray(0, 20).toString("hex");
}

/**
 * The 32-byte seed of the validator key in a CometBFT `priv_validator_key.json`. `ledgerd
 * testnet` gives each ledgerd this key as its own (`node_key.json`), so that the key a node signs
 * legacy CREATEs with is in the validator set, the legacy federation (docs/legacy-variants.md
 * §7.2).
 */
export function validatorSeedOf(privValidatorKeyJson: string): Uint8Array {
  const file = "priv_validator_key.json";
  const priv = ed25519PrivateKeyOf(privValidatorKeyJson, file);
  const seed = priv.subarray(0, 32);
  // The public half is derived from the seed: a file where they disagree is damaged.
  if (!priv.subarray(32).equals(publicKeyFromSeed(seed))) throw new Error(`${file}'s public key is not its seed's`);
  return seed;
}

/** The 64-byte Ed25519 private key (seed, then public key) of a CometBFT key file. */
function ed25519PrivateKeyOf(json: string, file: string): Buffer {
  const parsed = JSON.parse(json) as { priv_key?: { type?: string; value?: string } };
  const key = parsed.priv_key;
  if (key?.type !== "tendermint/PrivKeyEd25519" || typeof key.value !== "string") {
    throw new Error(`${file} does not hold an Ed25519 key`);
  }
  const priv = Buffer.from(key.value, "base64");
  if (priv.length !== 64) throw new Error(`${file}'s key is not 64 bytes`);
  return priv;
}

/** The loopback or LAN addresses one node of a network uses. */
export interface NodeAddresses {
  /** `host:port` CometBFT reaches ledgerd's ABCI server at. */
  readonly abci: string;
  /** `host:port` of CometBFT's RPC (ledgerd's engine.rpc_url without http://). */
  readonly rpc: string;
  /** `host:port` CometBFT's P2P listens on. */
  readonly p2p: string;
  /** `host:port` the other validators dial (p2p.external_address); "" for the listen address. */
  readonly externalP2p: string;
}

export interface NodeConfigSettings {
  readonly moniker: string;
  readonly addresses: NodeAddresses;
  /** `id@host:port` of every other validator. */
  readonly persistentPeers: readonly string[];
  /** consensus.timeout_commit: the pause after a commit before the next height starts. */
  readonly timeoutCommitMs: number;
  /** consensus.timeout_propose: how long validators wait for a proposer that may be down. */
  readonly timeoutProposeMs: number;
  /** rpc.timeout_broadcast_tx_commit: above ledgerd's own commit timeout, which answers first. */
  readonly broadcastCommitTimeoutMs: number;
  /** mempool.max_tx_bytes: ledgerd's own body limit, so CometBFT refuses nothing ledgerd takes. */
  readonly txBytesMax: number;
  /** Loopback networks put every node on one address. */
  readonly loopback: boolean;
}

/**
 * The edits for one validator. Blocks are made only when transactions wait
 * (create_empty_blocks = false, as BigchainDB deployed Tendermint); transactions are not indexed
 * by CometBFT (ledgerd is the index); gossip waits less (a LAN, not the internet).
 */
export function nodeConfigEdits(settings: NodeConfigSettings): TomlEdit[] {
  const { addresses } = settings;
  return [
    { section: "", key: "moniker", value: settings.moniker },
    { section: "", key: "proxy_app", value: `tcp://${addresses.abci}` },
    { section: "", key: "log_level", value: "*:error,state:info,blocksync:info" },
    { section: "rpc", key: "laddr", value: `tcp://${addresses.rpc}` },
    { section: "rpc", key: "timeout_broadcast_tx_commit", value: goDuration(settings.broadcastCommitTimeoutMs) },
    // Room for a body of txBytesMax in base64 inside the JSON-RPC envelope.
    { section: "rpc", key: "max_body_bytes", value: Math.ceil((settings.txBytesMax * 4) / 3) + 4_096 },
    { section: "p2p", key: "laddr", value: `tcp://${addresses.p2p}` },
    { section: "p2p", key: "external_address", value: addresses.externalP2p },
    { section: "p2p", key: "persistent_peers", value: settings.persistentPeers.join(",") },
    { section: "p2p", key: "addr_book_strict", value: !settings.loopback },
    { section: "p2p", key: "allow_duplicate_ip", value: settings.loopback },
    { section: "p2p", key: "flush_throttle_timeout", value: "10ms" },
    { section: "p2p", key: "send_rate", value: 20_480_000 },
    { section: "p2p", key: "recv_rate", value: 20_480_000 },
    { section: "mempool", key: "max_tx_bytes", value: settings.txBytesMax },
    // Each transaction is flooded to 2 validators, not all: it still reaches every mempool
    // (each forwards it on), with fewer duplicate sends; measured 25% less CometBFT CPU per
    // transaction on 4 loopback validators. A disconnected peer's slot goes to another.
    { section: "mempool", key: "experimental_max_gossip_connections_to_persistent_peers", value: 2 },
    { section: "consensus", key: "timeout_commit", value: goDuration(settings.timeoutCommitMs) },
    { section: "consensus", key: "timeout_propose", value: goDuration(settings.timeoutProposeMs) },
    { section: "consensus", key: "create_empty_blocks", value: false },
    { section: "consensus", key: "peer_gossip_sleep_duration", value: "10ms" },
    { section: "tx_index", key: "indexer", value: "null" },
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where a node joining by state sync starts to trust the chain (docs/state-sync.md). */
export interface StateSyncSettings {
  /** `host:port` of CometBFT RPCs its light client reads headers from; CometBFT wants two (the same twice will do). */
  readonly rpcServers: readonly string[];
  /** A height and its block hash read from a node the operator trusts. */
  readonly trustHeight: number;
  readonly trustHash: string;
  /** How long a trusted header stays trusted: CometBFT's default, a week. */
  readonly trustPeriod: string;
  /** How long CometBFT gathers peers' snapshots before it picks one (CometBFT: 5 s at least). */
  readonly discoveryTime: string;
}

/** CometBFT's defaults for the two durations a state-syncing node may keep. */
export const stateSyncTrustPeriodDefault = "168h0m0s";
export const stateSyncDiscoveryTimeDefault = "15s";

/** The `[statesync]` edits that make CometBFT restore the app from a peer's snapshot at its first start. */
export function stateSyncEdits(settings: StateSyncSettings): TomlEdit[] {
  if (settings.rpcServers.length === 0) throw new Error("state sync needs a CometBFT RPC server to read headers from");
  if (!Number.isSafeInteger(settings.trustHeight) || settings.trustHeight < 1) throw new Error(`trust height ${settings.trustHeight} is not 1 or more`);
  if (!/^[0-9A-F]{64}$/i.test(settings.trustHash)) throw new Error(`trust hash ${settings.trustHash} is not 64 hex digits`);
  // CometBFT refuses fewer than two entries; a primary and a witness may be the same node.
  const servers = settings.rpcServers.length === 1 ? [settings.rpcServers[0]!, settings.rpcServers[0]!] : settings.rpcServers;
  return [
    { section: "statesync", key: "enable", value: true },
    { section: "statesync", key: "rpc_servers", value: servers.map((s) => (s.includes("://") ? s : `http://${s}`)).join(",") },
    { section: "statesync", key: "trust_height", value: settings.trustHeight },
    { section: "statesync", key: "trust_hash", value: settings.trustHash.toUpperCase() },
    { section: "statesync", key: "trust_period", value: settings.trustPeriod },
    { section: "statesync", key: "discovery_time", value: settings.discoveryTime },
  ];
}
