// The node opens its SQLite file as a writer that read-only stores may join (`access:
// "readers"`: HTTP workers, `ledgerd backup` and `verify-chain` beside it) instead of with an
// exclusive lock (`owner`). What that costs a commit: both stores commit blocks of 1,000
// CREATE-shaped records, in alternating rounds in one run (this machine's speed drifts), and
// the medians are printed side by side with their ratio.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { Chain } from "./store.bench.js";
import { inVerifies } from "./lib.js";

const blockTxs = 1_000;
const rounds = 8;
const blocksPerRound = 10;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-store-access-"));
  const modes = ["owner", "readers"] as const;
  const stores = modes.map((access) => SqliteStore.open({ path: join(dir, `${access}.sqlite`), access }));
  const chains = stores.map((store) => new Chain(store, 1_000_000));
  const ms: number[][] = modes.map(() => []);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i] of modes.entries()) {
        for (let b = 0; b < blocksPerRound; b++) {
          const txs = chains[i]!.creates(blockTxs);
          const start = performance.now();
          await chains[i]!.commit(txs);
          ms[i]!.push(performance.now() - start);
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [owner, readers] = ms.map(median) as [number, number];
    console.log(`commit of ${blockTxs} records, median of ${rounds * blocksPerRound} blocks each, alternating rounds:`);
    console.log(`  owner (exclusive lock): ${owner.toFixed(2)} ms ${inVerifies(owner)}; readers (shared WAL index): ${readers.toFixed(2)} ms; readers/owner ${(readers / owner).toFixed(3)}`);
  } finally {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
