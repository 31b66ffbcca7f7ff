// A chaos run's network: `ledgerd testnet`'s validators and full nodes (src/testnet), each
// CometBFT dialing its peers through Toxiproxy (links.ts), some nodes' ledgers in PostgreSQL (one
// server for the run, a database per node, as docs/postgres.md sets a node up), and the process
// controls the nemesis uses: signals to a node's process group, and the restart `ledgerd
// testnet start --node I` does.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { configFileName } from "../src/config/loadConfig.js";
import { setTomlValues } from "../src/engine/cometbft/cometBftConfig.js";
import { sqliteStoreOptionsDefault } from "../src/store/sqlite/options.js";
import {
  createTestnet, logFile, portStride, runningPid, startTestnet, stopTestnet,
  type StartTestnetOptions, type TestnetManifest, type TestnetNode, type TestnetProcess,
} from "../src/testnet/testnet.js";
import { addTestnetNode } from "../src/testnet/addNode.js";
import {
  freeBasePort, shareValidatorKey, validatorAddressOf,
} from "../test/e2e/cometbft/network.js";
import { ageGenesis } from "../test/helpers/clockSkew.js";
import { durableServerSettings, startPostgres, type PostgresServer } from "../test/helpers/postgres.js";
import { Links, type LinkProxy } from "./links.js";
import { latestHeight } from "./http.js";
import {
  fullNodes, nemesisLimits, recoveryLimits, timeoutCommitMs, validators, workloadLimits,
} from "./options.js";

/** What a run's plan needs of the testnet: a genesis time this far back, a double signing's twin. */
export interface ClusterFaults {
  readonly genesisAgeMs?: number;
  readonly twin?: boolean;
}

/** How a node's processes run at a start: a crash point armed, a clock moved. */
export type ProcessesRun = Pick<StartTestnetOptions, "failpoints" | "launch">;

/** Ports of node i above the testnet's own (offsets 0-4): its proxies to the others, 5-8. */
const proxyOffset = 5;
/** Node 0's last free offset: Toxiproxy's API. */
const toxiproxyApiOffset = 9;
/**
 * A node that joins takes the next node's ports (as `ledgerd testnet add-node` does), and its
 * proxies to the others the ports of the node after it.
 */
const joinStrides = 2;
/** The testnet's index of the twin of a double signing: after the cluster's first nodes. */
const twinIndex = validators + fullNodes;

export class ChaosCluster {
  private constructor(
    readonly root: string,
    /** Grows when a node joins (once started). */
    public manifest: TestnetManifest,
    private readonly basePort: number,
    readonly links: Links,
    /** The server of the nodes on PostgreSQL (null: every node on SQLite), and those nodes. */
    readonly postgres: PostgresServer | null,
    readonly postgresNodes: readonly number[],
    /** The node that runs a validator's key beside it (null: the plan has no double signing). */
    private readonly twin: TestnetNode | null,
    /** The twin's own validator key file, not in the validator set: its key while it catches up. */
    private readonly twinKey: string | null,
  ) {}

  /**
   * Makes the testnet in `root` (its genesis time `genesisAgeMs` back), points every peer at its
   * proxies, starts Toxiproxy, and, if `postgresNodes` names any, a PostgreSQL server with a
   * database for each of them.
   */
  static async create(
    root: string, postgresNodes: readonly number[] = [], how: ClusterFaults = {},
  ): Promise<ChaosCluster> {
    const count = validators + fullNodes;
    const outside = postgresNodes.filter((i) => !Number.isSafeInteger(i) || i < 0 || i >= count);
    if (outside.length > 0) throw new Error(`--postgres: no node ${outside.join(", ")} (0 to ${count - 1})`);
    // The twin is the testnet's last node (before any that joins), outside the cluster's nodes.
    const twins = how.twin === true ? 1 : 0;
    const basePort = await freeBasePort(count + twins + joinStrides);
    const made = createTestnet({
      validators, fullNodes: fullNodes + twins, dir: root, basePort, timeoutCommitMs, logLevel: "warn",
    });
    if ((how.genesisAgeMs ?? 0) > 0) ageGenesis(root, made.nodes, how.genesisAgeMs ?? 0);
    const manifest = { ...made, nodes: made.nodes.slice(0, count) };
    const proxies = proxiesOf(manifest.nodes, basePort);
    for (const [i, node] of manifest.nodes.entries()) peersThroughProxies(root, node, i, manifest.nodes, proxies);
    const postgres = postgresNodes.length === 0 ? null : await startPostgres(durableServerSettings);
    for (const i of postgresNodes) ledgerInPostgres(root, manifest.nodes[i]!, await postgres!.newDatabase());
    const links = await Links.start(`127.0.0.1:${basePort + toxiproxyApiOffset}`, proxies, join(root, "toxiproxy.log"));
    const twin = made.nodes[count] ?? null;
    const twinKey = twin === null ? null : readFileSync(validatorKeyPath(root, twin), "utf8");
    return new ChaosCluster(root, manifest, basePort, links, postgres, postgresNodes, twin, twinKey);
  }

