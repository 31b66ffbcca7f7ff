// Issue #39, pruned engine stores: the disk a node uses per million transactions with and without
// `engine.retain_blocks`. A 1-validator CometBFT network on loopback (ledgerd testnet) with two
// full nodes that follow it from genesis: one keeps every block (as the validator does), the
// other runs with retain_blocks set, so CometBFT prunes its block store and state below the
// height ledgerd's Commit names while ledgerd keeps the signed headers its proofs carry. At each
// mark (100,000 and 1,000,000 transactions committed) the bench prints, for both full nodes, the
// size of CometBFT's data folder (by part) and of ledgerd's, in bytes per transaction.
// LEDGERD_BENCH_QUICK=1: 2,000 and 10,000 transactions. Needs scripts/install-cometbft.sh.
import { readdirSync, lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestnet, defaultCometBftBinary, startTestnet, stopTestnet, type TestnetNode } from "../src/testnet/testnet.js";
import { appState, commitAll } from "./catchUp.bench.js";
import { fmt, signCreates } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
/** Cumulative transaction counts at which sizes are printed. */
const marks = quick ? [2_000, 10_000] : [100_000, 1_000_000];
/** The pruned node's engine.retain_blocks: the last 1,000 blocks are kept. */
const retainBlocks = 1_000;
/** Transactions signed at a time (1M signed bodies at once would hold ~1 GiB). */
const signBatch = 50_000;
const basePort = 29_300;

/** Bytes under `path` (files' sizes, recursively; what `du --apparent-size` counts). */
function bytesUnder(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** Waits until `node`'s ledger reports `target` (height/app hash). */
async function reach(node: TestnetNode, target: string): Promise<void> {
  while ((await appState(node)) !== target) await sleep(200);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-pruning-"));
  try {
    const manifest = createTestnet({ validators: 1, fullNodes: 2, dir, basePort, cometbft: defaultCometBftBinary(), logLevel: "warn" });
    const [validator, full, pruned] = manifest.nodes as [TestnetNode, TestnetNode, TestnetNode];
    await startTestnet(dir, {
      launch: (node) => (node.name === pruned.name ? { env: { ledgerd: { LEDGERD_ENGINE_RETAIN_BLOCKS: String(retainBlocks) } } } : undefined),
    });
    console.log(`a 1-validator network and two full nodes; the pruned one runs with engine.retain_blocks ${fmt(retainBlocks)}`);
    let committed = 0;
    for (const mark of marks) {
      while (committed < mark) {
        const count = Math.min(signBatch, mark - committed);
        await commitAll(validator, signCreates(count, `pruning-${committed}`));
        committed += count;
      }
      const target = (await appState(validator))!;
      await Promise.all([reach(full, target), reach(pruned, target)]);
      // CometBFT prunes after Commit, in the background: give it a moment before measuring.
      await sleep(2_000);
      const perTx = (bytes: number): string => `${fmt(bytes / 2 ** 20)} MiB (${fmt(bytes / committed)} B/tx)`;
      // CometBFT's data by part: the block store (what retain_height prunes), its state (the
      // same), and the consensus WAL, which is not pruned by height but rotated by size (1 GiB).
      const size = (node: TestnetNode): string => {
        const data = join(dir, node.home, "data");
        const parts = ["blockstore.db", "state.db", "cs.wal"].map((part) => `${part} ${perTx(bytesUnder(join(data, part)))}`);
        return `CometBFT ${perTx(bytesUnder(data))}: ${parts.join(", ")}; ledgerd ${perTx(bytesUnder(join(dir, node.dataDir)))}`;
      };
      console.log(`${fmt(committed)} transactions in ${target.split("/")[0]} blocks: ` +
        `\n  full node keeping every block: ${size(full)}\n  pruned node: ${size(pruned)}`);
    }
  } finally {
    await stopTestnet(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
