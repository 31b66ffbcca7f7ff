// A small ledger of both kinds written through the real ledger (verify-chain's tests, issues
// #15 and #36): height 1 a CREATE of {"note":"height-1"}; each height h of 2-4 and 6-8 a CREATE
// of {"note":"c-h"}, a legacy transaction (variant A at even heights, B at odd: a CREATE, but
// at height 8 a TRANSFER of height 7's) and a TRANSFER with metadata {"note":"tamper-me-h"} of
// the previous TRANSFER's (at 2, height 1's CREATE's) output 0; height 5 empty. v2.0 seqs: 1 at
// height 1, then two per height (2-3 at 2, ..., 12-13 at 8); legacy seqs 1-6 at 2-4 and 6-8.
import assert from "node:assert/strict";
import { LedgerApp } from "../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import type { Store } from "../../src/store/store.js";
import type { LegacyTx } from "../../src/legacy/types.js";
import { hexKey, legacyBytes, legacyCreate, legacyTransfer } from "./legacyFactory.js";
import { bytesOf, create, keypairOf, transfer } from "./txFactory.js";

export async function writeMixedLedger(store: Store): Promise<void> {
  const node = keypairOf("verify-node");
  const alice = keypairOf("verify-alice");
  const ledger = await LedgerApp.open({}, { store, pool: new PreparePool({ ...preparePoolOptionsDefault, threads: 0 }) });
  await ledger.initChain("verify", [{ publicKey: hexKey(node.publicKey), power: 10 }]);
  const signer = { publicKey: node.publicKey, seed: node.seed };
  let last = create(alice, 2n, { note: "height-1" });
  const blocks = [[bytesOf(last)]];
  let legacyLast: LegacyTx | null = null;
  for (let height = 2; height <= 8; height++) {
    const next = transfer([{ tx: last, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 2n }], { note: `tamper-me-${height}` });
    const variant = height % 2 === 0 ? "A" : "B";
    legacyLast = height === 8 && legacyLast !== null
      ? legacyTransfer(variant, [{ tx: legacyLast, cid: 0 }], [alice.publicKey], [alice])
      : legacyCreate(variant, signer, [alice.publicKey], { legacy: `payload-${height}` });
    const legacy = legacyBytes(legacyLast);
    blocks.push(height === 5 ? [] : [bytesOf(create(alice, 1n, { note: `c-${height}` })), legacy, bytesOf(next)]);
    if (height !== 5) last = next;
  }
  for (const txs of blocks) {
    const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs);
    assert.ok(finalized.results.every((r) => r === null), JSON.stringify(finalized.results));
    await ledger.commit();
  }
}
