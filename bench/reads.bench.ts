// Issue 11: long reads on a real node (`ledgerd start` in a child process), with 1,000,000
// outputs on one key and 1,000,000 assets matching one word (LEDGERD_BENCH_QUICK=1: 50,000):
// - the whole outputs answer of that key: time, size, and the node's RSS (all its processes)
//   before, at most during, and after; a search of that word with limit=0 (all), which the node
//   refuses at once (SearchTooBroad: more matches than it ranks), and with the largest limit;
// - GET /api/v1/transactions/{id} p50 and p99 while 50 clients run expensive reads (25 search a
//   word 20,000 assets hold with the largest limit, 25 read the outputs of a key with 20,000
//   outputs), with
//   server.workers 1 and 2 (goal: p99 <= 50 ms). 503s (server.expensive_reads_max) are counted.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { httpOptionsDefault } from "../src/http/options.js";
import { fmt } from "./lib.js";
import { fillConditionUri, getByIdUnderLoad, openForFill, runCli, startNode, stopNode, wholeRead, type BenchNode } from "./nodeProcess.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const storedTxs = quick ? 50_000 : 1_000_000;
const warmCount = quick ? 5_000 : 20_000;
const loadSeconds = quick ? 5 : 20;
const expensiveClients = 50;
/** The most a search may ask for, on the node's defaults. */
const searchLimitMax = httpOptionsDefault.searchLimitMax;

async function start(dataDir: string, workers: number): Promise<BenchNode> {
  return startNode(dataDir, ["--server.workers", String(workers)]);
}

/**
 * Every transaction's output 0 is the hot key's and its asset holds "zebra"; the first
 * `warmCount` also have an output 1 for the warm key and hold "lorem".
 */
async function fill(dataDir: string, hotKey: string, warmKey: string): Promise<{ someId: string }> {
  const { store, template, templateId, commit } = await openForFill(dataDir);
  const uri = fillConditionUri;
  let someId = "";
  for (let done = 0; done < storedTxs; done += 10_000) {
    const txs: CommittedTx[] = [];
    for (let i = done; i < Math.min(storedTxs, done + 10_000); i++) {
      const id = i === Math.floor(storedTxs / 2) ? templateId : randomBytes(32).toString("hex");
      if (id === templateId) someId = id;
      const warm = i < warmCount;
      const outputs = [{ outputIndex: 0, amount: 1n, conditionUri: uri, publicKeys: [hotKey] }];
      if (warm) outputs.push({ outputIndex: 1, amount: 1n, conditionUri: uri, publicKeys: [warmKey] });
      const words = warm ? "zebra lorem" : "zebra";
      txs.push({ id, operation: "CREATE", assetId: id, json: template, metadata: null, assetData: JSON.stringify({ name: `item ${i}`, words }), outputs, spends: [] });
    }
    await commit(txs);
  }
  await store.close();
  return { someId };
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ledgerd-bench-reads-"));
  try {
    await runCli(["init"], dataDir);
    const hotKey = makeRandomKeypair().publicKey;
    const warmKey = makeRandomKeypair().publicKey;
    const filledAt = performance.now();
    const { someId } = await fill(dataDir, hotKey, warmKey);
    console.log(`stored ${fmt(storedTxs)} transactions in ${((performance.now() - filledAt) / 1000).toFixed(1)} s: ` +
      `${fmt(storedTxs)} outputs on one key, ${fmt(storedTxs)} assets match "zebra"; ${fmt(warmCount)} on the warm key and "lorem"`);
    for (const workers of [1, 2]) {
      const node = await start(dataDir, workers);
      try {
        console.log(`server.workers ${workers}:`);
        await wholeRead(node, `  GET outputs of the hot key (${fmt(storedTxs)})`, `${node.base}/api/v1/outputs?public_key=${hotKey}`);
        await wholeRead(node, `  the same again`, `${node.base}/api/v1/outputs?public_key=${hotKey}`);
        await wholeRead(node, `  and a third time`, `${node.base}/api/v1/outputs?public_key=${hotKey}`);
        await wholeRead(node, `  GET assets?search=zebra&limit=0 (${fmt(storedTxs)} match)`, `${node.base}/api/v1/assets?search=zebra&limit=0`);
        await wholeRead(node, `  GET assets?search=zebra&limit=${searchLimitMax}`, `${node.base}/api/v1/assets?search=zebra&limit=${searchLimitMax}`);
        const expensive = [`${node.base}/api/v1/assets?search=lorem&limit=${searchLimitMax}`, `${node.base}/api/v1/outputs?public_key=${warmKey}`];
        await getByIdUnderLoad(node, someId, expensive, expensiveClients, loadSeconds);
      } finally {
        await stopNode(node);
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
