// `ledgerd import --from-bigchaindb URL` (docs/migrating-from-bigchaindb.md): a running
// BigchainDB 2.x node's chain, read through its public HTTP API, re-executed block by block into
// a new ledgerd ledger with the commitment v1 (so it has proofs). Heights are kept: BigchainDB's
// block h, empty or not, is ledgerd's block h. Each transaction goes through the same checks as
// a first commit; one that ledgerd's rules refuse is left out of its block and reported (code,
// message, compatibility entry) in the journal, on stderr and in the report, and the import goes
// on. The ledger is built beside its place and renamed into it at the end, as `import FILE`
// does; a stopped import (an error, a kill) resumes from the last committed block when run again
// (bigchaindbJournal.ts). It reads up to the latest height when it starts; run again after it
// finished it refuses (the ledger may have moved on since).
import { existsSync, readdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { configFileName } from "../config/loadConfig.js";
import { moduleOptions } from "../config/moduleOptions.js";
import type { Config } from "../config/schema.js";
import { failpoint } from "../failpoints.js";
import { LedgerApp } from "../ledger/ledgerApp.js";
import { PreparePool } from "../ledger/preparePool.js";
import { lockFileName, lockLedger, pidFileName } from "../node/dataDirLock.js";
import { nodeKeyFileName } from "../node/nodeKey.js";
import { makeDirs } from "../node/preflight.js";
import { SqliteStore } from "../store/sqlite/sqliteStore.js";
import type { Validator } from "../store/store.js";
import type { BigchaindbImportOptions } from "./bigchaindbImportOptions.js";
import {
  importRecordFormat,
  importRecordName,
  Journal,
  journalName,
  readImportRecord,
  reportName,
  resumeJournal,
  writeImportRecord,
  writeReport,
  type ImportRecord,
  type ImportSummary,
} from "./bigchaindbJournal.js";
import { RefusalTracker, type Refusal } from "./bigchaindbRefusals.js";
import { BigchaindbSource, type SourceBlock, type SourceDeps, type SourceTx } from "./bigchaindbSource.js";

export interface BigchaindbImportChoices {
  readonly url: string;
  readonly options: BigchaindbImportOptions;
  readonly onProgress?: (height: number, of: number) => void;
  readonly onRefused?: (refusal: Refusal) => void;
  readonly onRetry?: SourceDeps["onRetry"];
  /** The wait between retries (a test's does not sleep). */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface BigchaindbImportResult {
  /** The first height this run executed (1, or where a stopped import resumed). */
  readonly from: number;
  readonly summary: ImportSummary;
  readonly reportPath: string;
}

/** Imports the chain of the BigchainDB node at `choices.url` into `config`'s new data folder. */
export async function importFromBigchaindb(config: Config, choices: BigchaindbImportChoices): Promise<BigchaindbImportResult> {
  if (config.database.backend !== "sqlite") throw new Error("import builds a SQLite ledger: import, then `ledgerd migrate-store --to postgres`");
  const abort = new AbortController();
  const source = new BigchaindbSource(choices.url, choices.options, { sleep: choices.sleep ?? ((ms) => sleep(ms)), ...(choices.onRetry === undefined ? {} : { onRetry: choices.onRetry }) }, abort.signal);
  // The node first: an unreachable one, or one that is not BigchainDB, leaves no folder behind.
  const node = await source.node();
  const validators = await source.validators();
  makeDirs(config.data_dir, "data_dir");
  // Held to the end, the rename included: no node starts on the folder meanwhile (dataDirLock.ts).
  const lock = lockLedger(config);
  try {
    const begun = readImportRecord(config.data_dir);
    const staging = stagingPath(config);
    if (begun?.state === "done") return finishDone(config, begun, staging);
    checkTarget(config, begun);
    const record = begun ?? newRecord(source.base, node.version, config.engine.chain_id, validators);
    checkSameImport(record, source.base, validators);
    if (begun === null) writeImportRecord(config.data_dir, record);
    return await importInto(config, { source, record, staging, choices, abort });
  } finally {
    abort.abort();
    lock.release();
  }
}

/** Where the ledger is built before it is renamed into place. */
function stagingPath(config: Config): string {
  return `${config.database.path}.importing`;
}

/** What the data folder may hold besides an import's own files: what `ledgerd init` writes. */
const initFiles = new Set([lockFileName, pidFileName, configFileName, nodeKeyFileName]);

/**
 * The target must be a new data folder: nothing but `init`'s files, and an import's own when
 * one was begun (to resume it). A ledger, or anything else, is refused, naming it.
 */
function checkTarget(config: Config, begun: ImportRecord | null): void {
  const ownFiles = [importRecordName, journalName, reportName, basename(stagingPath(config))];
  const others = readdirSync(config.data_dir).filter((name) => {
    if (initFiles.has(name)) return false;
    return begun === null || !ownFiles.some((own) => name.startsWith(own));
  });
  if (existsSync(config.database.path)) {
    throw new Error(`${config.database.path} exists: import into a new data folder`);
  }
  if (others.length > 0) {
    throw new Error(`${config.data_dir} is not a new data folder (it holds ${others.slice(0, 3).join(", ")}${others.length > 3 ? ", ..." : ""}): import into a new or empty one`);
  }
}

function newRecord(source: string, version: string, chainId: string, validators: readonly Validator[]): ImportRecord {
  return { format: importRecordFormat, version: 1, source, source_version: version, chain_id: chainId, validators, state: "importing" };
}

/** A resumed import must read the same chain: the same node and the same validator set. */
function checkSameImport(record: ImportRecord, base: string, validators: readonly Validator[]): void {
  if (record.source !== base) throw new Error(`this folder holds an import from ${record.source}, not ${base}: resume it from there, or import into a new folder`);
  if (JSON.stringify(record.validators) !== JSON.stringify(validators)) {
    throw new Error(`${base}'s validator set changed since the import began: import into a new folder`);
  }
}

/** An import that wrote its report and stopped before the rename: the rename. */
function finishDone(config: Config, record: ImportRecord, staging: string): BigchaindbImportResult {
  if (existsSync(config.database.path) || !existsSync(staging) || record.summary === undefined) {
    throw new Error(`${config.data_dir} holds a finished import from ${record.source} (report: ${reportName}); import into a new folder`);
  }
  renameSync(staging, config.database.path);
  return { from: record.summary.to + 1, summary: record.summary, reportPath: join(config.data_dir, reportName) };
}

interface ImportRun {
  readonly source: BigchaindbSource;
  readonly record: ImportRecord;
  readonly staging: string;
  readonly choices: BigchaindbImportChoices;
  readonly abort: AbortController;
}

async function importInto(config: Config, run: ImportRun): Promise<BigchaindbImportResult> {
  const options = moduleOptions(config);
  const store = SqliteStore.open({ ...options.sqliteStore, path: run.staging, access: "owner" });
  const pool = new PreparePool(options.preparePool);
  let journal: Journal | null = null;
  let open = true;
  const closeStore = async (): Promise<void> => {
    if (open) await store.close();
    open = false;
  };
  try {
    const ledger = await LedgerApp.open(options.ledger, { store, pool });
    if (ledger.chain === null) await ledger.initChain(run.record.chain_id, run.record.validators, "v1");
    const tracker = new RefusalTracker(run.choices.options.refusedIdsTrackedMax);
    const done = ledger.info().height;
    const counts = await resumeJournal(config.data_dir, done, (refusal) => tracker.remember(refusal));
    journal = new Journal(config.data_dir);
    const to = Math.max(done, await run.source.latestHeight());
    await executeBlocks(ledger, { ...run, journal, tracker, counts, from: done + 1, to });
    const summary: ImportSummary = { to, transactions: counts.transactions, accepted: counts.transactions - counts.refused, refused: counts.refused, app_hash: ledger.info().appHash };
    journal.close();
    journal = null;
    const reportPath = await writeReport(config.data_dir, run.record, summary);
    writeImportRecord(config.data_dir, { ...run.record, state: "done", summary });
    await closeStore();
    renameSync(run.staging, config.database.path);
    return { from: done + 1, summary, reportPath };
  } finally {
    journal?.close();
    await pool.close();
    await closeStore();
  }
}

interface BlocksRun extends ImportRun {
  readonly journal: Journal;
  readonly tracker: RefusalTracker;
  readonly counts: { transactions: number; refused: number };
  readonly from: number;
  readonly to: number;
}

/**
 * Heights `from` to `to`, fetched up to `fetchConcurrency` ahead of the one executing (the
 * most held in memory), executed and committed in order.
 */
async function executeBlocks(ledger: LedgerApp, run: BlocksRun): Promise<void> {
  const ahead = new Map<number, Promise<SourceBlock>>();
  let next = run.from;
  for (let height = run.from; height <= run.to; height++) {
    while (next <= run.to && ahead.size < run.choices.options.fetchConcurrency) {
      const fetching = run.source.block(next);
      fetching.catch(() => undefined); // awaited in its turn; a failure meanwhile is not unhandled
      ahead.set(next, fetching);
      next++;
    }
    const block = await ahead.get(height)!.catch((error: unknown) => {
      throw stoppedAt(height, error);
    });
    ahead.delete(height);
    await executeBlock(ledger, block, run);
    failpoint("import.block");
    run.choices.onProgress?.(height, run.to);
  }
}

function stoppedAt(height: number, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  const done = height - 1;
  return new Error(`${reason}\nthe import stopped after height ${done}: run the same command again to resume from height ${done + 1}`, { cause: error });
}

/** One block: executed, its refusals journaled (durably), then committed. */
async function executeBlock(ledger: LedgerApp, block: SourceBlock, run: BlocksRun): Promise<void> {
  const txs = dependencyOrder(block.txs);
  const finalized = await ledger.finalizeBlock(block.height, txs.map((tx) => Buffer.from(tx.json, "utf8")));
  const served = new Map(block.txs.map((tx, index) => [tx, index]));
  const refusals: Refusal[] = [];
  finalized.results.forEach((rejection, i) => {
    if (rejection === null) return;
    const tx = txs[i]!;
    refusals.push(run.tracker.refusalOf(block.height, served.get(tx)!, tx, rejection));
  });
  if (txs.length > 0) run.journal.block(block.height, txs.length, refusals);
  await ledger.commit();
  run.counts.transactions += txs.length;
  run.counts.refused += refusals.length;
  for (const refusal of refusals) run.choices.onRefused?.(refusal);
}

/**
 * The block's transactions with each after those of the block it spends, otherwise in
 * BigchainDB's order. BigchainDB answers a block's transactions in its store's order, which is
 * not always the block's (its store's `$in` lookup); BigchainDB executed them in the block's
 * order, where a spent transaction came first, and stored only the valid ones, which do not
 * conflict: any order that keeps spends after what they spend executes them alike. A
 * transaction served twice (no BigchainDB block holds one twice, but the answer is not trusted)
 * is kept, its repeats after the block's others, so that the ledger refuses each repeat and the
 * report lists it rather than the import dropping it unsaid.
 */
export function dependencyOrder(txs: readonly SourceTx[]): SourceTx[] {
  const inBlock = new Map<string, SourceTx>();
  const repeats: SourceTx[] = [];
  for (const tx of txs) {
    if (inBlock.has(tx.id)) repeats.push(tx);
    else inBlock.set(tx.id, tx);
  }
  const placed = new Set<string>();
  const ordered: SourceTx[] = [];
  for (const first of inBlock.values()) {
    // Depth first without recursion: a block may carry a long chain of transfers.
    const stack: { tx: SourceTx; expanded: boolean }[] = [{ tx: first, expanded: false }];
    while (stack.length > 0) {
      const top = stack.pop()!;
      if (top.expanded) {
        ordered.push(top.tx);
        continue;
      }
      if (placed.has(top.tx.id)) continue;
      placed.add(top.tx.id);
      stack.push({ tx: top.tx, expanded: true });
      for (const id of [...top.tx.spends].reverse()) {
        const spent = inBlock.get(id);
        if (spent !== undefined && !placed.has(id)) stack.push({ tx: spent, expanded: false });
      }
    }
  }
  return ordered.concat(repeats);
}
