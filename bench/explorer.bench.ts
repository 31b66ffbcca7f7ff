// Issue 17: the explorer page. Its weight as a browser receives it (gzipped, budget 150 KB), and
// the time to its first list of blocks on a node holding 1,000,000 transactions in blocks of
// 1,000 (budget 1 s), measured in headless Chromium from the start of the navigation: to the
// first block listed, and to all the latest blocks listed (each is a ~0.7 MB answer here). Beside
// them, the same-run floor: the same API answers fetched from this process, without a browser.
// LEDGERD_BENCH_QUICK=1 stores 100,000.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import type { CommittedTx } from "../src/transaction/committed.js";
import { fmt, percentile, inVerifies } from "./lib.js";
import { fillConditionUri, openForFill, runCli, startNode, stopNode, type BenchNode } from "./nodeProcess.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const storedTxs = quick ? 100_000 : 1_000_000;
const blockTxs = 1_000;
const pageWeightBudgetBytes = 150 * 1024;
const firstListBudgetMs = 1_000;
/** Page loads measured, each in a fresh browser context (nothing cached). */
const loads = 7;
/** The explorer's home page lists this many of the latest blocks (explorer/src/limits.ts). */
const latestBlocks = 10;
const chromiumPath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

async function fill(dataDir: string): Promise<void> {
  const { store, template, nodeKey, commit } = await openForFill(dataDir);
  for (let block = 0; block < storedTxs / blockTxs; block++) {
    const txs: CommittedTx[] = [];
    for (let i = 0; i < blockTxs; i++) {
      const id = randomBytes(32).toString("hex");
      const outputs = [{ outputIndex: 0, amount: 1n, conditionUri: fillConditionUri, publicKeys: [nodeKey] }];
      txs.push({ id, operation: "CREATE", assetId: id, json: template, metadata: null, assetData: '{"fill":true}', outputs, spends: [] });
    }
    await commit(txs);
  }
  await store.close();
}

/** One page load: ms from the navigation's start to the first block row, and to the last. */
async function pageLoad(browser: Browser, url: string): Promise<{ first: number; all: number; bytes: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "commit" });
    // Functions, not strings: the page's Content-Security-Policy forbids evaluating strings.
    // (`globalThis` as the page's window: this file is typed for Node, the function runs there.)
    const listed = (count: number): number => {
      const page = globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } };
      return page.document.querySelectorAll(`section[aria-labelledby="blocks-title"] tbody tr`).length >= count ? performance.now() : 0;
    };
    const first = (await page.waitForFunction(listed, 1, { polling: "raf", timeout: 60_000 })).jsonValue();
    const all = (await page.waitForFunction(listed, latestBlocks, { polling: "raf", timeout: 60_000 })).jsonValue();
    // What the browser received for the page itself (its document, script and stylesheet), as
    // sent over the wire (gzipped by the node), not the API's answers.
    const bytes = await page.evaluate(() =>
      performance
        .getEntries()
        .filter((e) => (e.entryType as string) === "navigation" || (e.entryType === "resource" && new URL(e.name).pathname.startsWith("/explorer/")))
        .reduce((sum, e) => sum + (e as unknown as { encodedBodySize: number }).encodedBodySize, 0),
    );
    return { first: (await first) as number, all: (await all) as number, bytes };
  } finally {
    await context.close();
  }
}

/** The floor: blocks/latest, then the latest blocks at once, fetched here with no browser. */
async function apiAlone(node: BenchNode): Promise<number> {
  const start = performance.now();
  const latest = (await (await fetch(`${node.base}/api/v1/blocks/latest`)).json()) as { height: number };
  const heights = Array.from({ length: latestBlocks }, (_, i) => latest.height - i);
  await Promise.all(heights.map(async (h) => (await fetch(`${node.base}/api/v1/blocks/${h}`)).arrayBuffer()));
  return performance.now() - start;
}

export async function run(): Promise<void> {
  const build = spawnSync(process.execPath, ["scripts/build-explorer.mjs"], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(`the explorer's build failed: ${build.stderr}`);
  console.log(build.stdout.trim());
  const dataDir = mkdtempSync(join(tmpdir(), "ledgerd-bench-explorer-"));
  let node: BenchNode | undefined;
  let browser: Browser | undefined;
  try {
    await runCli(["init"], dataDir);
    const filledAt = performance.now();
    await fill(dataDir);
    console.log(`stored ${fmt(storedTxs)} transactions in blocks of ${fmt(blockTxs)} in ${((performance.now() - filledAt) / 1000).toFixed(1)} s`);
    node = await startNode(dataDir);
    browser = await chromium.launch({ executablePath: chromiumPath });
    const url = `${node.base}/explorer/`;
    const results = [];
    for (let i = 0; i < loads; i++) results.push(await pageLoad(browser, url));
    const floors = [];
    for (let i = 0; i < loads; i++) floors.push(await apiAlone(node));
    const sorted = (list: number[]) => list.sort((a, b) => a - b);
    const firsts = sorted(results.map((r) => r.first));
    const alls = sorted(results.map((r) => r.all));
    sorted(floors);
    const bytes = results[0]!.bytes;
    console.log(`page weight as received: ${fmt(bytes)} B (${(bytes / 1024).toFixed(1)} KiB, budget ${pageWeightBudgetBytes / 1024} KiB)`);
    console.log(
      `first block listed: p50 ${fmt(percentile(firsts, 50))} ms ${inVerifies(percentile(firsts, 50))}, max ${fmt(Math.max(...firsts))} ms (budget ${firstListBudgetMs} ms, ${loads} loads, cold context each)`,
    );
    console.log(`all ${latestBlocks} latest blocks listed: p50 ${fmt(percentile(alls, 50))} ms ${inVerifies(percentile(alls, 50))}, max ${fmt(Math.max(...alls))} ms`);
    console.log(`same-run floor, blocks/latest + ${latestBlocks} blocks fetched without a browser: p50 ${fmt(percentile(floors, 50))} ms`);
  } finally {
    await browser?.close();
    if (node !== undefined) await stopNode(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
