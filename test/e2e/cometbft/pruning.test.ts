// Pruned engine stores (issue 39; docs/proofs.md "Signed headers"): with engine.retain_blocks 3,
// ledgerd's Commit answers a retain_height and CometBFT prunes its block store below it, while
// ledgerd keeps the signed headers its proofs carry: a proof for a transaction in a pruned height,
// anchored there (so its header is one CometBFT no longer holds), still verifies against the
// genesis validators. One validator, blocks made by committed posts.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { trustedValidatorsOf, verifyTransactionProof, type TransactionProof } from "../../../src/proofs/verify.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { freeBasePort, httpUrl, post, requireCometBft, rpc } from "./network.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-pruning-"));
const retainBlocks = 3;
let manifest: TestnetManifest;
const node = (): TestnetNode => manifest.nodes[0]!;

before(async () => {
  manifest = createTestnet({ validators: 1, dir: root, basePort: await freeBasePort(1), cometbft: requireCometBft(), timeoutCommitMs: 50, logLevel: "warn" });
  await startTestnet(root, { launch: () => ({ env: { ledgerd: { LEDGERD_ENGINE_RETAIN_BLOCKS: String(retainBlocks) } } }) });
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

const earliestHeight = async (): Promise<number> => Number((await rpc(node(), "status")).sync_info.earliest_block_height);

describe("a CometBFT node with engine.retain_blocks", () => {
  it("prunes its block store, and a proof anchored at a pruned height still verifies", async () => {
    const first = create(keypairOf("pruned-0"), 1n, { pruned: 0 });
    assert.equal((await post(node(), first, "commit")).status, 202);
    const id = first["id"] as string;
    const heights = (await (await fetch(`${httpUrl(node())}/api/v1/blocks?transaction_id=${id}`)).json()) as number[];
    assert.equal(heights.length, 1);
    const height = heights[0]!;
    // Blocks, one per committed post, until CometBFT holds neither the block nor the header
    // after it (the header that carries the app hash after `height`).
    await waitFor("CometBFT pruned past the first transaction's block", async () => {
      if ((await earliestHeight()) > height + 1) return true;
      const next = create(keypairOf("pruned-more"), 1n, { pruned: Date.now() });
      assert.equal((await post(node(), next, "commit")).status, 202);
      return null;
    });
    await assert.rejects(rpc(node(), `block?height=${height}`), /not available|lowest height/);
    const response = await fetch(`${httpUrl(node())}/api/v1/proofs/transactions/${id}?height=${height}`);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const proof = JSON.parse(text) as TransactionProof;
    assert.equal(proof.height, height);
    const genesis = JSON.parse(readFileSync(join(root, node().home, "config", "genesis.json"), "utf8"));
    const verdict = verifyTransactionProof(proof, { validators: trustedValidatorsOf(genesis), chainId: manifest.chainId }, id);
    assert.ok(verdict.ok, JSON.stringify(verdict));
  });
});
