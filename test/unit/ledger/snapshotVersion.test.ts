// A state-sync snapshot carries the chain's genesis protocol version and rule heights, and a
// restore keeps them as InitChain would have: after a restore CometBFT compares Info's
// app_version with the version its light client verified, so a chain whose genesis says version
// 0 (ledgerd 0.1.0's) must come back at 0, not at this release's version. Real SQLite files.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { takeSnapshot } from "../../../src/ledger/snapshotTake.js";
import { restoreSnapshot } from "../../../src/ledger/snapshotRestore.js";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { openLedger, type LedgerFixture } from "../engine-cometbft/ledgerFixture.js";

const validators = [{ publicKey: "ab".repeat(32), power: 10 }];
let source: LedgerFixture;
let target: LedgerFixture;

before(async () => {
  source = await openLedger();
  target = await openLedger();
  await source.ledger.initChain("version-zero", validators, "v1", { appVersion: 0n, ruleHeights: new Map() });
  await source.ledger.finalizeBlock(1, [bytesOf(create(keypairOf("alice")))]);
  await source.ledger.commit();
});

after(async () => {
  await source.close();
  await target.close();
});

describe("a snapshot's protocol version", () => {
  it("is the genesis's, and a restored ledger reports it as the source does", async () => {
    assert.notEqual(protocolVersion, 0n, "the case needs a genesis version other than this release's");
    const chunks: Buffer[] = [];
    const metadata = await takeSnapshot(source.store, 1, async (_index, chunk) => void chunks.push(chunk));
    assert.equal(metadata.app_version, "0");
    assert.deepEqual(metadata.rule_heights, {});
    const refused: string[] = [];
    await restoreSnapshot(target.ledger, metadata, (async function* () { yield* chunks; })(), {
      store: target.store,
      onRefused: (_height, reason) => void refused.push(reason),
    });
    assert.deepEqual(refused, []);
    assert.deepEqual(target.ledger.info(), source.ledger.info());
    assert.equal(target.ledger.info().appVersion, 0n);
    assert.equal((await target.store.getChainState()).appVersion, 0n);
  });
});
