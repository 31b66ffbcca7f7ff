// A SQLite store that lets other connections in (the node's writer, access "readers") copies its
// write-ahead log back into the database on a thread of its own (checkpointer.ts), so that no
// commit pauses for a checkpoint. What the file on disk shows is the evidence: the database file
// itself grows to the ledger's pages although no commit crossed the writer's checkpoint mark.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fallbackFactor } from "../../../src/store/sqlite/checkpointer.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { block, createTx, validator } from "./fixtures.js";
import { waitFor } from "../../helpers/waitFor.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-checkpointer-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

/** A few blocks, far below any checkpoint mark (the default mark is 4,000 pages). */
async function commitBlocks(store: SqliteStore): Promise<void> {
  await store.initChain("chain", [validator("a")], "bigchaindb");
  for (let height = 1; height <= 5; height++) {
    await store.commitBlock(block(height, Array.from({ length: 20 }, (_, i) => createTx({ label: `h${height}-${i}`, data: { text: "x".repeat(200) } }))));
  }
}

/** The ledger's size in pages, as every connection sees it (through the log). */
function ledgerBytes(store: SqliteStore): number {
  return (store.database.pragma("page_count", { simple: true }) as number) * (store.database.pragma("page_size", { simple: true }) as number);
}

/**
 * A store whose thread copies its log: opened, given the blocks, and closed once the copy is on
 * disk; its path. Also a positive sign that a checkpoint thread had its time, for a test that
 * shows another store, opened before, has none.
 */
async function checkpointedStore(): Promise<string> {
  const path = freshPath();
  const store = SqliteStore.open({ path, access: "readers", checkpointIntervalMs: 20, checkpointStartWalBytes: 0 });
  try {
    assert.ok(store.checkpointing, "started at open");
    assert.equal(store.database.pragma("wal_autocheckpoint", { simple: true }), 4000 * fallbackFactor, "the writer's own mark is only a fallback");
    await commitBlocks(store);
    const ledger = ledgerBytes(store);
    await waitFor(`the database file to reach the ledger's ${ledger} bytes`, () => statSync(path).size === ledger);
  } finally {
    await store.close();
  }
  return path;
}

describe("SQLite checkpoints on a thread of their own", () => {
  it("starts its thread at the first commit that leaves the log at checkpointStartWalBytes, not before", async () => {
    const path = freshPath();
    const startWalBytes = 512 * 1024; // a fresh store's log holds ~180 KiB after its schema, a block here ~100 KiB
    const store = SqliteStore.open({ path, access: "readers", checkpointIntervalMs: 20, checkpointStartWalBytes: startWalBytes });
    try {
      assert.equal(store.checkpointing, false, "not at open");
      await store.initChain("chain", [validator("a")], "bigchaindb");
      const seen: boolean[] = [];
      for (let height = 1; !store.checkpointing; height++) {
        assert.ok(height <= 100, "the log never reached the mark");
        await store.commitBlock(block(height, Array.from({ length: 20 }, (_, i) => createTx({ label: `s${height}-${i}`, data: { text: "x".repeat(200) } }))));
        const logBytes = statSync(`${path}-wal`).size;
        assert.equal(store.checkpointing, logBytes >= startWalBytes, `height ${height}: a ${logBytes}-byte log`);
        seen.push(store.checkpointing);
      }
      assert.ok(seen.length > 1, "some commits ran without the thread");
      const ledger = ledgerBytes(store);
      await waitFor(`the thread to copy the log into the database file (${ledger} bytes)`, () => statSync(path).size === ledger);
    } finally {
      await store.close();
    }
  });

  it("copies the log into the database file while no commit reaches the writer's mark", async () => {
    const path = await checkpointedStore();
    assert.equal(existsSync(`${path}-wal`), false, "the thread's connection closed before the writer's (the last one removes the log)");
  });

  it("leaves checkpoints inside commits at 0, and for a store that owns its file", async () => {
    for (const options of [{ access: "readers" as const, checkpointIntervalMs: 0 }, { access: "owner" as const, checkpointIntervalMs: 20 }]) {
      const path = freshPath();
      const store = SqliteStore.open({ path, ...options });
      try {
        assert.equal(store.database.pragma("wal_autocheckpoint", { simple: true }), 4000, `${options.access}: SQLite's own mark`);
        await commitBlocks(store);
        const before = statSync(path).size;
        // A thread of this store's, had one started, would have begun before the one beside and
        // copied at the same pace or faster.
        await checkpointedStore();
        assert.equal(statSync(path).size, before, `${options.access}: nothing copies the log meanwhile`);
        assert.ok(before < ledgerBytes(store), `${options.access}: the blocks are still in the log only`);
      } finally {
        await store.close();
      }
    }
  });
});
