// Issue #18 (an experiment, not a setting yet): the main thread's reads between its writer's
// commits, with the reading connection's memory map on (as the node runs) or off. After each
// commit of another connection SQLite drops a reader's page cache and, with the map on, unmaps
// the whole map, so the next read faults its pages back in; off, it reads them again with pread.
// IDS=<n> sets the ids per read (64, as a busy node's checkTx batch).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { median, inVerifies } from "./lib.js";
import { Chain } from "./store.bench.js";

const fillBlocks = 100;
const fillBlockTxs = 1_000;
const blocks = 400;
const blockTxs = 100;
const idsPerRead = Number(process.env.IDS ?? 64);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-reader-mmap-"));
  const path = join(dir, "ledger.sqlite");
  const writer = SqliteStore.open({ path, access: "readers", checkpointIntervalMs: 0 });
  await writer.initChain("bench-reader-mmap", [{ publicKey: "00".repeat(32), power: 10 }], "bigchaindb");
  const readers = [
    { label: "map on (1 GiB)", store: SqliteStore.open({ path, access: "reader" }), us: [] as number[] },
    { label: "map off", store: SqliteStore.open({ path, access: "reader", mmapSizeBytes: 0 }), us: [] as number[] },
  ];
  const chain = new Chain(writer, fillBlocks * fillBlockTxs);
  try {
    let height = 0;
    for (; height < fillBlocks; ) {
      const rows = writer.commitBlockRows({ height: ++height, appHash: height.toString(16).padStart(64, "0"), txs: chain.creates(fillBlockTxs) });
      for (const { store } of readers) store.followBlock(rows);
    }
    let unknown = 0;
    for (let i = 0; i < blocks; i++) {
      const txs = chain.creates(blockTxs);
      const rows = writer.commitBlockRows({ height: ++height, appHash: height.toString(16).padStart(64, "0"), txs });
      // checkTx's read for new CREATEs: ids not committed (most) and a few that are.
      const ids = Array.from({ length: idsPerRead }, (_, j) => (j % 8 === 0 ? txs[j % txs.length]!.id : `${(++unknown).toString(16).padStart(64, "0")}`));
      const order = i % 2 === 0 ? readers : [...readers].reverse();
      for (const reader of order) {
        reader.store.followBlock(rows);
        const start = performance.now();
        await reader.store.findTransactions(ids);
        reader.us.push((performance.now() - start) * 1000);
      }
    }
    const [on, off] = readers.map((r) => median(r.us));
    console.log(`a read of ${idsPerRead} ids after each of ${blocks} commits of ${blockTxs} (median µs): map on ${on!.toFixed(1)} ${inVerifies(on! / 1000)}, map off ${off!.toFixed(1)} (${(off! / on!).toFixed(2)} of on)`);
  } finally {
    for (const { store } of readers) await store.close();
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
