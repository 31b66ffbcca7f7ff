// Issue 38: a validator's ledgerd killed with SIGKILL at chosen points inside its own work,
// made exact by failpoints (src/failpoints.ts; `testnet start` passes LEDGERD_TEST_FAILPOINTS):
// mid-FinalizeBlock (some of a block's transactions executed in memory), between Commit's answer
// and the block's store write, and when an election's conclusion is computed. Each time: load
// with acknowledged commits, the point is reached and the process dies there (its log's last
// line names it), the node is started again as `ledgerd testnet start --node 0` does (CometBFT's
// handshake replays what the store lacks), and then every acknowledged transaction is there with
// the same body, the node commits, and it agrees with its peer (a full node, elected validator
// at the last point) on height and app hash; at the end verify-chain passes on both. One network
// for all points: a validator and a full node; needs CometBFT (scripts/install-cometbft.sh).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FailpointName } from "../../../src/failpoints.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { createTestnet, runningPid, startTestnet, stopTestnet, type TestnetManifest } from "../../../src/testnet/testnet.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { cleanEnv, repoRoot, runLedgerd, runLedgerdAsync } from "../../unit/cli/ledgerdProcess.js";
import { cometLogEnd, freeBasePort, getText, logTail, nodeOf, post, requireCometBft, rpc, waitForAgreement, waitForAppGone } from "./network.js";
import { logFile } from "../../../src/testnet/processes.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-crash-points-"));
let manifest: TestnetManifest;
const owner = makeRandomKeypair();
/** Every transaction answered 202 in mode=commit, by id. */
const acknowledged = new Map<string, JsonObject>();

before(async () => {
  manifest = createTestnet({ validators: 1, fullNodes: 1, dir: root, basePort: await freeBasePort(2), cometbft: requireCometBft(), timeoutCommitMs: 150, logLevel: "warn" });
  // A power of 10 (`cometbft testnet` gives 1): an election may then add a validator of power 1,
  // less than a third of the total, and the network commits without it.
  for (const node of manifest.nodes) {
    const path = join(root, node.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(path, "utf8")) as { validators: { power: string }[] };
    genesis.validators[0]!.power = "10";
    writeFileSync(path, JSON.stringify(genesis, null, 2));
  }
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] !== "1") rmSync(root, { recursive: true, force: true });
});

/** Posts a CREATE in `mode`; a 202 in mode=commit is recorded as acknowledged. */
async function postCreate(mode: "async" | "commit", label: string): Promise<void> {
  const tx = create(owner, 1n, { label });
  const answer = await post(nodeOf(manifest, 0), tx, mode).catch(() => null);
  if (mode === "commit" && answer?.status === 202) acknowledged.set(tx["id"] as string, tx);
}

/**
 * Restarts the validator's ledgerd (and its CometBFT) with `point` armed, runs `drive` until the
 * process dies, checks it died at the point, and starts the node again unarmed.
 */
async function crashAt(point: FailpointName, drive: (round: number) => Promise<void>): Promise<void> {
  const node = nodeOf(manifest, 0);
  await stopTestnet(root, { nodes: [0] });
  await startTestnet(root, { nodes: [0], failpoints: point });
  const pid = runningPid(root, node, "ledgerd");
  assert.ok(pid !== null);
  const cometLogFrom = cometLogEnd(root, node);
  for (let round = 0; existsSync(`/proc/${pid}`); round++) {
    assert.ok(round < 200, `${point} never reached:\n${logTail(root, node, "ledgerd")}`);
    await drive(round);
  }
  const lines = readFileSync(logFile(root, node, "ledgerd"), "utf8").trimEnd().split("\n");
  assert.equal(lines.at(-1), `failpoint ${point}: SIGKILL`, "the process died at the point, by its SIGKILL");
  // CometBFT stops when its ABCI connections close (or is stopped by the start, if its shutdown
  // hangs); it is started again with ledgerd.
  await waitForAppGone(root, node, cometLogFrom);
  await startTestnet(root, { nodes: [0] });
}

