// A rolling upgrade across releases (issue 39; docs/upgrades.md "A rolling upgrade"): a network of
// 4 validators made and started by the previous release (the commit in `previousRelease`, run
// from a temporary folder: previousRelease.ts), under a steady load of POSTs in modes commit and
// async, is upgraded one node at a time to this checkout: the node is drained (no new posts, its
// async acks committed), stopped, started by this release on the same data folders (which
// migrates its store's schema), and waited for until it is back at the network's height. Then
// nothing acknowledged is lost (every acked id on every node) and every node agrees on the
// height and app hash. The genesis says protocol version 0, as a chain made before ledgerd
// reported one: its stores, begun before schema 7, did not record it, so this release reads it
// from CometBFT's genesis and Info reports the headers' 0, not its own 1.
// It needs CometBFT (scripts/install-cometbft.sh) and the previous release's commit in the clone
// (fetched from origin if missing); it fails, never skips, without them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { schemaVersion } from "../../../src/store/sqlite/schema.js";
import { readManifest, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { appState, freeBasePort, httpUrl, logTail, post, requireCometBft, rpc, waitForAgreement, withoutLedgerdEnv } from "./network.js";
import { unpackPreviousRelease, type PreviousRelease } from "./previousRelease.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-upgrade-"));
let previous: PreviousRelease;
let manifest: TestnetManifest;
/** Nodes already on this release: they start as this checkout's testnet starts them. */
const upgraded = new Set<string>();

/** What the previous release wrote (its schema); this release migrates it at the node's first start. */
const previousSchema = 6;

before(async () => {
  const cometbft = requireCometBft();
  const basePort = await freeBasePort(4);
  previous = unpackPreviousRelease();
  // The network is the previous release's own: its `testnet` command wrote the genesis and the configs.
  const made = spawnSync(
    process.execPath,
    [...previous.args, "testnet", "--validators", "4", "--dir", root, "--base-port", String(basePort), "--cometbft", cometbft, "--timeout-commit", "150"],
    { cwd: previous.dir, env: withoutLedgerdEnv(), encoding: "utf8" },
  );
  assert.equal(made.status, 0, `the previous release's testnet command failed: ${made.stderr}`);
  manifest = readManifest(root);
  for (const node of manifest.nodes) {
    const path = join(root, node.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(path, "utf8")) as { consensus_params: { version: { app: string } } };
    genesis.consensus_params.version.app = "0";
    writeFileSync(path, JSON.stringify(genesis, null, 2));
  }
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
  previous?.remove();
});

/** Starts nodes: the previous release's ledgerd unless the node is upgraded. */
function start(nodes?: number[]): Promise<void> {
  return startTestnet(root, {
    ...(nodes === undefined ? {} : { nodes }),
    launch: (node) => (upgraded.has(node.name) ? undefined : { ledgerd: { args: previous.args, cwd: previous.dir } }),
  });
}

interface Ack {
  readonly id: string;
  readonly mode: "commit" | "async";
  readonly node: string;
}

/**
 * Clients posting CREATEs without a pause, each in turn in modes commit and async, to the nodes
 * in `targets` in turn; every 202 is recorded. A node leaves `targets` to be drained.
 */
class Load {
  readonly acks: Ack[] = [];
  readonly refused: string[] = [];
  readonly targets: TestnetNode[] = [];
  readonly #inFlight = new Map<string, Set<Promise<void>>>();
  #running = true;
  #turn = 0;
  readonly #clients: Promise<void>[];

  constructor(nodes: readonly TestnetNode[], clients: number) {
    this.targets.push(...nodes);
    this.#clients = Array.from({ length: clients }, (_, client) => this.#client(client));
  }

  async #client(client: number): Promise<void> {
    for (let n = 0; this.#running; n++) {
      const node = this.targets[this.#turn++ % this.targets.length]!;
      const mode = n % 2 === 0 ? "commit" : "async";
      const tx = create(keypairOf(`upgrade-${client}`), 1n, { client, n });
      const sent = this.#send(node, tx, mode);
      const inFlight = this.#inFlight.get(node.name) ?? new Set();
      this.#inFlight.set(node.name, inFlight.add(sent));
      await sent;
      inFlight.delete(sent);
    }
  }

