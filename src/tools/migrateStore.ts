// `ledgerd migrate-store --to postgres` (docs/postgres.md, "Moving a ledger from SQLite"): the
// node's SQLite ledger re-executed block by block into a PostgreSQL database, each block's app
// hash compared with the one stored, so the copy is checked as it is made (nothing is copied
// that the ledger would not accept again). It reads the SQLite file as a reader, so it may run
// beside the node; run again, it resumes after the last block it wrote, once it has checked that
// block's app hash. It writes in one bulk load (Store.beginBulkLoad: PostgreSQL commits each
// block asynchronously, each still one transaction), ended before it vacuums or reports, and
// when it fails midway: a crash may lose the last blocks written, never part of one, and the
// next run resumes after the last block PostgreSQL kept. The legacy variants' refused
// transactions are not carried (they are outside the app hash, as in `ledgerd export`); the
// signed headers the proofs carry are. It ends with `VACUUM (ANALYZE)` of the database, so the
// node starting on it reads a key's outputs from their index at once (docs/postgres.md, Tuning).
import type { Config } from "../config/schema.js";
import { moduleOptions } from "../config/moduleOptions.js";
import { LedgerApp } from "../ledger/ledgerApp.js";
import { PreparePool } from "../ledger/preparePool.js";
import { PostgresStore } from "../store/postgres/postgresStore.js";
import { inBulkLoad, type Store, type StoredSignedHeader } from "../store/store.js";
import { replayBlock } from "./exportImport.js";
import { blockLineOf } from "../ledger/blockLine.js";
import { openLedgerReader } from "../node/openStore.js";

export interface MigrateReport {
  /** The first height written by this run (the target's height + 1 when it began). */
  readonly from: number;
  readonly to: number;
  readonly appHash: string;
}

/** Migrates the node's SQLite ledger into the PostgreSQL database at `url` (empty: database.url). */
export async function migrateToPostgres(config: Config, url: string, onProgress?: (height: number, of: number) => void): Promise<MigrateReport> {
  if (config.database.backend !== "sqlite") throw new Error("migrate-store reads the node's SQLite ledger: set database.backend to sqlite for it");
  const options = moduleOptions(config);
  const source = await openLedgerReader(config);
  let target: PostgresStore | null = null;
  const pool = new PreparePool(options.preparePool);
  try {
    // No vacuum at the bulk load's end: the tool runs its own, awaited, below.
    const noBulkVacuum = { bulkLoadVacuumTxsMin: Number.POSITIVE_INFINITY };
    const writing = await PostgresStore.open({ ...options.postgresStore, ...(url === "" ? {} : { url }), access: "writer", ...noBulkVacuum });
    target = writing;
    const head = await source.getChainState();
    if (head.chainId === null) throw new Error("the SQLite ledger has no chain yet");
    const from = (await checkResumable(source, writing, head.chainId)) + 1;
    const ledger = await LedgerApp.open(options.ledger, { store: writing, pool });
    if (from === 1) await ledger.initChain(head.chainId, await source.getValidators(1), head.commitment, head);
    await inBulkLoad(writing, {}, () => copyBlocks(source, writing, ledger, { from, to: head.height }, onProgress));
    // A second run's vacuum is short: the pages the first left all-visible are skipped.
    if (from <= head.height) await writing.vacuum();
    return { from, to: head.height, appHash: ledger.info().appHash };
  } finally {
    await pool.close();
    await target?.close();
    await source.close();
  }
}

/**
 * Blocks whose signed headers are read and written together: one write (a synchronous commit,
 * on the store's pool) for this many blocks, not one for each, which under a bulk load would
 * wait for a WAL flush per block again.
 */
const headersBatchBlocks = 1_000;

/**
 * Re-executes the blocks `from`..`to` into the target. A batch's signed headers are written
 * before its blocks: a crash then leaves headers of blocks that a rerun writes (a header kept
 * already is left as it is), never a block whose header is lost.
 */
async function copyBlocks(
  source: Store,
  target: Store,
  ledger: LedgerApp,
  range: { readonly from: number; readonly to: number },
  onProgress?: (height: number, of: number) => void,
): Promise<void> {
  for (let first = range.from; first <= range.to; first += headersBatchBlocks) {
    const last = Math.min(first + headersBatchBlocks - 1, range.to);
    // CometBFT's signed headers, kept for the proofs: CometBFT may have pruned them since.
    const headers: StoredSignedHeader[] = [];
    for (let height = first; height <= last; height++) {
      const json = await source.getSignedHeader(height);
      if (json !== null) headers.push({ height, json });
    }
    if (headers.length > 0) await target.putSignedHeaders(headers);
    for (let height = first; height <= last; height++) {
      const contents = await source.getBlockContents(height);
      if (contents === null) throw new Error(`block ${height} is missing from the SQLite ledger`);
      await replayBlock(ledger, blockLineOf(contents), true);
      onProgress?.(height, range.to);
    }
  }
}

/** The target's height, after checking it is empty or an earlier run's copy of the same chain. */
async function checkResumable(source: Store, target: Store, chainId: string): Promise<number> {
  const state = await target.getChainState();
  if (state.chainId === null && state.height === 0) return 0;
  if (state.chainId !== chainId) throw new Error(`the PostgreSQL database holds chain ${String(state.chainId)}, not ${chainId}: migrate into an empty database`);
  const block = await source.getBlockHead(state.height);
  if (state.height > 0 && block?.appHash !== state.appHash) {
    throw new Error(`the PostgreSQL database is at height ${state.height} with another app hash than the SQLite ledger's: migrate into an empty database`);
  }
  return state.height;
}