/** Every acknowledged transaction on both nodes with its body; a new commit; the same app hash. */
async function assertRecovered(label: string): Promise<void> {
  const node = nodeOf(manifest, 0);
  const after = create(owner, 1n, { label: `${label}, after` });
  const answer = await post(node, after, "commit");
  assert.equal(answer.status, 202, `${JSON.stringify(answer.body)}\n${logTail(root, node, "ledgerd")}`);
  acknowledged.set(after["id"] as string, after);
  await waitForAgreement(manifest.nodes, 1, 60_000);
  for (const peer of manifest.nodes) {
    for (const [id, tx] of acknowledged) {
      const text = await getText(peer, `/api/v1/transactions/${id}`);
      assert.ok(text !== null, `${peer.name} lacks acknowledged ${id}`);
      assert.deepEqual(JSON.parse(text), tx, `${peer.name}: ${id}`);
    }
  }
}

describe("ledgerd killed at its crash points, restarted by the testnet", () => {
  it("finalize.mid: killed with part of a block executed in memory", async () => {
    await crashAt("finalize.mid", async (round) => {
      // Several at once, so that a block carries more than one.
      await Promise.all([0, 1, 2].map((i) => postCreate("async", `finalize ${round}.${i}`)).concat(postCreate("commit", `finalize ${round}`)));
    });
    await assertRecovered("finalize.mid");
  });

  it("commit.answered-before-durable: killed after Commit's answer, before the block's write", async () => {
    const node = nodeOf(manifest, 0);
    const before = Number((await rpc(node, "status")).sync_info.latest_block_height);
    await crashAt("commit.answered-before-durable", (round) => postCreate("commit", `commit ${round}`));
    // CometBFT committed the block the store lacked; the handshake replayed it.
    await waitForAgreement(manifest.nodes, before + 1, 60_000);
    await assertRecovered("commit.answered-before-durable");
  });

  it("election.conclude: killed when the election's conclusion is computed, before its block is durable", async () => {
    const node = nodeOf(manifest, 0);
    const newcomer = nodeOf(manifest, 1);
    const key = (JSON.parse(readFileSync(join(root, newcomer.home, "config", "priv_validator_key.json"), "utf8")) as { pub_key: { value: string } }).pub_key.value;
    const cli = (args: readonly string[]) =>
      spawnSync(process.execPath, [...ledgerdArgs(), ...args, "--data_dir", join(root, node.dataDir)], { cwd: repoRoot, env: cleanEnv(), encoding: "utf8" });
    const made = cli(["election", "new", "upsert-validator", "--public-key", key, "--power", "1", "--node-id", newcomer.nodeId]);
    assert.equal(made.status, 0, made.stdout + made.stderr);
    const id = /Submitted proposal with id: ([0-9a-f]{64})/.exec(made.stdout)![1]!;
    await crashAt("election.conclude", async () => {
      // Its answer is lost with the node; the vote is in the block. Not spawnSync: this process
      // must go on reaping the ledgerd it started, or the dead one stays in /proc.
      await runLedgerdAsync(["election", "approve", id, "--data_dir", join(root, node.dataDir)]);
    });
    await waitFor("CometBFT's set to have the newcomer", async () => ((await rpc(node, "validators")).validators.length === 2 ? true : null), { timeoutMs: 60_000 });
    const shown = cli(["election", "show", id]);
    assert.match(shown.stdout, /^status=concluded$/m, shown.stdout + shown.stderr);
    await assertRecovered("election.conclude");
  });

  it("verify-chain passes on both nodes", async () => {
    await stopTestnet(root);
    for (const peer of manifest.nodes) {
      const verified = runLedgerd(["verify-chain", "--data_dir", join(root, peer.dataDir)]);
      assert.equal(verified.status, 0, `${peer.name}: ${verified.stdout}${verified.stderr}`);
    }
  });
});
