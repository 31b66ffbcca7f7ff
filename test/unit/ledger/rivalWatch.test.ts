// The index of waiting transactions by the outputs they spend (ledger/rivalWatch.ts): a block's
// commit finds exactly the waiters it defeated, and every watch leaves the index when it ends.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { v2Kind } from "../../../src/ledger/kinds/v2/v2Kind.js";
import { RivalWatch } from "../../../src/ledger/rivalWatch.js";
import type { AnyTxKind, PreparedBase } from "../../../src/ledger/txKind.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { openLedger, type LedgerFixture } from "../engine-cometbft/ledgerFixture.js";

const alice = keypairOf("alice");
const bob = keypairOf("bob");
const kind = v2Kind as AnyTxKind;

let fx: LedgerFixture;
before(async () => (fx = await openLedger()));
after(() => fx.close());

async function prepared(tx: JsonObject): Promise<PreparedBase> {
  const result = await fx.ledger.prepare(bytesOf(tx));
  assert.ok(!("code" in result));
  return result;
}

describe("RivalWatch", () => {
  it("finds the waiters a block's spends defeat, once, and forgets every watch that ends", async () => {
    const [a, b] = [create(alice), create(bob)];
    const to = [{ publicKeys: [bob.publicKey], amount: 1n }];
    const both = await prepared(transfer([{ tx: a, outputIndex: 0 }, { tx: b, outputIndex: 0 }], [alice, bob], [{ publicKeys: [bob.publicKey], amount: 2n }]));
    const ofA = await prepared(transfer([{ tx: a, outputIndex: 0 }], [alice], to));
    const ofB = await prepared(transfer([{ tx: b, outputIndex: 0 }], [bob], [{ publicKeys: [alice.publicKey], amount: 1n }]));
    const watch = new RivalWatch(10);
    const defeated: string[] = [];
    const stops = [both, ofA, ofB].map((tx) => watch.watch(kind, tx, () => defeated.push(tx.id))!);
    assert.equal(watch.size, 3);
    // A block carrying ofA defeats `both` (it spends a's output too), not ofA itself nor ofB.
    const found = watch.defeatedBy([ofA], [kind]);
    assert.deepEqual(found.map((r) => r.tx.id), [both.id]);
    assert.equal(watch.size, 2, "a defeated watch has ended");
    assert.deepEqual(watch.defeatedBy([ofA], [kind]), [], "no one is defeated twice");
    for (const stop of stops) stop();
    for (const stop of stops) stop(); // twice is harmless
    assert.equal(watch.size, 0);
    assert.deepEqual(watch.defeatedBy([ofB, ofA], [kind, kind]), []);
    assert.deepEqual(defeated, [], "the watch returns the defeated; the ledger calls them");
  });

  it("does not watch a CREATE (no spends, no rival) and declines past watchesMax", async () => {
    const a = create(alice);
    const watch = new RivalWatch(1);
    assert.ok(watch.watch(kind, await prepared(create(bob)), () => undefined) !== null);
    assert.equal(watch.size, 0);
    const spend = await prepared(transfer([{ tx: a, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]));
    assert.ok(watch.watch(kind, spend, () => undefined) !== null);
    assert.equal(watch.watch(kind, spend, () => undefined), null);
  });
});
