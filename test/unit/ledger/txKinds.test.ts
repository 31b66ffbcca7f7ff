// The kinds of transaction (src/ledger/txKind.ts) as the ledger holds them side by side: which
// kind takes a body at each door, that every prepared transaction finds its kind again and
// crosses a JSON channel intact, and the pending pool keeping each kind's spends apart.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { legacyDoor, v1Door } from "../../../src/ledger/doors.js";
import { legacyKind } from "../../../src/ledger/kinds/legacy/legacyKind.js";
import { kindForBody, kindNamed, kindOf, txKinds } from "../../../src/ledger/kinds/registry.js";
import { v2Kind } from "../../../src/ledger/kinds/v2/v2Kind.js";
import { PendingPool } from "../../../src/ledger/pendingPool.js";
import { prepareBytes } from "../../../src/ledger/prepared.js";
import type { AnyTxKind, PreparedBase } from "../../../src/ledger/txKind.js";
import { readJson } from "../../../src/json/readJson.js";
import { legacyBytes, legacyCreate, legacyTransfer } from "../../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";

const node = keypairOf("kinds node");
const alice = keypairOf("kinds alice");
const v2Create = create(alice, 2n, { kinds: 1 });
const v2Transfer = transfer([{ tx: v2Create, outputIndex: 0 }], [alice], [{ publicKeys: [node.publicKey], amount: 2n }]);
const oldCreate = legacyCreate("A", node, [alice.publicKey]);
const oldTransfer = legacyTransfer("B", [{ tx: oldCreate, cid: 0 }], [node.publicKey], [alice]);
const kinds = txKinds as readonly AnyTxKind[];
const v2 = v2Kind as unknown as AnyTxKind;
const legacy = legacyKind as unknown as AnyTxKind;

function prepared(bytes: Uint8Array, door?: string): PreparedBase {
  const result = prepareBytes(bytes, door);
  if ("code" in result) assert.fail(`${result.code}: ${result.message}`);
  return result;
}

describe("the registered kinds", () => {
  it("have unique names, and each door a kind that takes what no other claims", () => {
    assert.equal(new Set(kinds.map((k) => k.name)).size, kinds.length);
    for (const kind of kinds) assert.equal(kindNamed(kind.name), kind);
    assert.throws(() => kindNamed("nonesuch"));
  });

  it("a body of unknown door goes to the kind its shape says; a door reads only as its kinds", () => {
    const legacyBody = readJson(legacyBytes(oldCreate));
    const v2Body = readJson(bytesOf(v2Create));
    assert.equal(kindForBody(legacyBody, undefined), legacyKind);
    assert.equal(kindForBody(v2Body, undefined), v2Kind);
    assert.equal(kindForBody(legacyBody, v1Door), v2Kind);
    assert.equal(kindForBody(v2Body, legacyDoor), legacyKind);
    assert.throws(() => kindForBody(v2Body, "no such door"));
  });

  it("every prepared transaction finds its kind again and crosses a JSON channel unchanged", () => {
    for (const [bytes, kind] of [
      [bytesOf(v2Create), v2],
      [bytesOf(v2Transfer), v2],
      [legacyBytes(oldCreate), legacy],
      [legacyBytes(oldTransfer), legacy],
    ] as const) {
      const tx = prepared(bytes);
      assert.equal(kindOf(tx), kind);
      const wire: unknown = JSON.parse(JSON.stringify(kind.encode(tx)));
      assert.deepEqual(kind.decode(wire), tx);
    }
  });

  it("the stream hears of v2.0 transactions only", () => {
    const tx = prepared(bytesOf(v2Create));
    assert.deepEqual(v2.event(tx), tx);
    assert.equal(legacy.event(prepared(legacyBytes(oldCreate))), null);
  });
});

describe("PendingPool", () => {
  const spendsOf = (kind: AnyTxKind, tx: PreparedBase) => {
    const keys: string[] = [];
    kind.forEachSpend(tx, (key) => keys.push(key));
    return keys;
  };

  it("holds each kind's spends in its own namespace, and frees them on release", () => {
    const pool = new PendingPool(kinds);
    const spend = prepared(bytesOf(v2Transfer));
    const oldSpend = prepared(legacyBytes(oldTransfer));
    pool.admit(v2, spend);
    pool.admit(legacy, oldSpend);
    assert.equal(pool.size, 2);
    const [v2Key] = spendsOf(v2, spend);
    const [legacyKey] = spendsOf(legacy, oldSpend);
    assert.equal(pool.viewFor(v2, null).isSpent(v2Key!), true);
    assert.equal(pool.viewFor(legacy, null).isSpent(v2Key!), false);
    assert.equal(pool.viewFor(legacy, null).isSpent(legacyKey!), true);
    assert.equal(pool.has(v2, spend.id), true);
    assert.equal(pool.has(legacy, spend.id), false);
    // A recheck of itself: its own id and spends are no conflict.
    const self = pool.viewFor(v2, spend);
    assert.equal(self.isSpent(v2Key!), false);
    assert.equal(self.has(spend.id), false);
    assert.equal(self.get(spend.id), spend);
    pool.release(spend.id);
    assert.equal(pool.viewFor(v2, null).isSpent(v2Key!), false);
    assert.equal(pool.size, 1);
    pool.releaseAll();
    assert.equal(pool.size, 0);
    assert.equal(pool.viewFor(legacy, null).isSpent(legacyKey!), false);
  });

  it("stillValid: a v2.0 spend of committed outputs holds one commit later unless that commit spent its input", () => {
    const pool = new PendingPool(kinds);
    const spend = prepared(bytesOf(v2Transfer));
    pool.admit(v2, spend);
    assert.equal(pool.stillValid(v2, spend), false, "no commit yet");
    pool.noteCommit([], [], []);
    assert.equal(pool.stillValid(v2, spend), true);
    pool.noteStillValid(spend);
    const rival = { ...spend, id: "ff".repeat(32) };
    pool.noteCommit([rival], [v2], [rival.id]);
    assert.equal(pool.stillValid(v2, spend), false, "the last block spent its input");
    // Legacy transactions are always checked in full (the federation can change).
    const oldSpend = prepared(legacyBytes(oldTransfer));
    pool.admit(legacy, oldSpend);
    pool.noteCommit([], [], []);
    assert.equal(pool.stillValid(legacy, oldSpend), false);
  });

  it("releases what the mempool stopped asking about, of every kind, and what a block carried", () => {
    const pool = new PendingPool(kinds);
    const spend = prepared(bytesOf(v2Transfer));
    const oldSpend = prepared(legacyBytes(oldTransfer));
    pool.admit(v2, spend);
    pool.admit(legacy, oldSpend);
    pool.noteIdleSpell();
    pool.noteAsked(legacy, oldSpend);
    pool.noteIdleSpell();
    assert.deepEqual(pool.releaseUnasked(1), [spend.id]);
    pool.noteCommit([], [], [oldSpend.id]);
    assert.equal(pool.size, 0);
    assert.equal(pool.generation, 1);
  });
});
