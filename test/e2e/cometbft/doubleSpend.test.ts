// Issue 38: the loser of a double spend in `mode=commit` on a real 4-validator network. Two
// different TRANSFERs of one output go to two nodes at once; both nodes take theirs (neither has
// seen the other's yet), one commits, and CometBFT drops the other at its recheck without a
// word. The node that holds the loser's request answers it 400 DoubleSpend when the rival's block
// commits there. The commit timeout is ten minutes, so a 504 cannot be the answer within the
// test's own limit. Both orders of posting, over several pairs of nodes, so the race happens.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest } from "../../../src/testnet/testnet.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create, transfer } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { freeBasePort, getText, nodeOf, post, requireCometBft, setCommitTimeout, waitForAgreement } from "./network.js";

const validators = 4;
/** Longer than the test may run: a loser still waiting could only be answered after it. */
const commitTimeoutMs = 10 * 60_000;
const rounds = 8;
const root = mkdtempSync(join(tmpdir(), "ledgerd-doublespend-"));
let manifest: TestnetManifest;

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({ validators, dir: root, basePort: await freeBasePort(validators), cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  setCommitTimeout(root, manifest, commitTimeoutMs);
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

const idOf = (tx: JsonObject): string => tx["id"] as string;

/** Whether every node answers GET /api/v1/transactions/<id> with 200 (true) or 404 (false) for each id. */
async function everywhere(ids: readonly string[], present: boolean): Promise<boolean> {
  for (const node of manifest.nodes) {
    for (const id of ids) if (((await getText(node, `/api/v1/transactions/${id}`)) !== null) !== present) return false;
  }
  return true;
}

describe("a double spend's loser in mode=commit on a 4-validator network", () => {
  it("is answered 400 DoubleSpend when the rival commits, not 504 after the commit timeout", { timeout: 5 * 60_000 }, async () => {
    const winners: string[] = [];
    const losers: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const owner = makeRandomKeypair();
      const asset = create(owner, 1n, { round, run: randomBytes(8).toString("hex") });
      assert.equal((await post(nodeOf(manifest, round % validators), asset, "commit")).status, 202);
      await waitFor(`round ${round}'s asset on every node`, () => everywhere([idOf(asset)], true));
      const rivals = [0, 1].map(() =>
        transfer([{ tx: asset, outputIndex: 0 }], [owner], [{ publicKeys: [makeRandomKeypair().publicKey], amount: 1n }]),
      );
      // Two nodes a round, each pair in turn; every other round the second node's rival goes first.
      const nodes = [nodeOf(manifest, round % validators), nodeOf(manifest, (round + 1 + Math.floor(round / validators)) % validators)];
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const answers: { status: number; body: { message?: string } }[] = [];
      await Promise.all(order.map(async (i) => (answers[i] = await post(nodes[i]!, rivals[i], "commit"))));
      const statuses = answers.map((a) => a.status);
      assert.deepEqual([...statuses].sort(), [202, 400], `round ${round}: ${JSON.stringify(answers)}`);
      const lost = statuses.indexOf(400);
      assert.equal(answers[lost]!.body.message, `Invalid transaction (DoubleSpend): input \`${idOf(asset)}\` was already spent`);
      winners.push(idOf(rivals[1 - lost]!));
      losers.push(idOf(rivals[lost]!));
    }
    await waitForAgreement(manifest.nodes);
    assert.equal(await everywhere(winners, true), true, "every winner is on every node");
    assert.equal(await everywhere(losers, false), true, "no loser is on any node");
  });
});
