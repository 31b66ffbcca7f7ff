// Issue 36, finding 8: anyone can give assets to any key, so a key's balances must cost the node
// no more than its other long reads. A real node (`ledgerd start` in a child process) over a key
// that holds 8,000 assets, one output each (LEDGERD_BENCH_QUICK=1: the same, a shorter load):
// - the whole answer (unpaged), a page of 1,000, and one asset by `asset_id=`: time and size;
// - GET /api/v1/transactions/{id} p50, p99 and longest while 64 clients ask for that key's
//   balances, whole and then a page at a time, with the node's RSS at most (the issue measured
//   p50 145-193 ms, longest 2.7 s and ~500 MB before balances were a long read).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { fmt, inVerifies, median } from "./lib.js";
import { fillConditionUri, getByIdUnderLoad, getDropping, openForFill, runCli, startNode, stopNode, wholeRead } from "./nodeProcess.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const assetsHeld = 8_000;
const loadSeconds = quick ? 5 : 15;
const clients = 64;
const assetIdAsks = 20;

/** `assetsHeld` CREATEs, each of its own asset, each giving its one output to `key`. */
async function fill(dataDir: string, key: string): Promise<{ someId: string }> {
  const { store, template, templateId, commit } = await openForFill(dataDir);
  const txs: CommittedTx[] = [];
  for (let i = 0; i < assetsHeld; i++) {
    const id = i === assetsHeld / 2 ? templateId : randomBytes(32).toString("hex");
    const outputs = [{ outputIndex: 0, amount: 1n, conditionUri: fillConditionUri, publicKeys: [key] }];
    txs.push({ id, operation: "CREATE", assetId: id, json: template, metadata: null, assetData: JSON.stringify({ n: i }), outputs, spends: [] });
  }
  for (let at = 0; at < txs.length; at += 1_000) await commit(txs.slice(at, at + 1_000));
  await store.close();
  return { someId: txs[assetsHeld / 2]!.id };
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ledgerd-bench-balances-"));
  try {
    await runCli(["init"], dataDir);
    const key = makeRandomKeypair().publicKey;
    const { someId } = await fill(dataDir, key);
    console.log(`one key holds ${fmt(assetsHeld)} assets, one output of each`);
    const node = await startNode(dataDir);
    try {
      const balances = `${node.base}/api/v1/balances?public_key=${key}`;
      await wholeRead(node, "  GET balances, whole", balances);
      await wholeRead(node, "  GET balances, limit=1000", `${balances}&limit=1000`);
      const byAsset: number[] = [];
      for (let i = 0; i < assetIdAsks; i++) byAsset.push((await getDropping(`${balances}&asset_id=${someId}`)).ms);
      console.log(`  GET balances&asset_id=: median ${median(byAsset).toFixed(2)} ms ${inVerifies(median(byAsset))} of ${assetIdAsks}`);
      console.log(`${clients} clients asking for the whole balances:`);
      await getByIdUnderLoad(node, someId, [balances], clients, loadSeconds);
      console.log(`${clients} clients asking for a page of 100:`);
      await getByIdUnderLoad(node, someId, [`${balances}&limit=100`], clients, loadSeconds);
    } finally {
      await stopNode(node);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
