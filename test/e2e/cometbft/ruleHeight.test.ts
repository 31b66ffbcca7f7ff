// A rule change switched on at a height named in the genesis (docs/upgrades.md "A rule change at a
// height"), on real CometBFT: 2 validators and a full node whose ledgerd knows a toy rule change
// (toyRuleLedgerd.ts) that moves the protocol version from 1 to 2; the genesis's app_state names
// height 4 for it. Every node answers FinalizeBlock 3 with the new version, so every header from
// 4 carries 2 and the chain goes on (a validator that had not switched would refuse block 4, and
// with 2 validators nothing would commit without it). A node restarted after the switch reads
// the heights back from its store and agrees.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { packageRoot } from "../../../src/engine/cometbft/cometBftSupervisor.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest } from "../../../src/testnet/testnet.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { freeBasePort, nodeOf, post, requireCometBft, rpc, waitForAgreement } from "./network.js";
import { runnableModule } from "../../../src/workerThread.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-rule-height-"));
const switchHeight = 4;
const toyEntry = { args: [runnableModule(import.meta.url, "./toyRuleLedgerd")], cwd: packageRoot() };
let manifest: TestnetManifest;

before(async () => {
  manifest = createTestnet({ validators: 2, fullNodes: 1, dir: root, basePort: await freeBasePort(3), cometbft: requireCometBft(), timeoutCommitMs: 100, logLevel: "warn" });
  for (const node of manifest.nodes) {
    const path = join(root, node.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(path, "utf8")) as { app_state: Record<string, unknown> };
    genesis.app_state = { ...genesis.app_state, rule_heights: { toy_version_two: switchHeight } };
    writeFileSync(path, JSON.stringify(genesis, null, 2));
  }
  await startTestnet(root, { launch: () => ({ ledgerd: toyEntry }) });
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] !== "1") rmSync(root, { recursive: true, force: true });
});

/** Commits one CREATE through node 0: a block (the testnet makes no empty ones). */
async function oneBlock(n: number): Promise<void> {
  const answer = await post(nodeOf(manifest, 0), create(keypairOf("rule-height"), 1n, { n }), "commit");
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
}

/** The version.app of each node's header at each height (CometBFT's JSON leaves out a 0). */
async function headerVersions(heights: readonly number[]): Promise<string[][]> {
  return Promise.all(manifest.nodes.map((node) => Promise.all(heights.map(async (h) => String((await rpc(node, `block?height=${h}`)).block.header.version.app ?? "0")))));
}

describe("a rule change at a height the genesis names", () => {
  it("switches the protocol version at exactly that height on every node, and the chain goes on", async () => {
    for (let n = 0; (await waitForAgreement(manifest.nodes)).height < switchHeight + 2; n++) await oneBlock(n);
    const heights = [1, switchHeight - 1, switchHeight, switchHeight + 1];
    const before = String(protocolVersion);
    const after = String(protocolVersion + 1n);
    assert.deepEqual(await headerVersions(heights), manifest.nodes.map(() => [before, before, after, after]));
    for (const node of manifest.nodes) assert.equal((await rpc(node, "abci_info")).response.app_version, after, node.name);
  });

  it("a validator restarted after the switch reads the rule heights back and keeps committing with the other", async () => {
    await stopTestnet(root, { nodes: [1] });
    await startTestnet(root, { nodes: [1], launch: () => ({ ledgerd: toyEntry }) });
    const from = (await waitForAgreement(manifest.nodes)).height;
    await oneBlock(1_000);
    const agreed = await waitForAgreement(manifest.nodes, from + 1);
    assert.deepEqual(await headerVersions([agreed.height]), manifest.nodes.map(() => [String(protocolVersion + 1n)]));
    assert.equal((await rpc(nodeOf(manifest, 1), "abci_info")).response.app_version, String(protocolVersion + 1n));
  });
});