  /**
   * A new node, as `ledgerd testnet add-node` adds one (a full node on SQLite), dialing every
   * other through proxies of its own (the others do not dial it: one connection a pair), started;
   * its index. The nemesis's partitions cut its links too.
   */
  async join(): Promise<number> {
    const { node, index } = addTestnetNode(this.root, { timeoutCommitMs, logLevel: "warn" });
    const nodes = [...this.manifest.nodes, node];
    const proxies = this.manifest.nodes.map((other, to) => {
      const listen = `127.0.0.1:${this.basePort + portStride * (index + 1) + to}`;
      return { from: index, to, listen, upstream: other.p2p };
    });
    const joined = nodes.length - 1;
    const fromJoined = proxies.map((p) => ({ ...p, from: joined }));
    peersThroughProxies(this.root, node, joined, nodes, fromJoined);
    await this.links.add(fromJoined);
    await this.startOnDisk([index]);
    this.manifest = { ...this.manifest, nodes };
    return joined;
  }

  get size(): number {
    return this.manifest.nodes.length;
  }

  node(i: number): TestnetNode {
    const node = this.manifest.nodes[i];
    if (node === undefined) throw new Error(`no node ${i}`);
    return node;
  }

  /** Starts the nodes (default all), their processes run as `how` says (a crash point, a clock). */
  async start(nodes?: readonly number[], how: ProcessesRun = {}): Promise<void> {
    const selected = nodes ?? this.manifest.nodes.map((_, i) => i);
    await this.startOnDisk(selected.map((i) => this.onDisk(i)), how);
  }

  /**
   * Starts the twin with `validator`'s key and a signing state that has signed nothing, once it
   * has caught up under a key of its own (a full node): a twin behind the network signs votes
   * for heights the others have left, which no peer takes, and a fresh CometBFT v0.38 can leave
   * block sync for consensus before its peers tell their heights, and then catches up slowly.
   */
  async startTwin(validator: number): Promise<void> {
    const twin = this.twin;
    if (twin === null || this.twinKey === null) throw new Error("no twin: the run's plan has no double signing");
    writeFileSync(validatorKeyPath(this.root, twin), this.twinKey);
    await this.startOnDisk([twinIndex]);
    await this.twinCatchesUp(twin, this.node(validator));
    await stopTestnet(this.root, { nodes: [twinIndex] });
    shareValidatorKey(this.root, this.node(validator), twin);
    await this.startOnDisk([twinIndex]);
  }

  async stopTwin(): Promise<void> {
    await stopTestnet(this.root, { nodes: [twinIndex] });
  }

  /** The twin within `twinCaughtUpHeights` of the validator's height; an error after the limit. */
  private async twinCatchesUp(twin: TestnetNode, validator: TestnetNode): Promise<void> {
    const { twinCatchUpMsMax, twinCaughtUpHeights } = nemesisLimits;
    const heightOf = async (node: TestnetNode): Promise<number> =>
      (await latestHeight(node.rpc, workloadLimits.requestMsMax)) ?? 0;
    const deadline = Date.now() + twinCatchUpMsMax;
    while ((await heightOf(twin)) < (await heightOf(validator)) - twinCaughtUpHeights) {
      if (Date.now() > deadline) throw new Error(`the twin did not catch up within ${twinCatchUpMsMax} ms`);
      await sleep(workloadLimits.pollMs);
    }
  }


