// State sync (issue #39; docs/state-sync.md) on a real loopback network: a validator and a full
// node take a snapshot every 3 blocks while the network commits a few hundred CREATEs and
// TRANSFERs; a node added with `testnet add-node --state-sync` restores one through CometBFT
// v0.38's state sync, replays only the blocks after it, and answers every route exactly as the
// nodes that replayed every block. On its way it is offered, by the validator, a snapshot of
// another chain, one whose ledger does not give the app hash the light client verified, and one
// whose chunk is corrupted: it refuses the first two, and fetches the third's chunk again from
// the full node (started only once the bad chunk was refused, so the refetch must go there).
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { addTestnetNode } from "../../../src/testnet/addNode.js";
import { createTestnet, logFile, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { fetchTrustPoint } from "../../../src/testnet/trustPoint.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { corruptChunk, editMetadata, forgeLedger } from "../../helpers/snapshotForgery.js";
import { create, transfer } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { appState, freeBasePort, getText, post, requireCometBft, rpc, waitForAgreement } from "./network.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-statesync-"));
let manifest: TestnetManifest;
const snapshotInterval = 3;
const idOf = (tx: JsonObject): string => tx["id"] as string;

/** The snapshot heights a node keeps, highest first. */
function snapshotHeights(node: TestnetNode): number[] {
  const dir = join(root, node.dataDir, "snapshots");
  try {
    return readdirSync(dir).filter((name) => /^[0-9]+$/.test(name)).map(Number).sort((a, b) => b - a);
  } catch {
    return [];
  }
}

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({ validators: 1, fullNodes: 1, dir: root, basePort: await freeBasePort(3), cometbft, timeoutCommitMs: 150, logLevel: "info" });
  for (const node of manifest.nodes) {
    const path = join(root, node.dataDir, "config.json");
    const config = JSON.parse(readFileSync(path, "utf8")) as { engine: Record<string, unknown> };
    config.engine["snapshot_interval"] = snapshotInterval;
    config.engine["snapshot_keep"] = 8;
    writeFileSync(path, JSON.stringify(config));
  }
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

/** Owners with a CREATE each, then two TRANSFERs of it to the next owner: what the reads compare. */
async function commitLoad(): Promise<{ owners: ReturnType<typeof makeRandomKeypair>[]; txs: JsonObject[] }> {
  const owners = Array.from({ length: 60 }, () => makeRandomKeypair());
  const txs: JsonObject[] = [];
  // A dozen at a time, so that the chain has blocks enough for several snapshots.
  const postAll = async (all: JsonObject[]): Promise<void> => {
    for (let start = 0; start < all.length; start += 12) {
      const batch = all.slice(start, start + 12);
      const answers = await Promise.all(batch.map((tx, i) => post(manifest.nodes[i % 2]!, tx, "commit")));
      for (const answer of answers) assert.equal(answer.status, 202, JSON.stringify(answer.body));
      txs.push(...batch);
    }
  };
  const creates = owners.map((owner, i) => create(owner, 10n, { label: `state sync asset ${i}`, word: i % 2 === 0 ? "even" : "odd" }));
  await postAll(creates);
  const firsts = creates.map((tx, i) => transfer([{ tx, outputIndex: 0 }], [owners[i]!], [
    { publicKeys: [owners[(i + 1) % owners.length]!.publicKey], amount: 7n },
    { publicKeys: [owners[i]!.publicKey], amount: 3n },
  ], { note: `first transfer ${i}` }));
  await postAll(firsts);
  const seconds = firsts.map((tx, i) => transfer([{ tx, outputIndex: 0 }], [owners[(i + 1) % owners.length]!], [
    { publicKeys: [owners[(i + 2) % owners.length]!.publicKey], amount: 7n },
  ], { note: `second transfer ${i}` }));
  await postAll(seconds);
  return { owners, txs };
}