  async #send(node: TestnetNode, tx: Record<string, unknown>, mode: "commit" | "async"): Promise<void> {
    try {
      const answer = await post(node, tx, mode);
      if (answer.status === 202) this.acks.push({ id: tx["id"] as string, mode, node: node.name });
      else this.refused.push(`${node.name} ${mode} ${answer.status} ${JSON.stringify(answer.body)}`);
    } catch (error) {
      this.refused.push(`${node.name} ${mode} ${(error as Error).message}`);
    }
  }

  /** No new post to `node`; resolves once the ones sent to it are answered. */
  async drain(node: TestnetNode): Promise<void> {
    this.targets.splice(this.targets.indexOf(node), 1);
    await Promise.all(this.#inFlight.get(node.name) ?? []);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#clients);
  }
}

const committedOn = async (node: TestnetNode, id: string): Promise<boolean> =>
  (await fetch(`${httpUrl(node)}/api/v1/transactions/${id}`)).status === 200;

/** A value of the node's SQLite store (read beside the running or stopped node). */
function storeValue(node: TestnetNode, sql: string): unknown {
  const db = new Database(join(root, node.dataDir, "ledgerd.sqlite"), { readonly: true });
  try {
    return db.prepare(sql).pluck().get();
  } finally {
    db.close();
  }
}

const storeSchema = (node: TestnetNode): unknown => storeValue(node, "SELECT version FROM schema_version");

describe("a rolling upgrade from the previous release to this one", () => {
  it("under load, one node at a time: nothing acknowledged is lost and every node agrees", async () => {
    await start();
    await waitForAgreement(manifest.nodes, 1);
    const load = new Load(manifest.nodes, 3);
    /** Per node, the seconds from its stop until it is back at the network's height (reported, not asserted). */
    const downtimes: string[] = [];
    try {
      for (const [index, node] of manifest.nodes.entries()) {
        const others = manifest.nodes.filter((other) => other !== node);
        await waitFor(`acks through ${others.map((o) => o.name).join(", ")} before ${node.name}'s upgrade`, () =>
          others.every((other) => load.acks.some((ack) => ack.node === other.name)),
        );
        // Drained as a load balancer would: its async acks are committed before it stops.
        await load.drain(node);
        const pending = load.acks.filter((ack) => ack.node === node.name && ack.mode === "async");
        await waitFor(`${node.name}'s async acks committed`, async () => (await Promise.all(pending.map((ack) => committedOn(others[0]!, ack.id)))).every(Boolean));
        const stopped = Date.now();
        await stopTestnet(root, { nodes: [index] });
        assert.equal(storeSchema(node), previousSchema, `${node.name} ran the previous release`);
        upgraded.add(node.name);
        await start([index]);
        const network = Math.max(...(await Promise.all(others.map(appState))).map((state) => state?.height ?? 0));
        await waitFor(`${node.name} back at the network's height ${network}`, async () => ((await appState(node))?.height ?? 0) >= network).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}\n${logTail(root, node, "ledgerd")}\n${logTail(root, node, "cometbft")}`);
        });
        downtimes.push(((Date.now() - stopped) / 1000).toFixed(1));
        assert.equal(storeSchema(node), schemaVersion, `${node.name} runs this release (its store migrated)`);
        load.targets.push(node);
      }
    } finally {
      await load.stop();
    }
    const byMode = { commit: load.acks.filter((a) => a.mode === "commit").length, async: load.acks.filter((a) => a.mode === "async").length };
    assert.ok(byMode.commit > 0 && byMode.async > 0, JSON.stringify(byMode));
    // The last async acks reach a block, then every node holds every acked transaction.
    await waitFor("every acked transaction committed", async () => (await Promise.all(load.acks.map((ack) => committedOn(manifest.nodes[0]!, ack.id)))).every(Boolean));
    const agreed = await waitForAgreement(manifest.nodes);
    for (const node of manifest.nodes) {
      const missing = [];
      for (const ack of load.acks) if (!(await committedOn(node, ack.id))) missing.push(ack);
      assert.deepEqual(missing, [], `${node.name} lacks acknowledged transactions`);
      // The chain's protocol version, as its headers carry it, is what the upgraded node reports
      // (CometBFT's JSON leaves out a 0), read from CometBFT's genesis and kept in the store.
      const [info, block] = await Promise.all([rpc(node, "abci_info"), rpc(node, `block?height=${agreed.height}`)]);
      assert.deepEqual([info.response.app_version ?? "0", block.block.header.version.app ?? "0"], ["0", "0"], node.name);
      assert.equal(storeValue(node, "SELECT app_version FROM chain_state"), "0", node.name);
    }
    process.stdout.write(`# rolling upgrade: ${load.acks.length} acks (${byMode.commit} commit, ${byMode.async} async), ${load.refused.length} refused, height ${agreed.height}; each node down ${downtimes.join(", ")} s\n`);
  });
});
