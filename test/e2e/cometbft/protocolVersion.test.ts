// The protocol version on real CometBFT v0.38 (docs/upgrades.md): a chain whose genesis says
// version.app 0 (made before ledgerd reported a protocol version) keeps 0 in every block header
// on nodes of this release, validator and full node alike: InitChain answers the genesis's
// version, and CometBFT's state takes it over Info's (this release's, 1, before InitChain).
// Without that answer the headers would carry 1, and a node of another release would refuse the
// chain's blocks. Afterwards Info reports the chain's own version, 0, as its headers carry it
// (state sync compares the two). Info's version is the release's (package.json).
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { packageInfo } from "../../../src/node/packageInfo.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest } from "../../../src/testnet/testnet.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create } from "../../helpers/txFactory.js";
import { freeBasePort, nodeOf, post, requireCometBft, rpc, waitForAgreement } from "./network.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-protocol-"));
let manifest: TestnetManifest;

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({ validators: 1, fullNodes: 1, dir: root, basePort: await freeBasePort(2), cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  for (const node of manifest.nodes) {
    const path = join(root, node.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(path, "utf8")) as { consensus_params: { version: { app: string } } };
    assert.equal(genesis.consensus_params.version.app, String(protocolVersion), "testnet create writes this release's version");
    genesis.consensus_params.version.app = "0";
    writeFileSync(path, JSON.stringify(genesis, null, 2));
  }
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] !== "1") rmSync(root, { recursive: true, force: true });
});

describe("a chain whose genesis has protocol version 0, on nodes of this release", () => {
  it("keeps version.app 0 in its headers, and the full node accepts them", async () => {
    const answer = await post(nodeOf(manifest, 0), create(makeRandomKeypair(), 1n, { protocol: "0" }), "commit");
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    const agreed = await waitForAgreement(manifest.nodes, 2);
    for (const node of manifest.nodes) {
      const info = await rpc(node, "abci_info");
      // CometBFT's JSON leaves out an app_version of 0 (omitempty).
      assert.equal(info.response.app_version ?? "0", "0", `${node.name}'s Info: the chain's version`);
      assert.equal(info.response.version, packageInfo().version, "Info's version is the release's");
      for (const height of [1, agreed.height]) {
        const block = await rpc(node, `block?height=${height}`);
        // CometBFT's JSON leaves out a version.app of 0 (omitempty).
        assert.equal(block.block.header.version.app ?? "0", "0", `${node.name}'s block ${height}`);
      }
    }
  });
});