describe("a node joining by state sync", () => {
  it("refuses a snapshot of another chain, a forged ledger and a corrupted chunk, restores a sound one, and answers as the nodes that replayed", async () => {
    const [validator, fullNode] = manifest.nodes as [TestnetNode, TestnetNode];
    const { owners, txs } = await commitLoad();
    const agreed = await waitForAgreement([validator, fullNode], 1);
    // Three snapshots a light client can verify (their height + 2 committed), the same on both nodes.
    const usable = await waitFor("three snapshots below the tip on both nodes", async () => {
      const heights = snapshotHeights(validator).filter((h) => h <= agreed.height - 2);
      const full = new Set(snapshotHeights(fullNode));
      return heights.length >= 3 && heights.slice(0, 3).every((h) => full.has(h)) ? heights : null;
    }, { timeoutMs: 60_000 });
    await stopTestnet(root, { nodes: [1] });
    // The validator's three highest: another chain's, a forged ledger, a corrupted chunk; the
    // ones above them (too near the tip for the light client) removed, so the order is known.
    const dirOf = (height: number): string => join(root, validator.dataDir, "snapshots", String(height));
    for (const height of snapshotHeights(validator).filter((h) => h > usable[0]!)) rmSync(dirOf(height), { recursive: true });
    editMetadata(dirOf(usable[0]!), (metadata) => ({ ...metadata, chain_id: "another-chain" }));
    await forgeLedger(dirOf(usable[1]!));
    corruptChunk(dirOf(usable[2]!));

    const trust = await fetchTrustPoint(validator.rpc);
    const { node: joiner, index } = addTestnetNode(root, { logLevel: "info", stateSync: trust });
    manifest = JSON.parse(readFileSync(join(root, "testnet.json"), "utf8")) as TestnetManifest;
    await startTestnet(root, { nodes: [index] });
    const log = (): string => readFileSync(logFile(root, joiner, "ledgerd"), "utf8");
    await waitFor("the corrupted chunk refused", () => (log().includes("a chunk does not hash to the snapshot's") ? true : null), { timeoutMs: 120_000 });
    assert.match(log(), new RegExp(`"height":${usable[0]}.*it is of chain another-chain; this node's is`));
    assert.match(log(), new RegExp(`"height":${usable[1]}.*recomputed from its transactions, the light client verified`));
    // Nothing was written for them: the store is still empty.
    assert.equal((await appState(joiner))?.height ?? 0, 0);
    await startTestnet(root, { nodes: [1] });
    await waitForAgreement(manifest.nodes, agreed.height, 120_000);
    assert.match(log(), new RegExp(`"height":${usable[2]}.*"state sync: ledger restored"`));
    // It began at the snapshot: CometBFT holds no block below it.
    const status = await rpc(joiner, "status");
    assert.ok(Number(status.sync_info.earliest_block_height) > usable[2]!, JSON.stringify(status.sync_info));

    const paths = [
      ...txs.filter((_, i) => i % 7 === 0).map((tx) => `/api/v1/transactions/${idOf(tx)}`),
      ...txs.filter((_, i) => i % 11 === 0).map((tx) => `/api/v1/proofs/transactions/${idOf(tx)}`),
      ...txs.filter((_, i) => i % 13 === 0).map((tx) => `/api/v1/blocks?transaction_id=${idOf(tx)}`),
      ...txs.slice(0, 60).filter((_, i) => i % 9 === 0).map((tx) => `/api/v1/transactions?asset_id=${idOf(tx)}`),
      ...owners.filter((_, i) => i % 6 === 0).flatMap((owner) => [
        `/api/v1/outputs?public_key=${owner.publicKey}`,
        `/api/v1/outputs?public_key=${owner.publicKey}&spent=true`,
        `/api/v1/outputs?public_key=${owner.publicKey}&spent=false&include=amount,asset_id`,
        `/api/v1/balances?public_key=${owner.publicKey}`,
      ]),
      ...Array.from({ length: agreed.height }, (_, i) => `/api/v1/blocks/${i + 1}`),
      "/api/v1/assets?search=even", "/api/v1/assets?search=asset&limit=5", "/api/v1/metadata?search=transfer",
      "/api/v1/validators", "/api/v1/blocks/latest", "/api/v1/evidence",
      `/api/v1/proofs/consistency?from=1&to=${agreed.height - 1}`,
    ];
    for (const path of paths) {
      const answers = await Promise.all(manifest.nodes.map((node) => getText(node, path)));
      assert.ok(answers[0] !== null || path.startsWith("/api/v1/blocks/"), `${path} is found on the validator`);
      assert.equal(answers[2], answers[0], `${path}: the state-synced node answers otherwise than the validator`);
      assert.equal(answers[1], answers[0], `${path}: the full node answers otherwise than the validator`);
    }
    // And it goes on with the network: a commit through it reaches every node.
    const last = create(owners[0]!, 1n, { after: "state sync" });
    assert.equal((await post(joiner, last, "commit")).status, 202);
    await waitForAgreement(manifest.nodes, agreed.height + 1, 60_000);
    const read = await Promise.all(manifest.nodes.map((node) => getText(node, `/api/v1/transactions/${idOf(last)}`)));
    assert.ok(read.every((answer) => answer !== null && answer === read[0]));
  });
});
