// Issue 13, lists that page and outputs that say what they hold, at 1,000,000 committed
// transactions (LEDGERD_BENCH_QUICK=1: 50,000), through the HTTP app (Fastify inject: routing,
// parsing, the store read and the JSON answer; no socket):
// - GET /api/v1/balances of a key with 1,000 unspent outputs (and 250 spent ones), each of its
//   own asset (goal: p99 <= 10 ms);
// - its outputs with include=amount,asset_id, a page of 100 reached through the Link header;
// - the history of an asset with 5,433 TRANSFERs (BigchainDB timed out on one, its issue #2379):
//   each page of 100 walked through Link, and the whole history unpaged.
// The store is filled directly (records without signatures: what is measured is reading).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Broadcaster } from "../src/engine/broadcaster.js";
import { buildHttpApp } from "../src/http/httpApp.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import type { CommittedTx, OutputRef } from "../src/transaction/committed.js";
import { fmt, percentile, requestLatencies, inVerifies } from "./lib.js";
import { fillConditionUri } from "./nodeProcess.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const storedTxs = quick ? 50_000 : 1_000_000;
const txsPerBlock = 1_000;
/** The wallet's outputs; `walletSpent` of them are spent by transfers of the chain below. */
const walletOutputs = 1_250;
const walletSpent = 250;
const transfers = 5_433;
const samples = quick ? 300 : 2_000;
const wallet = makeRandomKeypair().publicKey;
const other = makeRandomKeypair().publicKey;

const hex = (text: string) => createHash("sha256").update(text).digest("hex");

function output(key: string, amount: bigint): CommittedTx["outputs"][number] {
  return { outputIndex: 0, amount, conditionUri: fillConditionUri, publicKeys: [key] };
}

function record(id: string, operation: "CREATE" | "TRANSFER", assetId: string, key: string, spends: OutputRef[]): CommittedTx {
  const json = `{"asset":{"id":"${assetId}"},"id":"${id}","operation":"${operation}"}`;
  const assetData = operation === "CREATE" ? `{"n":"${id.slice(0, 8)}"}` : null;
  return { id, operation, assetId, json, assetData, metadata: null, outputs: [output(key, 7n)], spends } as unknown as CommittedTx;
}

/**
 * The i-th transaction: every `every`-th a CREATE of the wallet's; from the second block on,
 * one in every `every / 8` (the first `transfers` of them) a TRANSFER of the long history
 * (asset `chainAsset`), each spending the one before, every other one also spending the
 * wallet's oldest output until `walletSpent` are spent; the rest CREATEs of another key.
 */
function* ledger(chainAsset: string): Generator<CommittedTx> {
  const every = Math.floor(storedTxs / walletOutputs);
  let previous: OutputRef = { transactionId: chainAsset, outputIndex: 0 };
  let chain = 0;
  let spent = 0;
  const walletIds: string[] = [];
  for (let i = 1; i < storedTxs; i++) {
    const id = hex(`paging:${i}`);
    if (i % every === 0) {
      walletIds.push(id);
      yield record(id, "CREATE", id, wallet, []);
    } else if (i > txsPerBlock && i % Math.floor(every / 8) === 1 && chain < transfers) {
      const spends = [previous];
      if (chain % 2 === 1 && spent < walletSpent && walletIds.length > 0) {
        spends.push({ transactionId: walletIds.shift()!, outputIndex: 0 });
        spent++;
      }
      chain++;
      yield record(id, "TRANSFER", chainAsset, other, spends);
      previous = { transactionId: id, outputIndex: 0 };
    } else {
      yield record(id, "CREATE", id, other, []);
    }
  }
}

const noBroadcast: Broadcaster = {
  broadcast: () => Promise.reject(new Error("the paging benchmark posts nothing")),
};

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-paging-"));
  const store = SqliteStore.open({ path: join(dir, "ledgerd.sqlite"), synchronous: "off" });
  try {
    const chainAsset = hex("paging:0");
    const started = performance.now();
    let txs: CommittedTx[] = [record(chainAsset, "CREATE", chainAsset, other, [])];
    let height = 0;
    for (const tx of ledger(chainAsset)) {
      txs.push(tx);
      if (txs.length < txsPerBlock) continue;
      await store.commitBlock({ height: ++height, appHash: hex(`app:${height}`), txs });
      txs = [];
    }
    if (txs.length > 0) await store.commitBlock({ height: ++height, appHash: hex(`app:${height}`), txs });
    console.log(`fill: ${fmt(storedTxs)} transactions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const app = await buildHttpApp({}, { broadcaster: noBroadcast, store });
    const get = (url: string) => app.inject({ method: "GET", url });
    const balances = JSON.parse((await get(`/api/v1/balances?public_key=${wallet}`)).body) as unknown[];
    const unspent = JSON.parse((await get(`/api/v1/outputs?public_key=${wallet}&spent=false`)).body) as unknown[];
    console.log(`wallet: ${fmt(unspent.length)} unspent outputs of ${fmt(walletOutputs)}, in ${fmt(balances.length)} assets`);
    await requestLatencies("GET balances of the wallet", samples, () => get(`/api/v1/balances?public_key=${wallet}`), "p99 <= 10 ms");
    const firstPage = await get(`/api/v1/outputs?public_key=${wallet}&include=amount,asset_id&limit=100`);
    const secondPage = /^<([^>]+)>/.exec(String(firstPage.headers["link"]))![1]!;
    await requestLatencies("GET outputs include=amount,asset_id, 2nd page of 100", samples, () => get(secondPage), "p99 <= 10 ms");
    await walkHistory(get, chainAsset);
    await app.close();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function walkHistory(get: (url: string) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, asset: string): Promise<void> {
  const pageTimes: number[] = [];
  let items = 0;
  let next: string | undefined = `/api/v1/transactions?asset_id=${asset}&limit=100`;
  const walkStart = performance.now();
  while (next !== undefined) {
    const t0 = performance.now();
    const response = await get(next);
    pageTimes.push(performance.now() - t0);
    if (response.statusCode !== 200) throw new Error(`${next}: ${response.statusCode}`);
    items += (JSON.parse(response.body) as unknown[]).length;
    const link = response.headers["link"];
    next = link === undefined ? undefined : /^<([^>]+)>/.exec(String(link))![1]!;
  }
  const walkMs = performance.now() - walkStart;
  pageTimes.sort((a, b) => a - b);
  console.log(`asset history walked by 100: ${fmt(items)} transactions in ${pageTimes.length} pages, ` +
    `${walkMs.toFixed(0)} ms in all ${inVerifies(walkMs)}; a page p50 ${percentile(pageTimes, 50).toFixed(2)} ms ${inVerifies(percentile(pageTimes, 50))}, p99 ${percentile(pageTimes, 99).toFixed(2)} ms`);
  const t0 = performance.now();
  const whole = await get(`/api/v1/transactions?asset_id=${asset}`);
  const wholeMs = performance.now() - t0;
  console.log(`asset history unpaged: ${fmt((JSON.parse(whole.body) as unknown[]).length)} transactions in ${wholeMs.toFixed(1)} ms ${inVerifies(wholeMs)}`);
}
