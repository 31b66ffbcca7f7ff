// Issue 36: what `ledgerd verify-chain` costs now that it checks every derived row (the
// transactions re-derived from their JSON by their kind's rules, signatures included, and each
// row the store derived from them) at 100,000 committed transactions (LEDGERD_BENCH_QUICK=1:
// 10,000), CREATEs of one owner in blocks of 1,000, each with asset data (search text and field
// index rows). Prints the whole walk's time, the part spent in the store's derived-row check
// (its SQL) and the heap before and after (collected first under `node --expose-gc`): the walk
// reads a block at a time, so memory should not grow with the ledger beyond the derived check's
// 4 bytes a transaction per counted table.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerApp } from "../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../src/ledger/preparePool.js";
import { verifyChain } from "../src/ledger/verifyChain.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import type { DerivedCheck } from "../src/store/store.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { fmt, openBenchLedger, signCreates } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const storedTxs = quick ? 10_000 : 100_000;
const txsPerBlock = 1_000;

/** The store's derived check, the time of its blocks and of its finish summed into `spent`. */
function timed(check: DerivedCheck, spent: { blocksMs: number; finishMs: number }): DerivedCheck {
  const time = async <T>(what: "blocksMs" | "finishMs", work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      spent[what] += performance.now() - started;
    }
  };
  return { block: (block) => time("blocksMs", () => check.block(block)), finish: () => time("finishMs", () => check.finish()), close: () => check.close() };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-verify-"));
  const path = join(dir, "ledgerd.sqlite");
  try {
    const writer = await openBenchLedger(path, "verify-bench");
    const ledger = await LedgerApp.open({}, { store: writer, pool: new PreparePool({ ...preparePoolOptionsDefault, threads: 0 }) });
    const owner = makeRandomKeypair();
    for (let made = 0; made < storedTxs; made += txsPerBlock) {
      await ledger.finalizeBlock(ledger.info().height + 1, signCreates(txsPerBlock, "serial", owner));
      await ledger.commit();
    }
    await writer.close();
    const store = SqliteStore.open({ path, access: "reader" });
    const spent = { blocksMs: 0, finishMs: 0 };
    const open = store.openDerivedCheck.bind(store);
    store.openDerivedCheck = async (from) => timed(await open(from), spent);
    // With --expose-gc, the heap is measured after a collection, so garbage does not count.
    const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
    collect();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const report = await verifyChain(store);
    const seconds = (performance.now() - started) / 1000;
    collect();
    const heapAfter = process.memoryUsage().heapUsed;
    await store.close();
    if (report.fault !== null) throw new Error(`the bench ledger does not verify: ${JSON.stringify(report.fault)}`);
    console.log(`verify-chain over ${fmt(report.txs)} transactions (${report.to} blocks): ${seconds.toFixed(1)} s, ${fmt(report.txs / seconds)} tx/s`);
    const derived = `${((spent.blocksMs + spent.finishMs) / 1000).toFixed(1)} s (blocks ${(spent.blocksMs / 1000).toFixed(1)} s, the count at the end ${(spent.finishMs / 1000).toFixed(1)} s)`;
    console.log(`  of which the store's derived-row check: ${derived}; the rest re-derives each transaction from its JSON (ids, schema, signatures) and the app hashes`);
    console.log(`  heap ${fmt(heapBefore / 2 ** 20)} MiB before, ${fmt(heapAfter / 2 ** 20)} MiB after`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