  /** CometBFT's address of a validator's key. */
  validatorAddress(validator: number): string {
    return validatorAddressOf(this.root, this.node(validator));
  }

  /** `ledgerd testnet`'s index of the cluster's node i: past the twin, a node that joined. */
  private onDisk(i: number): number {
    return i < validators + fullNodes || this.twin === null ? i : i + 1;
  }

  private async startOnDisk(nodes: readonly number[], how: ProcessesRun = {}): Promise<void> {
    await startTestnet(this.root, { readyTimeoutMs: recoveryLimits.readyMsMax, ...how, nodes });
  }

  pid(i: number, which: TestnetProcess): number | null {
    return runningPid(this.root, this.node(i), which);
  }

  /**
   * Sends `name` to the process group of a node's process (each is started detached, its own
   * group), so that ledgerd's HTTP workers are paused and killed with it. False if not running.
   */
  signal(i: number, which: TestnetProcess, name: NodeJS.Signals): boolean {
    const pid = this.pid(i, which);
    if (pid === null) return false;
    try {
      process.kill(-pid, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      return false;
    }
    return true;
  }

  logPath(i: number, which: TestnetProcess): string {
    return logFile(this.root, this.node(i), which);
  }

  /** CometBFT's consensus log (its head file) of node i. */
  cometBftWalPath(i: number): string {
    return join(this.root, this.node(i).home, "data", "cs.wal", "wal");
  }

  /** The SQLite write-ahead log of node i's ledger (the store's default file, as a testnet sets it). */
  ledgerWalPath(i: number): string {
    return join(this.root, this.node(i).dataDir, `${basename(sqliteStoreOptionsDefault.path)}-wal`);
  }

  /**
   * Continues the nodes' processes (a paused one would not hear SIGTERM), then stops them; with
   * no `nodes`, all of them and Toxiproxy.
   */
  async stop(nodes?: readonly number[]): Promise<void> {
    const selected = nodes ?? Array.from({ length: this.size }, (_, i) => i);
    for (const i of selected) for (const which of ["ledgerd", "cometbft"] as const) this.signal(i, which, "SIGCONT");
    // All: the twin too.
    const onDisk = nodes === undefined ? {} : { nodes: nodes.map((i) => this.onDisk(i)) };
    await stopTestnet(this.root, onDisk);
    if (nodes === undefined) await this.links.stop();
  }

  /** Stops and removes the PostgreSQL server, once verify-chain has read its databases. */
  stopPostgres(): void {
    this.postgres?.stop();
  }
}

const validatorKeyPath = (root: string, node: TestnetNode): string =>
  join(root, node.home, "config", "priv_validator_key.json");

/** The node's `database` settings in its config.json: PostgreSQL at `url` (docs/postgres.md). */
function ledgerInPostgres(root: string, node: TestnetNode, url: string): void {
  const path = join(root, node.dataDir, configFileName);
  const config = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, `${JSON.stringify({ ...config, database: { backend: "postgres", url } }, null, 2)}\n`);
}

/** Node i's proxy to node j listens on i's ports (the k-th other node at offset 5 + k). */
function proxiesOf(nodes: readonly TestnetNode[], basePort: number): LinkProxy[] {
  const proxies: LinkProxy[] = [];
  for (let from = 0; from < nodes.length; from++) {
    for (let to = 0, k = 0; to < nodes.length; to++) {
      if (to === from) continue;
      const listen = `127.0.0.1:${basePort + portStride * from + proxyOffset + k++}`;
      proxies.push({ from, to, listen, upstream: nodes[to]!.p2p });
    }
  }
  return proxies;
}

/** persistent_peers at the node's proxies, and no peer exchange that would tell real addresses. */
function peersThroughProxies(
  root: string, node: TestnetNode, i: number, nodes: readonly TestnetNode[], proxies: readonly LinkProxy[],
): void {
  const path = join(root, node.home, "config", "config.toml");
  const peers = proxies.filter((p) => p.from === i).map((p) => `${nodes[p.to]!.nodeId}@${p.listen}`);
  const edits = [
    { section: "p2p", key: "persistent_peers", value: peers.join(",") },
    { section: "p2p", key: "pex", value: false },
  ];
  writeFileSync(path, setTomlValues(readFileSync(path, "utf8"), edits));
}
