// Full nodes (issue #14, "nodes that only serve reads"): `ledgerd testnet --validators 2
// --full-nodes 1` on loopback, real CometBFT and ledgerd processes. The full node is not in the
// validator set, holds the whole ledger, answers every read exactly as the validators do, takes
// POSTs (they reach the validators through CometBFT's mempool gossip), and its event stream
// delivers every committed transaction once, in block order. A node added later (`testnet
// add-node`) syncs every block from its peers, replays it to the same app hash, and serves.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { addTestnetNode } from "../../../src/testnet/addNode.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { clientLegacyCreate } from "../../helpers/legacyFactory.js";
import { create, transfer } from "../../helpers/txFactory.js";
import { freeBasePort, getText, post, requireCometBft, rpc, waitForAgreement, withoutLedgerdEnv } from "./network.js";
import { waitFor } from "../../helpers/waitFor.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-fullnodes-"));
/** The caller's LEDGERD_* variables would override the node's config.json. */
let manifest: TestnetManifest;
const validatorsOf = () => manifest.nodes.filter((node) => node.validator !== false);
const fullNode = (): TestnetNode => manifest.nodes.find((node) => node.validator === false)!;
// The network is made with room for the node the last test but one adds.
const nodesAtMost = 4;
const idOf = (tx: JsonObject): string => tx["id"] as string;

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({ validators: 2, fullNodes: 1, dir: root, basePort: await freeBasePort(nodesAtMost), cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

/** Opens the full node's transaction stream; what it has received so far, and a closer. */
async function subscribe(node: TestnetNode): Promise<{ received: { transaction_id: string; height: number }[]; close: () => void }> {
  const index = JSON.parse((await getText(node, "/api/v1/"))!) as { streams: string };
  const socket = new WebSocket(index.streams);
  const received: { transaction_id: string; height: number }[] = [];
  socket.on("message", (data) => received.push(JSON.parse(String(data)) as { transaction_id: string; height: number }));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return { received, close: () => socket.close() };
}

describe("a network of 2 validators and 1 full node", () => {
  it("keeps the full node out of the validator set, on every node's answer", async () => {
    const sets = await Promise.all(manifest.nodes.map((node) => getText(node, "/api/v1/validators")));
    assert.ok(sets.every((set) => set === sets[0]), "every node gives the same set");
    assert.equal((JSON.parse(sets[0]!) as unknown[]).length, 2);
    const status = await rpc(fullNode(), "status");
    assert.equal(status.validator_info.voting_power, "0");
  });

  it("takes POSTs on the full node and serves every read as the validators do; its stream has each commit once, in order", async () => {
    const stream = await subscribe(fullNode());
    try {
      const owner = makeRandomKeypair();
      const txs: JsonObject[] = [];
      for (let i = 0; i < 6; i++) {
        // Alternately to the full node and to a validator; TRANSFERs spend the one before.
        const tx = i === 0 ? create(owner, 5n, { full: "node" }) : transfer([{ tx: txs[i - 1]!, outputIndex: 0 }], [owner], [{ publicKeys: [owner.publicKey], amount: 5n }]);
        const target = i % 2 === 0 ? fullNode() : validatorsOf()[i % 2]!;
        const answer = await post(target, tx, "commit");
        assert.equal(answer.status, 202, `${target.name}: ${JSON.stringify(answer.body)}`);
        txs.push(tx);
      }
      const agreed = await waitForAgreement(manifest.nodes, 1);
      const reads = [
        ...txs.map((tx) => `/api/v1/transactions/${idOf(tx)}`),
        `/api/v1/transactions?asset_id=${idOf(txs[0]!)}`,
        `/api/v1/outputs?public_key=${owner.publicKey}&include=amount,asset_id`,
        `/api/v1/balances?public_key=${owner.publicKey}`,
        ...Array.from({ length: agreed.height }, (_, i) => `/api/v1/blocks/${i + 1}`),
        "/api/v1/blocks/latest",
      ];
      const readEverywhere = (path: string): Promise<(string | null)[]> => Promise.all(manifest.nodes.map((node) => getText(node, path)));
      const same = (answers: (string | null)[]): boolean => answers.every((answer) => answer === answers[0]);
      for (const path of reads) {
        // The chain may still move by a block (the last commit changed the app hash, and
        // CometBFT makes a block to carry it): the latest block is compared once it rests.
        const answers =
          path === "/api/v1/blocks/latest"
            ? await waitFor(`${path} to be the same on every node`, async () => {
                const read = await readEverywhere(path);
                return same(read) ? read : null;
              }, { timeoutMs: 60_000, intervalMs: 250 })
            : await readEverywhere(path);
        assert.ok(answers[0] !== null || path.startsWith("/api/v1/blocks/"), `${path} is found`);
        assert.ok(same(answers), `${path} differs between nodes`);
      }
      // Every committed transaction since the subscription, once, in block order.
      const committed = await waitFor("the full node's stream to deliver the six", async () => (stream.received.length >= txs.length ? stream.received : null), { timeoutMs: 60_000 });
      assert.deepEqual(committed.map((event) => event.transaction_id), txs.map(idOf));
      const heights = committed.map((event) => event.height);
      assert.deepEqual(heights, [...heights].sort((a, b) => a - b));
    } finally {
      stream.close();
    }
  });

  it("a node added later syncs every block from its peers, replays it to the same app hash, then serves", async () => {
    const owner = makeRandomKeypair();
    const txs = Array.from({ length: 20 }, (_, i) => create(owner, 1n, { late: i }));
    for (const [i, tx] of txs.entries()) assert.equal((await post(manifest.nodes[i % 3]!, tx, "sync")).status, 202);
    const before = await waitForAgreement(manifest.nodes, 1);
    const { node, index } = addTestnetNode(root, { logLevel: "warn" });
    manifest = JSON.parse(readFileSync(join(root, "testnet.json"), "utf8")) as TestnetManifest;
    assert.equal(manifest.nodes[index]!.name, node.name);
    assert.equal(node.validator, false);
    await startTestnet(root, { nodes: [index] });
    const after = await waitForAgreement(manifest.nodes, before.height, 60_000);
    assert.ok(after.height >= before.height);
    for (const path of [...txs.map((tx) => `/api/v1/transactions/${idOf(tx)}`), `/api/v1/outputs?public_key=${owner.publicKey}`, "/api/v1/validators", "/api/v1/blocks/latest"]) {
      const answers = await Promise.all(manifest.nodes.map((n) => getText(n, path)));
      assert.ok(answers[0] !== null, path);
      assert.ok(answers.every((answer) => answer === answers[0]), `${path} differs on the added node`);
    }
    // It takes POSTs like any node, and its commits reach every node.
    const last = create(owner, 1n, { late: "posted to the added node" });
    assert.equal((await post(node, last, "commit")).status, 202);
    await waitFor("the added node's commit everywhere", async () => {
      const answers = await Promise.all(manifest.nodes.map((n) => getText(n, `/api/v1/transactions/${idOf(last)}`)));
      return answers.every((answer) => answer !== null) ? true : null;
    }, { timeoutMs: 60_000 });
  });

  it("`ledgerd doctor` passes on a validator and on the full node, saying which is which", async () => {
    for (const node of [validatorsOf()[0]!, fullNode()]) {
      const result = spawnSync(process.execPath, [...ledgerdArgs(), "doctor", "--data_dir", join(root, node.dataDir)], { encoding: "utf8", env: withoutLedgerdEnv() });
      assert.equal(result.status, 0, `${node.name}: ${result.stdout}${result.stderr}`);
      assert.match(result.stdout, node.validator === false ? /ok   validator key: a full node/ : /ok   validator key: a validator with power/);
      assert.doesNotMatch(result.stdout, /FAIL/);
    }
  });

  it("refuses the legacy variants' CREATEs on the full node: its key is no federation key", async () => {
    const answer = await fetch(`http://${fullNode().http}/transactions/`, {
      method: "POST",
      body: writeJson(clientLegacyCreate("A", [makeRandomKeypair().publicKey], { full: "node" })),
    });
    const body = (await answer.json()) as { message: string; status: number };
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.match(body.message, /LegacyOperationError/);
  });
});
