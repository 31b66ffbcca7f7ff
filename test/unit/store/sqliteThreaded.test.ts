// The SQLite store with its writes on a thread of their own (src/store/sqlite/threadedStore.ts):
// the node opens it with the solo engine by default, a failure to open the file is an error at open (not a hang),
// the writer's broken invariants stay assertions, and the main thread's connection only reads.
// Its answers are the conformance suite's (sqliteStore.test.ts runs it on this store too).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { configDefault } from "../../../src/config/defaults.js";
import { moduleOptions } from "../../../src/config/moduleOptions.js";
import { openStore } from "../../../src/node/openStore.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { openThreadedSqliteStore } from "../../../src/store/sqlite/threadedStore.js";
import type { Store } from "../../../src/store/store.js";
import type { CommittedTx, OutputRef } from "../../../src/transaction/committed.js";
import { block, createTx, publicKey, ref, transferTx, validator } from "./fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-threaded-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The connection the store reads through (SqliteStore's diagnostic getter, through the proxy). */
const readsThrough = (store: unknown) => (store as SqliteStore).database;

describe("sqlite store with a writer thread", () => {
  it("is the node's store with the solo engine by default, not under CometBFT; on and off say so", async () => {
    const cases = [
      { engine: "solo", writerThread: "auto", threaded: true },
      { engine: "cometbft", writerThread: "auto", threaded: false },
      { engine: "cometbft", writerThread: "on", threaded: true },
      { engine: "solo", writerThread: "off", threaded: false },
    ] as const;
    assert.equal(configDefault.database.writer_thread, "auto");
    for (const [i, { engine, writerThread, threaded }] of cases.entries()) {
      const config = {
        ...configDefault,
        engine: { ...configDefault.engine, kind: engine },
        database: { ...configDefault.database, path: join(dir, `node-${i}.sqlite`), writer_thread: writerThread },
      };
      const store = await openStore(moduleOptions(config), "writer");
      try {
        await store.initChain("chain", [validator("a")], "bigchaindb");
        await store.commitBlock(block(1, [createTx({ label: `node-${i}` })]));
        assert.equal(readsThrough(store).readonly, threaded, `${engine} with writer_thread ${writerThread}`);
        assert.equal((await store.getChainState()).height, 1);
      } finally {
        await store.close();
      }
    }
  });

  it("a file the writer cannot open is an error at open", async () => {
    const notAFolder = join(dir, "plain-file");
    writeFileSync(notAFolder, "not a folder");
    await assert.rejects(openThreadedSqliteStore({ path: join(notAFolder, "ledger.sqlite") }), /EEXIST|ENOTDIR/);
  });

  it("a commit that breaks an invariant rejects as an AssertionError and writes nothing", async () => {
    const store = await openThreadedSqliteStore({ path: join(dir, "invariant.sqlite") });
    try {
      await store.initChain("chain", [validator("a")], "bigchaindb");
      const c = createTx({ label: "twice" });
      await store.commitBlock(block(1, [c]));
      await assert.rejects(store.commitBlock(block(2, [c])), { name: "AssertionError", message: /stored twice/ });
      assert.equal((await store.getChainState()).height, 1);
      await store.commitBlock(block(2, []));
      assert.equal((await store.getChainState()).height, 2);
    } finally {
      await store.close();
    }
  });

  it("the main thread follows each commit with the index rows the writer hands back, and answers as a connection that reads them back", async () => {
    const path = join(dir, "follow.sqlite");
    // Few slices, few rows waiting and few merged at once: the writer merges slices, some in
    // parts, in most blocks.
    const options = { path, indexSlices: 4, indexRowsWaitingMax: 12, indexMergeRowsMax: 3 };
    const store = await openThreadedSqliteStore(options);
    let reader: SqliteStore | undefined;
    try {
      await store.initChain("chain", [validator("a")], "bigchaindb");
      reader = SqliteStore.open({ ...options, access: "reader" });
      const shared = publicKey("shared");
      const txs: CommittedTx[] = [];
      const answers = async (of: Store) => ({
        ids: [...(await of.findTransactions(txs.map((tx) => tx.id)))].sort(),
        outputs: [...(await of.getOutputs(txs.map((tx) => ref(tx, 0))))].sort(),
        shared: await Promise.all([undefined, true, false].map(async (spent) => (await wholeOf(of).getOutputsByPublicKey(shared, spent)).map((r: OutputRef) => `${r.transactionId}:${r.outputIndex}`).sort())),
        history: await Promise.all(txs.filter((tx) => tx.operation === "CREATE").map(async (tx) => (await wholeOf(of).getTransactionsByAsset(tx.assetId)).length)),
      });
      let unspent: CommittedTx[] = [];
      for (let height = 1; height <= 24; height++) {
        const made = [0, 1, 2].map((i) => createTx({ label: `follow-${height}-${i}`, outputs: [{ keys: [shared, publicKey(`own-${height}-${i}`)] }] }));
        const moved = unspent.map((tx, i) => transferTx({ label: `move-${height}-${i}`, assetId: tx.assetId, spends: [ref(tx, 0)], outputs: [{ keys: [i % 2 === 0 ? shared : publicKey(`to-${height}`)] }] }));
        const commit = store.commitBlock(block(height, [...made, ...moved]));
        if (height % 3 === 0) {
          // A read between the writer's commit and the main thread's taking its answer follows
          // the commit by reading it back; the rows handed over after it must not count twice.
          while ((await store.getChainState()).height < height) await new Promise((resolve) => setImmediate(resolve));
        }
        await commit;
        txs.push(...made, ...moved);
        unspent = [...made, ...moved.filter((_, i) => i % 2 === 0)].slice(0, 4);
        assert.deepEqual(await answers(store), await answers(reader), `block ${height}`);
        // The same rows wait in memory on both connections: none twice, none of a merged slice.
        assert.equal((store as unknown as SqliteStore).indexRowsWaiting, reader.indexRowsWaiting, `rows waiting after block ${height}`);
      }
      const spentShared = (await wholeOf(store).getOutputsByPublicKey(shared, true)).length;
      assert.ok(spentShared > 10, `spends were followed: ${spentShared}`);
    } finally {
      await reader?.close();
      await store.close();
    }
  });

  it("after close, a write is refused instead of waiting forever", async () => {
    const store = await openThreadedSqliteStore({ path: join(dir, "closed.sqlite") });
    await store.initChain("chain", [validator("a")], "bigchaindb");
    await store.close();
    await assert.rejects(store.commitBlock(block(1, [])), /closed/);
  });
});
