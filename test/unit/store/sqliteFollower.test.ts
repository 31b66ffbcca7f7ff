// A reader's IndexFollower (src/store/sqlite/follower.ts) catching up with its writer's commits
// when one of its reads fails halfway: the next look must take the whole catch-up again, each
// waiting row restored once, so the reader still answers exactly as a reader that never failed.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { indexNames, openDatabase, prepareConnection, type Connection } from "../../../src/store/sqlite/connection.js";
import { IndexFollower } from "../../../src/store/sqlite/follower.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { block, createTx, ref, transferTx, validator } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-follower-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A reader's connection and its follower, as a read-only SqliteStore opens them. */
function openReader(path: string): { readonly c: Connection; readonly follower: IndexFollower; readonly refresh: () => void } {
  const c = prepareConnection(openDatabase(path, "reader"));
  const follower = new IndexFollower(c);
  return { c, follower, refresh: c.db.transaction(() => follower.refresh()) };
}

/** Rows waiting in memory, per index. */
function waiting(c: Connection): Record<string, number> {
  const slices = c.merged.length;
  return Object.fromEntries(indexNames.map((name) => [name, Array.from({ length: slices }, (_, s) => c.index[name].waitingCount(s)).reduce((a, b) => a + b, 0)]));
}

it("a catch-up whose read fails halfway is taken again whole by the next look, no row restored twice", async () => {
  const path = join(dir, "store.sqlite");
  const writer = SqliteStore.open({ path, access: "readers" });
  const failing = openReader(path);
  try {
    await writer.initChain("follower-chain", [validator("a")], "bigchaindb");
    const first = createTx({ label: "f-1", data: { n: 1 } });
    await writer.commitBlock(block(1, [first]));
    failing.refresh();
    const second = createTx({ label: "f-2", data: { n: 2 } });
    await writer.commitBlock(block(2, [second, transferTx({ label: "f-t", assetId: first.assetId, spends: [ref(first, 0)] })]));

    // The outputs are read after the transactions' own rows: a failure there is halfway.
    const outputs = failing.c.read.outputsAfter;
    const iterate = outputs.iterate.bind(outputs);
    let fail = true;
    outputs.iterate = (...args: unknown[]) => {
      if (!fail) return iterate(...args);
      fail = false;
      throw new Error("disk I/O error");
    };
    assert.throws(failing.refresh, /disk I\/O error/);
    failing.refresh();

    const clean = openReader(path);
    try {
      assert.ok(waiting(clean.c).keys! > 0 && waiting(clean.c).spent! > 0, "the writer's rows wait in memory");
      assert.deepEqual(waiting(failing.c), waiting(clean.c));
      assert.equal(failing.follower.current(), true);
    } finally {
      clean.c.db.close();
    }
  } finally {
    failing.c.db.close();
    await writer.close();
  }
});
