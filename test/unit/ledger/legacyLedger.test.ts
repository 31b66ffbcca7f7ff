// The ledger with legacy transactions (issue #6): v2.0 and legacy transactions of both variants
// in the same blocks, the app hash over every valid id in block order, one spent index across
// the variants, double spends in a block and against the pending pool, refusals at execution
// recorded as `invalid`, the federation = the validator set, and the verified B examples.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { V1Chain } from "../../helpers/appHashV1.js";
import { transactionProof } from "../../../src/ledger/proofs.js";
import { verifyTransactionProof } from "../../../src/proofs/verify.js";
import { legacyDoor, v1Door } from "../../../src/ledger/doors.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import type { LegacyTx } from "../../../src/legacy/types.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { BlockWrite, Store } from "../../../src/store/store.js";
import { readJson } from "../../../src/json/readJson.js";
import { hexKey, idOf, legacyBytes, legacyCreate, legacyTransfer } from "../../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
const node = keypairOf("legacy ledger node");
const otherValidator = keypairOf("legacy other validator");
const [alice, bob, carol] = ["alice", "bob", "carol"].map(keypairOf) as [
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
];

interface Counting {
  readonly writes: BlockWrite[];
  readonly legacyReads: string[];
}

/** The store, recording each block write and each legacy read the ledger makes. */
function counting(store: Store, log: Counting): Store {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (name === "commitBlock") log.writes.push(args[0] as BlockWrite);
        if (typeof name === "string" && /Legacy|getValidators/.test(name)) log.legacyReads.push(name);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function openLedger(federation: readonly string[] = [node.publicKey]) {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-legacy-ledger-"));
  dirs.push(dir);
  const sqlite = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
  const log: Counting = { writes: [], legacyReads: [] };
  const store = counting(sqlite, log);
  const ledger = await LedgerApp.open({}, { store, pool });
  await ledger.initChain("legacy-chain", federation.map((key) => ({ publicKey: hexKey(key), power: 10 })));
  return { ledger, store, log };
}

async function block(ledger: LedgerApp, txs: readonly Uint8Array[]) {
  const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs);
  const committed = await ledger.commit();
  return { ...finalized, committed };
}

const codes = (results: readonly ({ code: string } | null)[]) => results.map((r) => r?.code ?? null);

