// Issue #18: the longest commit after a restart, when one public key's index rows wait in memory
// by the hundred thousand (a busy key's; `bench http`'s node has one, and its first commit round
// carried a ~140 ms commit). The SQLite store merges at most `indexMergeRowsMax` rows a commit,
// a busy slice over several commits; merged whole, as before, one commit takes them all. Both
// ways in one run, on the same ledger: 100,000 CREATEs to one key committed, the store reopened
// (its waiting rows re-derived), then blocks of 50 CREATEs timed. A third way merges them all
// at the open, before any block, as the node's writer now does (indexMergeAtOpen).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { sqliteStoreOptionsDefault } from "../src/store/sqlite/options.js";
import { sliceOf } from "../src/store/sqlite/deferredIndex.js";
import { keyHash } from "../src/store/sqlite/keyHash.js";
import { block, createTx, publicKey } from "../test/unit/store/fixtures.js";
import { openBenchLedger, percentile, inVerifies } from "./lib.js";

const busyOutputs = 100_000;
const blocksTimed = 200;
const blockTxs = 50;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-restart-merge-"));
  try {
    // One block: its commit merges one slice (slice 0, all marks being equal), and the busy
    // key's rows, in another slice, stay waiting.
    const filled = join(dir, "filled.sqlite");
    const fill = await openBenchLedger(filled, "bench-restart-merge");
    const busy = Array.from({ length: 8 }, (_, i) => publicKey(`busy-${i}`)).find((key) => sliceOf(keyHash(key), sqliteStoreOptionsDefault.indexSlices) !== 0)!;
    await fill.commitBlock(block(1, Array.from({ length: busyOutputs }, (_, i) => createTx({ label: `busy-${i}`, outputs: [{ keys: [busy] }] }))));
    const waiting = fill.indexRowsWaiting;
    await fill.close();
    console.log(`${busyOutputs.toLocaleString("en")} outputs of one key committed; ${waiting.toLocaleString("en")} index rows wait at the restart`);
    const ways = [
      { label: "merged whole by the first commit", mergeRowsMax: Number.MAX_SAFE_INTEGER, atOpen: false },
      { label: `at most ${sqliteStoreOptionsDefault.indexMergeRowsMax.toLocaleString("en")} a commit`, mergeRowsMax: sqliteStoreOptionsDefault.indexMergeRowsMax, atOpen: false },
      { label: "merged at the open (as the node does)", mergeRowsMax: sqliteStoreOptionsDefault.indexMergeRowsMax, atOpen: true },
    ];
    for (const [i, { label, mergeRowsMax, atOpen }] of ways.entries()) {
      const path = join(dir, `way-${i}.sqlite`);
      copyFileSync(filled, path);
      // As the node opens it: its checkpoints on a thread of their own, off the commits.
      const opening = performance.now();
      const store = SqliteStore.open({ path, access: "readers", indexMergeRowsMax: mergeRowsMax, indexMergeAtOpen: atOpen });
      const openMs = performance.now() - opening;
      const ms: number[] = [];
      for (let height = 2; height < 2 + blocksTimed; height++) {
        const txs = Array.from({ length: blockTxs }, (_, i) => createTx({ label: `after-${height}-${i}` }));
        const start = performance.now();
        await store.commitBlock(block(height, txs));
        ms.push(performance.now() - start);
      }
      await store.close();
      ms.sort((a, b) => a - b);
      console.log(`  ${label}: the open took ${openMs.toFixed(0)} ms ${inVerifies(openMs)}; ${blocksTimed} commits of ${blockTxs} CREATEs after the restart, p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms ${inVerifies(percentile(ms, 99))}, longest ${ms.at(-1)!.toFixed(1)} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
