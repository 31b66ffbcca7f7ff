// A byzantine validator (issue 38): validator 0's key runs on two nodes at once, a real 4-validator
// testnet on loopback (real CometBFT and ledgerd processes) plus a fifth node whose CometBFT holds
// a copy of node 0's priv_validator_key.json and an empty signing state, so it signs again what
// node 0 signs. When validator 0 proposes, each copy proposes its own block and prevotes it:
// two votes of one validator for one height, round and step. CometBFT detects them, commits
// DuplicateVoteEvidence in a block, and every node's ledgerd gets it in FinalizeBlock's
// misbehavior: each records the same evidence naming validator 0, lists it at
// GET /api/v1/evidence, counts it in ledgerd_evidence_total and logs it; and the network does
// not fork (the honest nodes agree on every block's app hash). It needs CometBFT
// (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { configFileName } from "../../../src/config/loadConfig.js";
import { addTestnetNode } from "../../../src/testnet/addNode.js";
import { logFile } from "../../../src/testnet/processes.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { freeBasePort, getText, post, requireCometBft, rpc, shareValidatorKey, validatorAddressOf, waitForAgreement } from "./network.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-byzantine-"));
/** The port above a node's five (testnet.ts portOffset) where its metrics are served. */
const metricsOffset = 5;
let manifest: TestnetManifest;
let honest: TestnetNode[];
let everyNode: TestnetNode[];

const metricsUrl = (node: TestnetNode): string => {
  const [host, port] = node.http.split(":") as [string, string];
  return `http://${host}:${Number(port) + metricsOffset}/metrics`;
};

/** Turns on a node's metrics (off by default) before it starts. */
function enableMetrics(node: TestnetNode): void {
  const path = join(root, node.dataDir, configFileName);
  const config = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const url = new URL(metricsUrl(node));
  writeFileSync(path, JSON.stringify({ ...config, metrics: { bind: `${url.hostname}:${url.port}` } }, null, 2));
}

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({ validators: 4, dir: root, basePort: await freeBasePort(5), cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  for (const node of manifest.nodes) enableMetrics(node);
  await startTestnet(root);
  honest = manifest.nodes.slice(1);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

describe("a validator whose key signs on two nodes (double signing)", () => {
  it("has its duplicate votes committed as evidence that every node records, lists, counts and logs; the network does not fork", async (t) => {
    const owner = makeRandomKeypair();
    assert.equal((await post(manifest.nodes[1]!, create(owner, 1n, { byzantine: 0 }), "commit")).status, 202);
    const { node: twin } = addTestnetNode(root, { timeoutCommitMs: 150, logLevel: "warn" });
    enableMetrics(twin);
    shareValidatorKey(root, manifest.nodes[0]!, twin);
    await startTestnet(root, { nodes: [manifest.nodes.length] });
    everyNode = [...manifest.nodes, twin];
    const address = validatorAddressOf(root, manifest.nodes[0]!);

    // Transactions keep proposers proposing (blocks are made only for transactions), so that
    // validator 0's turns come while both its copies are in consensus.
    let sent = 0;
    const twinStarted = Date.now();
    const evidence = await waitFor(
      "CometBFT to commit evidence of validator 0's double signing",
      async () => {
        const target = honest[sent % honest.length]!;
        await post(target, create(owner, 1n, { byzantine: ++sent }), "async").catch(() => undefined);
        const text = await getText(honest[0]!, "/api/v1/evidence");
        const list = text === null ? [] : (JSON.parse(text) as { height: number }[]);
        return list.length > 0 ? list : null;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    const carried = evidence[0]!.height;
    const waitedMs = Date.now() - twinStarted;
    const agreed = await waitForAgreement(honest, carried, 60_000);

    // Every node, the byzantine pair included, records the same evidence (what its blocks carry).
    const lists = await waitFor("every node to have committed the evidence's block", async () => {
      const texts = await Promise.all(everyNode.map((node) => getText(node, `/api/v1/evidence?height=${carried}`)));
      return texts.every((text) => text !== null && text !== "[]") ? texts : null;
    }, { timeoutMs: 60_000 });
    assert.ok(lists.every((text) => text === lists[0]), lists.join("\n"));
    const first = (JSON.parse(lists[0]!) as { type: string; validator: { address: string; power: number }; infraction_height: number }[])[0]!;
    assert.equal(first.type, "duplicate_vote");
    assert.equal(first.validator.address, address);
    assert.ok(first.infraction_height < carried);
    // CometBFT's own block holds the same evidence (the header's evidence hash covers it).
    const block = await rpc(honest[0]!, `block?height=${carried}`);
    const inBlock = block.block.evidence.evidence as { value: { vote_a: { validator_address: string } } }[];
    assert.ok(inBlock.length > 0 && inBlock.every((e) => e.value.vote_a.validator_address === address), JSON.stringify(inBlock));

    for (const node of everyNode) {
      const metrics = await (await fetch(metricsUrl(node))).text();
      const count = /^ledgerd_evidence_total\{type="duplicate_vote"\} (\d+)$/m.exec(metrics)?.[1];
      assert.ok(count !== undefined && Number(count) >= 1, `${node.name}: ${metrics.split("\n").filter((l) => l.includes("evidence")).join("; ")}`);
      const log = readFileSync(logFile(root, node, "ledgerd"), "utf8");
      assert.match(log, /"msg":"a committed block carries evidence of a validator's misbehavior"/, node.name);
    }

    t.diagnostic(`evidence of the infraction at height ${first.infraction_height} committed at ${carried}, ${waitedMs} ms and ${sent} transactions after the twin started; honest nodes agree up to ${agreed.height}`);

    // No fork: the honest nodes hold the same app hash at every height up to where they agree.
    for (let height = 1; height <= agreed.height; height++) {
      const hashes = await Promise.all(honest.map(async (node) => (await rpc(node, `block?height=${height}`)).block.header.app_hash as string));
      assert.ok(hashes.every((hash) => hash === hashes[0]), `height ${height}: ${hashes.join(", ")}`);
    }
  });
});
