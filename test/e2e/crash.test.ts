// Crash safety (issue #3): a real child process commits transactions under load and is killed
// with SIGKILL at random moments, 20 times. After every restart: each transaction acknowledged as
// committed is present, no block is partial, heights are contiguous, the app-hash chain
// recomputes, and no output is spent twice.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { V1Chain } from "../helpers/appHashV1.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { Random } from "../helpers/random.js";

const kills = 20;
const child = fileURLToPath(new URL("./crashChild.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ledgerd-crash-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the child until `killAfterMs` after it is ready, kills it, and returns what it acknowledged. */
function runAndKill(killAfterMs: number): Promise<{ acked: string[]; readyHeight: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--import", "tsx", child, dir], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let readyHeight = -1;
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (readyHeight < 0) {
        const ready = /READY (\d+)\n/.exec(out);
        if (ready !== null) {
          readyHeight = Number(ready[1]);
          setTimeout(() => proc.kill("SIGKILL"), killAfterMs);
        }
      }
    });
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    proc.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") return reject(new Error(`child exited ${code} ${signal}: ${err}`));
      // Only whole lines count: a line cut by the kill was never fully acknowledged.
      const acked = [...out.matchAll(/^ACK ([0-9a-f]{64})$/gm)].map((m) => m[1]!);
      resolve({ acked, readyHeight });
    });
  });
}

describe("crash safety under SIGKILL", () => {
  it(`keeps every acknowledged commit across ${kills} kills`, async () => {
    const random = new Random(20261121);
    const acked: string[] = [];
    let lastHeight = 0;
    for (let round = 0; round < kills; round++) {
      const result = await runAndKill(300 + random.int(700));
      assert.ok(result.readyHeight >= lastHeight, "a restart resumes at or after the last height");
      acked.push(...result.acked);
      lastHeight = result.readyHeight;
    }
    assert.ok(acked.length > kills * 5, `too little load: ${acked.length} acknowledged`);

    const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
    let inBlocks = 0;
    try {
      for (const id of acked) assert.notEqual(await store.getTransaction(id), null, `acknowledged ${id} lost`);
      const { height, appHash } = await store.getChainState();
      let hash = "";
      // The app hash rule of a chain the solo engine began (docs/proofs.md).
      const chain = new V1Chain();
      const spent = new Set<string>();
      for (let h = 1; h <= height; h++) {
        const block = await store.getBlock(h);
        assert.ok(block !== null, `block ${h} missing: heights are not contiguous`);
        for (const id of block.txIds) {
          assert.equal(await store.getBlockHeightOfTransaction(id), h, `block ${h} is partial`);
        }
        const txs = (await store.getBlockTransactions(h)) ?? [];
        assert.equal(txs.length, block.txIds.length, `block ${h} is partial`);
        for (const json of txs) {
          for (const input of JSON.parse(json).inputs as { fulfills: { transaction_id: string; output_index: number } | null }[]) {
            if (input.fulfills === null) continue;
            const key = `${input.fulfills.transaction_id}:${input.fulfills.output_index}`;
            assert.ok(!spent.has(key), `output ${key} spent twice`);
            spent.add(key);
          }
        }
        inBlocks += block.txIds.length;
        hash = chain.next(h, block.txIds);
        assert.equal(block.appHash, hash, `app hash of block ${h} does not recompute`);
      }
      assert.equal(appHash, hash);
      assert.equal(await store.getBlock(height + 1), null);
    } finally {
      await store.close();
    }
    // Nothing outside a block: every stored transaction belongs to one of the blocks. (Read
    // after the store is closed: its writing connection holds the file exclusively.)
    const db = new Database(join(dir, "ledger.sqlite"), { readonly: true });
    const row = db.prepare("SELECT count(*) AS n FROM transactions").get() as { n: number };
    db.close();
    assert.equal(row.n, inBlocks, "transactions stored outside any block");
  });
});
