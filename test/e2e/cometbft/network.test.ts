// Issue #5, "Done when": a real 4-validator network on loopback — four CometBFT processes and
// four ledgerd processes made and run by `ledgerd testnet` — and what it must survive:
//   - a transaction posted to any node is readable from every node (legacy CREATEs too, which
//     need the node's key to be a validator's);
//   - all nodes hold identical blocks and app hashes;
//   - the official driver's end-to-end scenarios pass against one node;
//   - one validator stopped: the others keep committing; restarted, it catches up;
//   - two of four stopped: no commits (no quorum); restarted: commits resume, nothing lost;
//   - a ledgerd killed with SIGKILL restarts and replays to the same app hash, and a ledger that
//     lost blocks is brought back by CometBFT's handshake replay.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import type { LegacyTx } from "../../../src/legacy/types.js";
import type { Keypair } from "../../../src/transaction/builders/makeKeypair.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { clientLegacyCreate, idOf as legacyIdOf } from "../../helpers/legacyFactory.js";
import { create, transfer } from "../../helpers/txFactory.js";
import { driverScenarios, type NodeUnderTest } from "../driverScenarios.js";
import { appState, consensusRound, freeBasePort, getText, httpUrl, killLedgerd, ledgerDataDir, logTail, nodeOf, post, prevoteStep, requireCometBft, rpc, waitForAgreement, type ConsensusRound } from "./network.js";
import { waitFor } from "../../helpers/waitFor.js";
import { session } from "../../helpers/streamSession.js";

const validators = 4;
const root = mkdtempSync(join(tmpdir(), "ledgerd-testnet-"));
let manifest: TestnetManifest;

const keypair = (): Keypair => makeRandomKeypair();
const newCreate = (owner: Keypair): JsonObject => create(owner, 1n, { testnet: randomBytes(8).toString("hex") });
const idOf = (tx: JsonObject): string => tx["id"] as string;

/**
 * Waits until `node` is where a block at `height` needs the stopped validators: it holds `pending`
 * transactions or more, it has prevoted, and it holds the prevotes of the `live` validators while
 * still in the prevote step, which CometBFT leaves at once when the prevotes it holds reach 2/3 of
 * the voting power. A block made without a quorum fails it: the node would be past `height`.
 */
async function stuckWithoutQuorum(node: TestnetNode, height: number, live: number, pending: number): Promise<void> {
  let seen: ConsensusRound | null = null;
  try {
    await waitFor(
      `${node.name} to wait for a quorum at the prevotes of height ${height}`,
      async () => {
        seen = await consensusRound(node);
        assert.ok(seen.height <= height, `${node.name} went on to height ${seen.height} without a quorum`);
        const held = Number((await rpc(node, "num_unconfirmed_txs")).total);
        return seen.height === height && seen.step === prevoteStep && seen.prevotes === live && held >= pending;
      },
      { timeoutMs: 60_000 },
    );
  } catch (error) {
    if (error instanceof Error) error.message += `; its consensus was at ${JSON.stringify(seen)}`;
    throw error;
  }
}

/** Every id readable from every given node (GET /transactions/<id> is 200). */
async function readableEverywhere(ids: readonly string[], nodes = manifest.nodes, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `${ids.length} transactions on ${nodes.map((n) => n.name).join(", ")}`,
    async () => {
      for (const node of nodes) for (const id of ids) if ((await getText(node, `/api/v1/transactions/${id}`)) === null) return null;
      return true;
    },
    { timeoutMs },
  );
}

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({
    validators,
    dir: root,
    basePort: await freeBasePort(validators),
    cometbft,
    timeoutCommitMs: 150,
    logLevel: "warn",
  });
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

