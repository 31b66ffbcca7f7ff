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
import type { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { openThreadedSqliteStore } from "../../../src/store/sqlite/threadedStore.js";
import { block, createTx, validator } from "./fixtures.js";

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

  it("after close, a write is refused instead of waiting forever", async () => {
    const store = await openThreadedSqliteStore({ path: join(dir, "closed.sqlite") });
    await store.initChain("chain", [validator("a")], "bigchaindb");
    await store.close();
    await assert.rejects(store.commitBlock(block(1, [])), /closed/);
  });
});