describe("LedgerApp with legacy transactions", () => {
  it("v2.0 and legacy transactions of both variants share a block; the app hash covers every valid id in order", async () => {
    const { ledger, store } = await openLedger();
    const v2 = create(alice);
    const a = legacyCreate("A", node, [alice.publicKey]);
    const b = legacyCreate("B", node, [bob.publicKey]);
    const v2Transfer = transfer([{ tx: v2, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    const result = await block(ledger, [legacyBytes(a), bytesOf(v2), legacyBytes(b), bytesOf(v2Transfer)]);
    assert.deepEqual(result.results, [null, null, null, null]);
    const order = [idOf(a), v2["id"] as string, idOf(b), v2Transfer["id"] as string];
    assert.equal(result.appHash, new V1Chain().next(1, order));
    // The v2.0 reads and the event's `txs` see the v2.0 transactions only.
    assert.deepEqual((await store.getBlock(1))?.txIds, [v2["id"], v2Transfer["id"]]);
    assert.deepEqual(result.committed.txs.map((tx) => tx.id), [v2["id"], v2Transfer["id"]]);
    assert.deepEqual(result.committed.committed.map((tx) => tx.id), order);
    assert.equal(await store.getLegacyTransaction(idOf(a)), legacyBytes(a).toString());
    assert.equal(await store.getTransaction(idOf(a)), null);
    assert.deepEqual(await store.getLegacyRecord(idOf(b)), { status: "valid", height: 1 });
    // Every valid transaction of either kind has a proof, at its place in the block.
    for (const [index, id] of order.entries()) {
      const proof = { ...(await transactionProof(store, id)), signed_header: null };
      assert.equal(proof.block.index, index);
      assert.ok(verifyTransactionProof(proof, {}, id).ok, id);
    }
  });

  it("a block without legacy transactions reads nothing legacy and writes no legacy part", async () => {
    const { ledger, log } = await openLedger();
    log.legacyReads.length = 0;
    const v2 = create(alice);
    await ledger.checkTx(bytesOf(v2));
    await block(ledger, [bytesOf(v2)]);
    assert.deepEqual(log.legacyReads, []);
    assert.equal(log.writes.at(-1)?.legacy, undefined);
  });

  it("spends across variants: a B TRANSFER of an A CREATE in the same block, an A TRANSFER of it later", async () => {
    const { ledger, store } = await openLedger();
    const a = legacyCreate("A", node, [alice.publicKey]);
    const b = legacyTransfer("B", [{ tx: a, cid: 0 }], [bob.publicKey], [alice]);
    assert.deepEqual((await block(ledger, [legacyBytes(a), legacyBytes(b)])).results, [null, null]);
    const back = legacyTransfer("A", [{ tx: b, cid: 0 }], [carol.publicKey], [bob]);
    assert.deepEqual((await block(ledger, [legacyBytes(back)])).results, [null]);
    const outputs = await store.getLegacyOutputs([{ txid: idOf(a), cid: 0 }, { txid: idOf(b), cid: 0 }]);
    assert.deepEqual([...outputs.values()].map((o) => o.spentBy), [idOf(b), idOf(back)]);
  });

  it("a double spend across variants in one block: the later is refused, recorded invalid, left out of the app hash", async () => {
    const { ledger, store, log } = await openLedger();
    const a = legacyCreate("A", node, [alice.publicKey]);
    await block(ledger, [legacyBytes(a)]);
    const chain = new V1Chain();
    assert.equal(ledger.info().appHash, chain.next(1, [idOf(a)]));
    const first = legacyTransfer("B", [{ tx: a, cid: 0 }], [bob.publicKey], [alice]);
    const second = legacyTransfer("A", [{ tx: a, cid: 0 }], [carol.publicKey], [alice]);
    const result = await block(ledger, [legacyBytes(first), legacyBytes(second)]);
    assert.deepEqual(codes(result.results), [null, "DoubleSpend"]);
    assert.equal(result.appHash, chain.next(2, [idOf(first)]));
    const record = await store.getLegacyRecord(idOf(second));
    assert.equal(record?.status, "invalid");
    assert.equal(record?.status === "invalid" && record.code, "DoubleSpend");
    assert.equal(await store.getLegacyTransaction(idOf(second)), null);
    assert.deepEqual(log.writes.at(-1)?.legacy?.invalid.map((r) => r.id), [idOf(second)]);
    // A missing input at execution is recorded too; a later good copy makes it valid.
    const orphan = legacyTransfer("A", [{ tx: first, cid: 0 }], [alice.publicKey], [bob]);
    const grandchild = legacyTransfer("B", [{ tx: orphan, cid: 0 }], [bob.publicKey], [alice]);
    const out = await block(ledger, [legacyBytes(grandchild), legacyBytes(orphan)]);
    assert.deepEqual(codes(out.results), ["InputDoesNotExist", null]);
    assert.equal((await store.getLegacyRecord(idOf(grandchild)))?.status, "invalid");
    assert.deepEqual((await block(ledger, [legacyBytes(grandchild)])).results, [null]);
    assert.equal((await store.getLegacyRecord(idOf(grandchild)))?.status, "valid");
  });

  it("a copy of a committed legacy transaction is refused but not recorded: that transaction stays valid", async () => {
    const { ledger, store, log } = await openLedger();
    const a = legacyCreate("B", node, [alice.publicKey]);
    await block(ledger, [legacyBytes(a)]);
    const again = await block(ledger, [legacyBytes(a), legacyBytes(a)]);
    assert.deepEqual(codes(again.results), ["DuplicateTransaction", "DuplicateTransaction"]);
    assert.deepEqual(log.writes.at(-1)?.legacy, { txs: [], invalid: [] });
    assert.deepEqual(await store.getLegacyRecord(idOf(a)), { status: "valid", height: 1 });
  });

  it("checkTx: a spend of an output a pending transaction spends is a DoubleSpend, in either variant", async () => {
    const { ledger } = await openLedger();
    const a = legacyCreate("A", node, [alice.publicKey]);
    await block(ledger, [legacyBytes(a)]);
    const first = legacyTransfer("A", [{ tx: a, cid: 0 }], [bob.publicKey], [alice]);
    const second = legacyTransfer("B", [{ tx: a, cid: 0 }], [carol.publicKey], [alice]);
    assert.equal((await ledger.checkTx(legacyBytes(first))).ok, true);
    assert.equal(ledger.isPending(idOf(first), legacyDoor), true);
    const conflict = await ledger.checkTx(legacyBytes(second));
    assert.ok(!conflict.ok);
    assert.equal(conflict.rejection.code, "DoubleSpend");
    assert.equal(ledger.isPending(idOf(second), legacyDoor), false);
    assert.equal(ledger.pendingCount, 1);
    // The same one again is pending; dryCheckTx says the same and admits nothing.
    const again = await ledger.checkTx(legacyBytes(first));
    assert.ok(!again.ok);
    assert.equal(again.rejection.code, "PendingTransaction");
    const dry = await ledger.dryCheckTx(legacyBytes(second), legacyDoor);
    assert.ok(!dry.ok);
    assert.equal(dry.rejection.code, "DoubleSpend");
    // A spend of the pending one's output is admitted (chained); the block commits both.
    const chained = legacyTransfer("B", [{ tx: first, cid: 0 }], [carol.publicKey], [bob]);
    assert.equal((await ledger.checkTx(legacyBytes(chained))).ok, true);
    assert.deepEqual((await block(ledger, [legacyBytes(first), legacyBytes(chained)])).results, [null, null]);
    assert.equal(ledger.isPending(idOf(first), legacyDoor), false);
    assert.equal(ledger.pendingCount, 0);
    // Once committed, the conflicting one is still a DoubleSpend; a committed one a duplicate.
    const late = await ledger.checkTx(legacyBytes(second));
    assert.ok(!late.ok);
    assert.equal(late.rejection.code, "DoubleSpend");
    const duplicate = await ledger.checkTx(legacyBytes(first));
    assert.ok(!duplicate.ok);
    assert.equal(duplicate.rejection.code, "DuplicateTransaction");
  });

  it("recheckTx keeps a legacy transaction that still holds and drops one whose input a block spent", async () => {
    const { ledger } = await openLedger();
    const a = legacyCreate("A", node, [alice.publicKey]);
    const c = legacyCreate("B", node, [bob.publicKey]);
    await block(ledger, [legacyBytes(a), legacyBytes(c)]);
    const pendingSpend = legacyTransfer("A", [{ tx: a, cid: 0 }], [bob.publicKey], [alice]);
    const keeps = legacyTransfer("B", [{ tx: c, cid: 0 }], [alice.publicKey], [bob]);
    assert.equal((await ledger.checkTx(legacyBytes(pendingSpend))).ok, true);
    assert.equal((await ledger.checkTx(legacyBytes(keeps))).ok, true);
    // Another node's block spends `a` first (CometBFT: a block from another proposer).
    const rival = legacyTransfer("B", [{ tx: a, cid: 0 }], [carol.publicKey], [alice]);
    await block(ledger, [legacyBytes(rival)]);
    const dropped = await ledger.recheckTx(legacyBytes(pendingSpend));
    assert.ok(!dropped.ok);
    assert.equal(dropped.rejection.code, "DoubleSpend");
    assert.equal(ledger.isPending(idOf(pendingSpend), legacyDoor), false);
    assert.equal((await ledger.recheckTx(legacyBytes(keeps))).ok, true);
    assert.equal(ledger.isPending(idOf(keeps), legacyDoor), true);
    ledger.releaseAll();
    assert.equal(ledger.pendingCount, 0);
  });

  it("refusals: a missing input, a CREATE not signed by the federation, a wrong id, a bad signature", async () => {
    const { ledger, store } = await openLedger([node.publicKey, otherValidator.publicKey]);
    const ghost = legacyCreate("A", node, [alice.publicKey]);
    const missing = legacyTransfer("A", [{ tx: ghost, cid: 0 }], [bob.publicKey], [alice]);
    const byClient = legacyCreate("B", alice, [alice.publicKey]);
    const wrongId = { ...legacyCreate("A", node, [alice.publicKey]), id: "0".repeat(64) };
    const signed = legacyCreate("B", node, [alice.publicKey]);
    const badSignature = JSON.parse(JSON.stringify(signed).replace(/"cf:4:([A-Za-z0-9_-])/, (_m, c: string) => `"cf:4:${c === "A" ? "B" : "A"}`)) as LegacyTx;
    const expected: [LegacyTx, string][] = [
      [missing, "InputDoesNotExist"],
      [byClient, "LegacyOperationError"],
      [wrongId, "InvalidHash"],
      [badSignature, "InvalidSignature"],
    ];
    for (const [tx, code] of expected) {
      const result = await ledger.checkTx(legacyBytes(tx));
      assert.ok(!result.ok, code);
      assert.equal(result.rejection.code, code);
    }
    assert.equal(ledger.pendingCount, 0);
    // Any validator's key is a federation key (docs/legacy-variants.md §7.2).
    const byOther = legacyCreate("A", otherValidator, [alice.publicKey]);
    assert.equal((await ledger.checkTx(legacyBytes(byOther))).ok, true);
    assert.deepEqual((await block(ledger, [legacyBytes(byOther), legacyBytes(byClient)])).results.map((r) => r?.code ?? null), [null, "LegacyOperationError"]);
    assert.equal((await store.getLegacyRecord(idOf(byClient)))?.status, "invalid");
  });

  it("threshold in both variants: an n-of-n output is spent only when every owner signs", async () => {
    const { ledger } = await openLedger();
    for (const variant of ["A", "B"] as const) {
      const shared = legacyCreate(variant, node, [alice.publicKey, bob.publicKey, carol.publicKey]);
      assert.deepEqual((await block(ledger, [legacyBytes(shared)])).results, [null]);
      const partial = legacyTransfer(variant, [{ tx: shared, cid: 0 }], [carol.publicKey], [alice, bob]);
      const refused = await ledger.checkTx(legacyBytes(partial));
      assert.ok(!refused.ok);
      assert.equal(refused.rejection.code, "InvalidSignature");
      const other = variant === "A" ? "B" : "A";
      const all = legacyTransfer(other, [{ tx: shared, cid: 0 }], [alice.publicKey, bob.publicKey], [alice, bob, carol]);
      assert.deepEqual((await block(ledger, [legacyBytes(all)])).results, [null]);
      // Its output is a 2-of-2 threshold again, spent by both.
      const onward = legacyTransfer(variant, [{ tx: all, cid: 0 }], [carol.publicKey], [alice, bob]);
      assert.deepEqual((await block(ledger, [legacyBytes(onward)])).results, [null]);
    }
  });

  it("each kind is refused where the other is expected, as its own rules refuse it", async () => {
    const { ledger } = await openLedger();
    const legacy = legacyCreate("A", node, [alice.publicKey]);
    const v2 = create(alice);
    const asCurrent = await ledger.checkTx(legacyBytes(legacy), v1Door);
    assert.ok(!asCurrent.ok);
    assert.equal(asCurrent.rejection.code, "InvalidHash"); // the v2.0 id rule, as before issue #6
    const asLegacy = await ledger.checkTx(bytesOf(v2), "legacy");
    assert.ok(!asLegacy.ok);
    assert.equal(asLegacy.rejection.code, "LegacyInvalid");
    assert.match(asLegacy.rejection.message, /unknown transaction shape/);
    assert.equal(ledger.pendingCount, 0);
    // Without a kind (CometBFT's mempool), each is told by its shape; the cache keeps both.
    assert.equal((await ledger.checkTx(legacyBytes(legacy))).ok, true);
    assert.equal((await ledger.checkTx(bytesOf(v2))).ok, true);
    const again = await ledger.checkTx(legacyBytes(legacy), v1Door);
    assert.ok(!again.ok);
    assert.equal(again.rejection.code, "InvalidHash");
  });
});

describe("the verified Variant B examples through the ledger", () => {
  const example = (name: string) =>
    readJson(readFileSync(new URL(`../legacy/examples/${name}`, import.meta.url), "utf8")) as LegacyTx;
  const posted = example("legacy-variantB-create-post-response.json");
  const spend = example("legacy-variantB-transfer-post-response.json");
  // The example's single node signed the CREATE: make its key the validator set.
  const exampleNode = posted["assignee"] as string;

  it("the posted CREATE and the TRANSFER spending it commit, stored without `assignee`", async () => {
    const { ledger, store } = await openLedger([exampleNode]);
    const create = await ledger.checkTx(legacyBytes(posted), "legacy");
    assert.equal(create.ok, true);
    assert.deepEqual((await block(ledger, [legacyBytes(posted)])).results, [null]);
    assert.deepEqual((await block(ledger, [legacyBytes(spend)])).results, [null]);
    const stored = JSON.parse((await store.getLegacyTransaction(idOf(spend)))!) as Record<string, unknown>;
    const { assignee: _, ...expected } = JSON.parse(JSON.stringify(spend)) as Record<string, unknown>;
    assert.deepEqual(stored, expected);
    const output = (await store.getLegacyOutputs([{ txid: idOf(posted), cid: 0 }])).get(`${idOf(posted)}:0`);
    assert.equal(output?.spentBy, idOf(spend));
  });

  it("under another federation the same CREATE is refused (only federation nodes create)", async () => {
    const { ledger } = await openLedger([node.publicKey]);
    const result = await ledger.checkTx(legacyBytes(posted));
    assert.ok(!result.ok);
    assert.equal(result.rejection.code, "LegacyOperationError");
  });
});