describe("a 4-validator CometBFT network on loopback", () => {
  it("makes every transaction posted to any node readable from every node", async () => {
    const ids: string[] = [];
    for (const [i, node] of manifest.nodes.entries()) {
      const owner = keypair();
      const asset = newCreate(owner);
      const created = await post(node, asset, "commit");
      assert.equal(created.status, 202, JSON.stringify(created.body));
      const next = manifest.nodes[(i + 1) % validators]!;
      // A commit answer means committed on the node that answered; another node applies the
      // same block a moment later, so a client spending there waits until it sees the output.
      await readableEverywhere([idOf(asset)], [next]);
      const spend = transfer([{ tx: asset, outputIndex: 0 }], [owner], [{ publicKeys: [keypair().publicKey], amount: 1n }]);
      const sent = await post(next, spend, "sync");
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      ids.push(idOf(asset), idOf(spend));
    }
    await readableEverywhere(ids);
  });

  it("refuses on every node what the network refuses: a double spend and a pending duplicate", async () => {
    const owner = keypair();
    const asset = newCreate(owner);
    assert.equal((await post(nodeOf(manifest, 0), asset, "commit")).status, 202);
    await readableEverywhere([idOf(asset)]);
    const toA = transfer([{ tx: asset, outputIndex: 0 }], [owner], [{ publicKeys: [keypair().publicKey], amount: 1n }]);
    const toB = transfer([{ tx: asset, outputIndex: 0 }], [owner], [{ publicKeys: [keypair().publicKey], amount: 1n }]);
    assert.equal((await post(nodeOf(manifest, 1), toA, "commit")).status, 202);
    // Once node2 has the block too, its own check refuses toB before broadcasting it (the race
    // where node2 takes toB first and answers at toA's block is doubleSpend.test.ts's).
    await readableEverywhere([idOf(toA)], [nodeOf(manifest, 2)]);
    const refused = await post(nodeOf(manifest, 2), toB, "commit");
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /^Invalid transaction \(DoubleSpend\)/);
    const again = await post(nodeOf(manifest, 3), asset, "sync");
    assert.equal(again.status, 400);
    assert.match(again.body.message, /DuplicateTransaction/);
  });

  it("takes legacy CREATEs: each ledgerd signs them with its validator key, a federation key", async () => {
    for (const [i, variant] of (["A", "B"] as const).entries()) {
      const node = nodeOf(manifest, i);
      const privValidatorKey = readFileSync(join(root, node.home, "config", "priv_validator_key.json"), "utf8");
      const validatorKey = Buffer.from((JSON.parse(privValidatorKey) as { pub_key: { value: string } }).pub_key.value, "base64");
      const answer = await fetch(`${httpUrl(node)}/transactions/`, {
        method: "POST",
        body: writeJson(clientLegacyCreate(variant, [keypair().publicKey], { testnet: variant })),
      });
      const body = (await answer.json()) as LegacyTx & { assignee: string };
      assert.equal(answer.status, 201, JSON.stringify(body));
      assert.equal(body.assignee, encodeBase58(validatorKey));
      const other = nodeOf(manifest, (i + 1) % validators);
      await waitFor(`legacy ${variant} CREATE valid on ${other.name}`, async () => {
        const status = await getText(other, `/transactions/${legacyIdOf(body)}/status`);
        return status !== null && (JSON.parse(status) as { status: string }).status === "valid" ? true : null;
      }, { timeoutMs: 60_000 });
    }
  });

  it("holds identical blocks and app hashes on all nodes", async () => {
    const agreed = await waitForAgreement(manifest.nodes, 2);
    assert.notEqual(agreed.appHash, "", "transactions were committed, so the app hash is set");
    // CometBFT's blocks: the same hash and header app hash at every height on every node.
    for (let height = 1; height <= agreed.height; height++) {
      const blocks = await Promise.all(manifest.nodes.map((n) => rpc(n, `block?height=${height}`)));
      const hashes = new Set(blocks.map((b) => `${b.block_id.hash}/${b.block.header.app_hash}`));
      assert.equal(hashes.size, 1, `CometBFT blocks differ at height ${height}`);
      // ledgerd's blocks: the same transactions in the same order on every node.
      const ours = await Promise.all(manifest.nodes.map((n) => getText(n, `/api/v1/blocks/${height}`)));
      assert.ok(ours[0] !== null, `ledgerd has no block ${height}`);
      assert.ok(ours.every((b) => b === ours[0]), `ledgerd blocks differ at height ${height}`);
    }
    // Under CometBFT the streams are fed as under solo: resumed from height 1 on another node,
    // the block stream replays every block ledgerd holds there, with its ids.
    const node1 = nodeOf(manifest, 1);
    const blocks = await Promise.all(Array.from({ length: agreed.height }, (_, i) => getText(node1, `/api/v1/blocks/${i + 1}`)));
    const ids = blocks.map((b) => (JSON.parse(b!) as { transactions: { id: string }[] }).transactions.map((tx) => tx.id));
    const wsPort = Number(node1.ws.split(":")[1]);
    const replayed = session(`ws://127.0.0.1:${wsPort}/api/v1/streams/valid_blocks?from_height=1`, agreed.height, false);
    await replayed.done;
    assert.deepEqual(replayed.messages.map((m) => (JSON.parse(m) as { transaction_ids: string[] }).transaction_ids), ids);
    // CometBFT records the ledger's app hash in the header of the block after the one that
    // changed it (with create_empty_blocks = false it makes that block for this very purpose).
    const ours = Buffer.from(agreed.appHash, "base64").toString("hex").toUpperCase();
    await waitFor("the ledger's app hash in a CometBFT block header", async () => {
      const status = await rpc(nodeOf(manifest, 0), "status");
      return status.sync_info.latest_app_hash === ours ? true : null;
    }, { timeoutMs: 60_000 });
  });

  describe("the official driver's end-to-end scenarios against node0", () => {
    let node: NodeUnderTest;
    before(() => {
      const node0 = nodeOf(manifest, 0);
      const port = Number(node0.ws.split(":")[1]);
      node = { baseUrl: `http://${node0.http}`, streamsUrl: `ws://127.0.0.1:${port}/api/v1/streams/valid_transactions` };
    });
    driverScenarios(() => node);
  });

  it("keeps committing with one validator stopped; restarted, it catches up", async () => {
    const stopped = nodeOf(manifest, 3);
    await stopTestnet(root, { nodes: [3] });
    const live = manifest.nodes.slice(0, 3);
    const before = await waitForAgreement(live);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const tx = newCreate(keypair());
      const answer = await post(nodeOf(manifest, i), tx, "commit");
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      ids.push(idOf(tx));
    }
    const during = await waitForAgreement(live, before.height + 1);
    assert.ok(during.height > before.height, "the three live validators committed blocks");
    assert.equal(await appState(stopped), null, "the stopped validator is down");
    await startTestnet(root, { nodes: [3] });
    await readableEverywhere(ids, [stopped], 60_000);
    await waitForAgreement(manifest.nodes, during.height, 60_000);
  });

  it("commits nothing with two of four stopped; restarted, commits resume and nothing is lost", async () => {
    await stopTestnet(root, { nodes: [2, 3] });
    const live = manifest.nodes.slice(0, 2);
    // Read once the two are alone: a block the four had already decided may land as they stop.
    const before = await waitForAgreement(live);
    const txs = [newCreate(keypair()), newCreate(keypair()), newCreate(keypair())];
    for (const [i, tx] of txs.entries()) {
      // Accepted into CometBFT's mempool, but no block without 2/3 of the voting power.
      const answer = await post(nodeOf(manifest, i % 2), tx, "async");
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
    }
    for (const node of live) await stuckWithoutQuorum(node, before.height + 1, live.length, txs.length);
    for (const node of live) {
      assert.equal((await appState(node))?.height, before.height, `${node.name} committed without a quorum`);
      for (const tx of txs) assert.equal(await getText(node, `/api/v1/transactions/${idOf(tx)}`), null);
    }
    await startTestnet(root, { nodes: [2, 3] });
    await readableEverywhere(txs.map(idOf), manifest.nodes, 60_000);
    const after = await waitForAgreement(manifest.nodes, before.height + 1, 60_000);
    assert.ok(after.height > before.height);
  });

  it("a ledgerd killed with SIGKILL under load restarts and replays to the same app hash", async () => {
    const victim = nodeOf(manifest, 1);
    const ids: string[] = [];
    let loading = true;
    let failed: string | null = null;
    const load = (async () => {
      while (loading) {
        const tx = newCreate(keypair());
        const answer = await post(nodeOf(manifest, 0), tx, "sync");
        if (answer.status === 202) ids.push(idOf(tx));
        // Paces the load only: what is asserted is counted, not timed.
        await sleep(5);
      }
    })();
    // Seen by the waits below; `await load` still throws it.
    load.catch((error: unknown) => void (failed = `the load failed (${String(error)})`));
    const loadFailed = (): string | null => failed;
    try {
      // Transactions in flight when node1 dies, and more while it is down.
      await waitFor("the load to reach 6 transactions before the kill", () => ids.length >= 6, { timeoutMs: 60_000, abortIf: loadFailed });
      await killLedgerd(root, victim);
      const whileDown = ids.length + 6;
      await waitFor("6 more transactions while node1 is down", () => ids.length >= whileDown, { timeoutMs: 60_000, abortIf: loadFailed });
      loading = false;
      await load;
      assert.ok(ids.length > 10, `too little load: ${ids.length}`);
    } finally {
      loading = false;
      // Also when a check above failed, so that the tests after this one find four nodes.
      await startTestnet(root, { nodes: [1] });
    }
    await readableEverywhere(ids, [victim], 60_000);
    await waitForAgreement(manifest.nodes, 0, 60_000);
  });

  it("replays, at the handshake, blocks that a restarted ledger lacks", async () => {
    const node = nodeOf(manifest, 2);
    const dataDir = ledgerDataDir(root, node);
    const saved = join(root, "saved-ledger");
    await stopTestnet(root, { nodes: [2] });
    mkdirSync(saved, { recursive: true });
    const files = ["ledgerd.sqlite", "ledgerd.sqlite-wal", "ledgerd.sqlite-shm"].filter((f) => existsSync(join(dataDir, f)));
    for (const file of files) copyFileSync(join(dataDir, file), join(saved, file));
    await startTestnet(root, { nodes: [2] });
    const old = await waitForAgreement(manifest.nodes);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const tx = newCreate(keypair());
      assert.equal((await post(node, tx, "commit")).status, 202);
      ids.push(idOf(tx));
    }
    const ahead = await waitForAgreement(manifest.nodes, old.height + 1);
    // node2's ledger goes back to before those blocks; its CometBFT still has them.
    await stopTestnet(root, { nodes: [2] });
    for (const file of ["ledgerd.sqlite", "ledgerd.sqlite-wal", "ledgerd.sqlite-shm"]) rmSync(join(dataDir, file), { force: true });
    for (const file of files) copyFileSync(join(saved, file), join(dataDir, file));
    await startTestnet(root, { nodes: [2] });
    // startTestnet returns once CometBFT's RPC answers, which is after the handshake: the blocks
    // CometBFT already had are back in the ledger before any new block could arrive.
    const replayed = await appState(node);
    assert.ok(replayed !== null && replayed.height >= ahead.height, `${JSON.stringify(replayed)} < ${ahead.height}\n${logTail(root, node, "cometbft")}`);
    await readableEverywhere(ids, [node], 60_000);
    const again = await waitForAgreement(manifest.nodes, ahead.height, 60_000);
    assert.ok(again.height >= ahead.height);
  });
});
