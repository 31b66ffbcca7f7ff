// Issue #18: what the node's main thread spends, per transaction, to follow a commit of its SQLite
// writer thread. The writer hands each block's index rows back with its answer and the main
// thread's connection takes them (IndexFollower.follow); before, that connection read the
// block's rows back from the tables and derived them again (IndexFollower.refresh, as an HTTP
// worker process, which follows another process, still does). Two read-only stores follow the
// same commits of one writer, on this one thread, each timed around its following only, so the
// ratio holds whatever the machine's speed that minute.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { median, inVerifies } from "./lib.js";
import { Chain } from "./store.bench.js";

const createsPerBlock = 100;
const transfersPerBlock = 50;
const warmUpBlocks = 50;
const blocks = 400;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-follow-"));
  const path = join(dir, "ledger.sqlite");
  // No checkpoint thread: it would share the cores with the timed thread.
  const writer = SqliteStore.open({ path, access: "readers", checkpointIntervalMs: 0 });
  await writer.initChain("bench-follow", [{ publicKey: "00".repeat(32), power: 10 }], "bigchaindb");
  const handed = SqliteStore.open({ path, access: "reader" });
  const readBack = SqliteStore.open({ path, access: "reader" });
  const chain = new Chain(writer, 1_000_000);
  const perTx = { handed: [] as number[], readBack: [] as number[] };
  try {
    for (let height = 1; height <= warmUpBlocks + blocks; height++) {
      const txs = chain.creates(createsPerBlock);
      if (height > 1) txs.push(...chain.transfers(transfersPerBlock));
      const rows = writer.commitBlockRows({ height, appHash: height.toString(16).padStart(64, "0"), txs });
      let start = performance.now();
      handed.followBlock(rows);
      const handedMs = performance.now() - start;
      start = performance.now();
      await readBack.getChainState();
      const readBackMs = performance.now() - start;
      if (height <= warmUpBlocks) continue;
      perTx.handed.push((handedMs * 1000) / txs.length);
      perTx.readBack.push((readBackMs * 1000) / txs.length);
    }
    const [handedUs, readBackUs] = [median(perTx.handed), median(perTx.readBack)];
    console.log(`following a writer's commit on the main thread, µs per transaction (median of ${blocks} blocks of ${createsPerBlock + transfersPerBlock}):`);
    console.log(`  the rows handed over: ${handedUs.toFixed(2)} ${inVerifies(handedUs / 1000)}; read back and derived again: ${readBackUs.toFixed(2)} ${inVerifies(readBackUs / 1000)}; handed / read back ${(handedUs / readBackUs).toFixed(2)}`);
  } finally {
    await readBack.close();
    await handed.close();
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
