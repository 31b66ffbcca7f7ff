import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SoloEngine } from "../../../src/engine/solo/soloEngine.js";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { waitFor } from "../../helpers/waitFor.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { removeDir, startSoloStack, testValidator, type SoloStack } from "../../helpers/soloNode.js";

const stacks: SoloStack[] = [];
after(async () => {
  for (const s of stacks) {
    await s.close().catch(() => undefined);
    removeDir(s.dir);
  }
});

async function stack(options: Parameters<typeof startSoloStack>[0] = {}, threads = 0, clock?: ManualClock): Promise<SoloStack> {
  const s = await startSoloStack(options, clock === undefined ? undefined : { clock }, threads);
  stacks.push(s);
  return s;
}

async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LedgerError, `not a LedgerError: ${String(error)}`);
    return error.code;
  }
  assert.fail("expected a rejection");
}

const alice = keypairOf("alice");
const bob = keypairOf("bob");
const carol = keypairOf("carol");

describe("SoloEngine", () => {
  it("records its validator at initChain on a new store", async () => {
    const s = await stack();
    assert.deepEqual(await s.store.getValidators(), [testValidator]);
  });

  it("commit mode answers once the block is durable", async () => {
    const s = await stack();
    const tx = create(alice);
    const prepared = await s.engine.broadcast(bytesOf(tx), "commit");
    assert.equal(prepared.id, tx["id"]);
    assert.notEqual(await s.store.getTransaction(tx["id"] as string), null);
    assert.equal(await s.store.getBlockHeightOfTransaction(tx["id"] as string), 1);
  });

  it("async and sync answer before the block and the block follows", async () => {
    const s = await stack({ blockIntervalMs: 50 });
    const a = create(alice);
    const b = create(bob);
    await s.engine.broadcast(bytesOf(a), "async");
    await s.engine.broadcast(bytesOf(b), "sync");
    assert.equal(await s.store.getTransaction(a["id"] as string), null, "not committed yet");
    const committed = new Promise<number>((resolve) => s.ledger.onCommitted((block) => resolve(block.txs.length)));
    assert.equal(await committed, 2);
    assert.notEqual(await s.store.getTransaction(b["id"] as string), null);
  });

  it("refuses a transaction already pending or committed, with a clear reason", async () => {
    const s = await stack({ blockIntervalMs: 50 });
    const a = create(alice);
    await s.engine.broadcast(bytesOf(a), "async");
    assert.equal(await rejectionCode(s.engine.broadcast(bytesOf(a), "async")), "PendingTransaction");
    await new Promise<void>((resolve) => s.ledger.onCommitted(() => resolve()));
    assert.equal(await rejectionCode(s.engine.broadcast(bytesOf(a), "commit")), "DuplicateTransaction");
  });

  it("two concurrent commit spends of one output: exactly one commits", async () => {
    const s = await stack();
    const asset = create(alice);
    await s.engine.broadcast(bytesOf(asset), "commit");
    const spends = [bob, carol].map((to) =>
      transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [to.publicKey], amount: 1n }]),
    );
    const results = await Promise.allSettled(spends.map((tx) => s.engine.broadcast(bytesOf(tx), "commit")));
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.equal((failed.reason as LedgerError).code, "DoubleSpend");
    // Refused at its check (the pending pool holds the first), in the words the CometBFT engine
    // answers a waiting loser with when the rival's block commits (ledgerCometBft.test.ts).
    assert.equal((failed.reason as LedgerError).message, `input \`${asset["id"]}\` was already spent`);
  });

  it("cuts a block at once when txsPerBlockMax transactions wait, and makes no empty blocks", async () => {
    const clock = new ManualClock();
    const s = await stack({ blockIntervalMs: 60_000, txsPerBlockMax: 4 }, 0, clock);
    const txs = [alice, bob, carol, keypairOf("dave")].map((k) => create(k));
    await Promise.all(txs.map((tx) => s.engine.broadcast(bytesOf(tx), "commit")));
    assert.equal(s.ledger.info().height, 1, "the block was cut with no time passing");
    assert.deepEqual((await s.store.getBlock(1))?.txIds, txs.map((tx) => tx["id"]));
    assert.equal(clock.pending, 0, "no block timer set while nothing waits");
    await clock.advance(60_000 * 3);
    assert.equal(s.ledger.info().height, 1, "no block without transactions");
  });

  it("a commit that does not happen in time answers CommitTimeout", async () => {
    const clock = new ManualClock();
    const s = await stack({ blockIntervalMs: 500, commitTimeoutMs: 10 }, 0, clock);
    const tx = create(alice);
    const answer = rejectionCode(s.engine.broadcast(bytesOf(tx), "commit"));
    await waitFor("the transaction queued", () => clock.pending === 2);
    await clock.advance(10);
    assert.equal(await answer, "CommitTimeout");
    assert.equal(s.ledger.info().height, 0, "the block had not come yet");
    await clock.advance(490);
    await waitFor("the block after the timeout", () => s.ledger.info().height === 1);
    assert.notEqual(await s.store.getTransaction(tx["id"] as string), null, "it may still commit, as the answer says");
  });

  it("resumes from the store's last height after a restart", async () => {
    const first = await startSoloStack();
    const a = create(alice);
    await first.engine.broadcast(bytesOf(a), "commit");
    const { appHash } = first.ledger.info();
    await first.close();
    const again = await stack({}, 0);
    void again;
    const reopened = await startSoloStack({}, { dir: first.dir });
    stacks.push(reopened);
    assert.deepEqual(reopened.ledger.info(), { height: 1, appHash, appVersion: protocolVersion });
    await reopened.engine.broadcast(bytesOf(create(bob)), "commit");
    assert.equal(reopened.ledger.info().height, 2);
  });

  it("stop finishes the transactions already waiting", async () => {
    const clock = new ManualClock();
    const s = await startSoloStack({ blockIntervalMs: 60_000 }, { clock });
    const a = create(alice);
    const done = s.engine.broadcast(bytesOf(a), "commit");
    await s.close();
    await done;
    assert.equal(clock.pending, 0, "no timer left to hold the process open");
    stacks.push(await startSoloStack({}, { dir: s.dir }));
    assert.notEqual(await stacks.at(-1)!.store.getTransaction(a["id"] as string), null);
  });

  it("verifies on worker threads when threads > 0", async () => {
    const s = await stack({}, 2);
    const txs = Array.from({ length: 20 }, (_, i) => create(keypairOf(`worker-${i}`)));
    await Promise.all(txs.map((tx) => s.engine.broadcast(bytesOf(tx), "commit")));
    for (const tx of txs) assert.notEqual(await s.store.getTransaction(tx["id"] as string), null);
    const bad = { ...create(alice), metadata: { tampered: true } };
    assert.equal(await rejectionCode(s.engine.broadcast(bytesOf(bad), "sync")), "InvalidHash");
  });

  it("a disk failure answers at once every commit waiting, also one admitted while the block failed", async () => {
    // A store whose block writes fail as on a full disk. A waiter left behind would get
    // CommitTimeout (504) after commitTimeoutMs instead of EngineUnavailable (503).
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-solo-fail-"));
    const real = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
    const store = new Proxy(real, {
      get(target, property) {
        if (property === "commitBlock") return async () => { throw new Error("SQLITE_FULL: database or disk is full"); };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
    const ledger = await LedgerApp.open({}, { store, pool });
    // checkTx of the late transaction is held until the block has failed.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const late = bytesOf(create(bob));
    const gated = new Proxy(ledger, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (property !== "checkTx" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
        return async (bytes: Uint8Array, ...rest: unknown[]) => {
          if (bytes === late) await gate;
          return (value as (...args: unknown[]) => unknown).call(target, bytes, ...rest);
        };
      },
    });
    let failed: () => void = () => {};
    const fatal = new Promise<void>((resolve) => (failed = resolve));
    const engine = await SoloEngine.start(
      { blockIntervalMs: 5, commitTimeoutMs: 3_000 },
      { ledger: gated, validator: testValidator, onFatal: () => failed() },
    );
    try {
      const lateDone = rejectionCode(engine.broadcast(late, "commit"));
      const first = rejectionCode(engine.broadcast(bytesOf(create(alice)), "commit"));
      assert.equal(await first, "EngineUnavailable");
      await fatal;
      release();
      assert.equal(await lateDone, "EngineUnavailable");
      assert.equal(await rejectionCode(engine.broadcast(bytesOf(create(carol)), "commit")), "ShuttingDown");
    } finally {
      await engine.stop();
      await pool.close();
      await real.close();
      removeDir(dir);
    }
  });
});
