// The node's threads carry names for the operating system (workerThread.ts nameThisThread), so
// that `top -H` and `bench http` tell the verify, writer and checkpoint threads apart.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import { openThreadedSqliteStore } from "../../src/store/sqlite/threadedStore.js";
import { waitFor } from "../helpers/waitFor.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-thread-names-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The names of this process's threads now. */
function threadNames(): string[] {
  return readdirSync("/proc/self/task").map((tid) => readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim());
}

describe("thread names", { skip: process.platform !== "linux" && "names are set through Linux's /proc" }, () => {
  it("the verify, writer and checkpoint threads are named; the main thread keeps its name", async () => {
    const before = threadNames();
    const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 1 });
    // An answer from the verify thread means it has run its module, which names it.
    const answer = await pool.prepare(Buffer.from("{}"));
    assert.ok("code" in answer, "an empty object is no transaction");
    const store = await openThreadedSqliteStore({ path: join(dir, "names.sqlite"), checkpointStartWalBytes: 0 });
    try {
      // The writer answered its open; the checkpoint thread it started names itself when its
      // module has loaded, a moment later.
      const names = await waitFor("the checkpoint thread's name", () => {
        const now = threadNames();
        return now.includes("ledgerd-ckpt") && now;
      });
      for (const name of ["ledgerd-verify", "ledgerd-writer", "ledgerd-ckpt"]) {
        assert.ok(!before.includes(name), `${name} before the threads started`);
        assert.ok(names.includes(name), `${name} among ${names.join(", ")}`);
      }
      assert.equal(names[0], before[0], "the main thread's name is unchanged");
    } finally {
      await store.close();
      await pool.close();
    }
  });
});
