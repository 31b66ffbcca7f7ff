// Issue #18: a block's commit against the size of SQLite's page cache (`database.cache_size_bytes`).
// SQLite's B-tree balance borrows the page number at 1 GiB as a temporary key when it reorders
// pages (`balance_nonroot`), which raises its page cache's highest key; at the end of the write
// transaction the pager truncates the cache to the database's size, and with that key far above
// it, pcache1 walks its whole hash table, one slot per cached page. So while the file is under
// 1 GiB a commit costs time in proportion to the pages the writer holds in its cache. Above
// 1 GiB the borrowed number is inside the file and the walk is gone.
//
// One ledger of 100,000 CREATEs (~800-byte JSON each, as posted), copied once per cache size and
// opened as the node opens it; then blocks of 64 CREATEs committed on each copy in turn, a round
// of blocks at a time, so that the machine's drift touches every size alike. The cache holds the
// pages a connection wrote (reads come through the memory map), so it fills as the node writes:
// the figures are of the second half of the commits, the first half having filled it.
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { sqliteStoreOptionsDefault } from "../src/store/sqlite/options.js";
import { smallFileCacheBytes } from "../src/store/sqlite/pageCache.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { block, createTx } from "../test/unit/store/fixtures.js";
import { fmt, openBenchLedger, percentile, inVerifies } from "./lib.js";

const filledTxs = 100_000;
const fillBlockTxs = 1_000;
const blockTxs = 64;
const rounds = 10;
const blocksPerRound = 200;
const mib = 1024 * 1024;
/** The configured default first (every writer's cache before this bench), then smaller ones; 16 MiB is the writer's now. */
const cacheSizes = [sqliteStoreOptionsDefault.cacheSizeBytes, 64 * mib, smallFileCacheBytes, 4 * mib];

/** A CREATE about the size of a driver-made one: asset data and metadata with some text. */
function benchCreate(label: string): CommittedTx {
  return createTx({ label, data: { label, text: "lorem ipsum ".repeat(20) }, metadata: { note: "dolor sit amet ".repeat(10) } });
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-page-cache-"));
  try {
    const filled = join(dir, "filled.sqlite");
    const fill = await openBenchLedger(filled, "bench-page-cache");
    for (let height = 1; height <= filledTxs / fillBlockTxs; height++) {
      await fill.commitBlock(block(height, Array.from({ length: fillBlockTxs }, (_, i) => benchCreate(`fill-${height}-${i}`))));
    }
    await fill.close();
    console.log(`${filledTxs.toLocaleString("en")} CREATEs stored: ${(statSync(filled).size / mib).toFixed(0)} MiB file (the walk happens under 1,024 MiB)`);
    const stores = cacheSizes.map((cacheSizeBytes) => {
      const path = join(dir, `cache-${cacheSizeBytes}.sqlite`);
      copyFileSync(filled, path);
      // As the node opens it (checkpoints on a thread of their own, off the commits), then the
      // cache set as the size under test: the store would keep its writer's at 16 MiB here.
      const store = SqliteStore.open({ path, access: "readers" });
      store.database.pragma(`cache_size = -${cacheSizeBytes / 1024}`);
      return { cacheSizeBytes, store, perTx: [] as number[], height: filledTxs / fillBlockTxs };
    });
    for (let round = 0; round < rounds; round++) {
      for (const each of stores) {
        for (let i = 0; i < blocksPerRound; i++) {
          const height = ++each.height;
          const txs = Array.from({ length: blockTxs }, (_, j) => benchCreate(`after-${height}-${j}`));
          const start = performance.now();
          await each.store.commitBlock(block(height, txs));
          if (round >= rounds / 2) each.perTx.push(((performance.now() - start) * 1000) / blockTxs);
        }
      }
    }
    const reference = percentile(stores[0]!.perTx.sort((a, b) => a - b), 50);
    const fileMiB = statSync(join(dir, `cache-${cacheSizes[0]}.sqlite`)).size / mib;
    console.log(`after ${fmt(rounds * blocksPerRound)} blocks of ${blockTxs} on each copy: ${fileMiB.toFixed(0)} MiB file; the second half's commits:`);
    for (const { cacheSizeBytes, store, perTx } of stores) {
      await store.close();
      perTx.sort((a, b) => a - b);
      const p50 = percentile(perTx, 50);
      console.log(
        `  page cache ${(cacheSizeBytes / mib).toFixed(0)} MiB: ${perTx.length} commits of ${blockTxs} CREATEs, ` +
          `p50 ${p50.toFixed(1)} µs per transaction ${inVerifies(p50 / 1000)} (${(p50 / reference).toFixed(2)} of ${(cacheSizes[0]! / mib).toFixed(0)} MiB's), p99 ${percentile(perTx, 99).toFixed(1)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
