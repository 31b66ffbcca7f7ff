// Legacy transactions (issue #6) through the CometBFT engine's broadcaster: checked by the
// ledger first, then `broadcast_tx_sync`, with the same answer mapping as v2.0
// (docs/compatibility.md #5); each kind refused, without broadcasting, on the other kind's path.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { CometBftBroadcaster } from "../../../src/engine/cometbft/cometBftBroadcaster.js";
import { legacyDoor, v1Door } from "../../../src/ledger/doors.js";
import type { PreparedLegacyTx } from "../../../src/legacy/types.js";
import type { RpcCaller } from "../../../src/engine/cometbft/rpcClient.js";
import { hexKey, idOf, legacyBytes, legacyCreate, legacyTransfer } from "../../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { openLedger, type LedgerFixture } from "./ledgerFixture.js";
import { refusal } from "../../helpers/refusal.js";

const validatorKey = keypairOf("cometbft legacy validator");
const alice = keypairOf("alice");

let fx: LedgerFixture;
let calls: { method: string; tx: string }[];
let answer: unknown;
let broadcaster: CometBftBroadcaster;

beforeEach(async () => {
  fx = await openLedger();
  await fx.ledger.initChain("test-chain", [{ publicKey: hexKey(validatorKey.publicKey), power: 1 }]);
  calls = [];
  answer = { code: 0, hash: "AB" };
  const rpc: RpcCaller = {
    call: async (method, params) => {
      calls.push({ method, tx: params["tx"] as string });
      return answer;
    },
  };
  broadcaster = new CometBftBroadcaster({ rpcTimeoutMs: 500, commitTimeoutMs: 300 }, { ledger: fx.ledger, rpc, durable: async () => undefined });
});
afterEach(() => fx.close());

describe("CometBftBroadcaster.broadcast through the legacy door", () => {
  it("checks, then hands the bytes to broadcast_tx_sync, and answers with the prepared transaction", async () => {
    const tx = legacyCreate("A", validatorKey, [alice.publicKey]);
    const prepared = (await broadcaster.broadcast(legacyBytes(tx), "sync", legacyDoor)) as PreparedLegacyTx;
    assert.equal(prepared.id, idOf(tx));
    assert.equal(prepared.variant, "A");
    assert.deepEqual(calls, [{ method: "broadcast_tx_sync", tx: Buffer.from(legacyBytes(tx)).toString("base64") }]);
    // The check did not join the pending pool: CometBFT's CheckTx does that.
    assert.equal(fx.ledger.pendingCount, 0);
  });

  it("maps CometBFT's CheckTx refusal as for v2.0", async () => {
    answer = { code: 1, codespace: "DoubleSpend", log: "refused by CheckTx" };
    const error = await refusal(broadcaster.broadcast(legacyBytes(legacyCreate("B", validatorKey, [alice.publicKey])), "sync", legacyDoor));
    assert.equal(error.code, "DoubleSpend");
    assert.equal(error.message, "refused by CheckTx");
  });

  it("refuses without broadcasting: a CREATE by a non-validator, and each kind on the other's path", async () => {
    const byClient = await refusal(broadcaster.broadcast(legacyBytes(legacyCreate("A", alice, [alice.publicKey])), "sync", legacyDoor));
    assert.equal(byClient.code, "LegacyOperationError");
    const v2OnLegacy = await refusal(broadcaster.broadcast(bytesOf(create(alice)), "sync", legacyDoor));
    assert.equal(v2OnLegacy.code, "LegacyInvalid");
    const legacyOnV2 = await refusal(broadcaster.broadcast(legacyBytes(legacyCreate("A", validatorKey, [alice.publicKey])), "sync", v1Door));
    assert.equal(legacyOnV2.code, "InvalidHash");
    assert.deepEqual(calls, []);
  });

  it("answers a legacy commit 400 DoubleSpend once a block commits its rival, in legacy words", async () => {
    const asset = legacyCreate("A", validatorKey, [alice.publicKey]);
    await fx.ledger.finalizeBlock(1, [legacyBytes(asset)]);
    await fx.ledger.commit();
    const bob = keypairOf("bob");
    const [loser, rival] = [bob, alice].map((to) => legacyTransfer("A", [{ tx: asset, cid: 0 }], [to.publicKey], [alice]));
    answer = new Promise(() => undefined); // CometBFT dropped it at its recheck: no answer comes
    const waiting = refusal(broadcaster.broadcast(legacyBytes(loser!), "commit", legacyDoor));
    await fx.ledger.finalizeBlock(2, [legacyBytes(rival!)]);
    await fx.ledger.commit();
    const error = await waiting;
    assert.equal(error.code, "DoubleSpend");
    assert.equal(error.message, `input \`${idOf(asset)}\` (cid 0) was already spent`);
  });
});
