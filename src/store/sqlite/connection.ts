// Opening the database: the connection's pragmas, the schema (`schema.ts`), the statements
// prepared once (`queries.ts`) and the deferred indexes (`deferredIndex.ts`). What the block
// writer, the readers and search share is this one `Connection`.

import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { DeferredIndex } from "./deferredIndex.js";
import type { SqliteStoreOptions } from "./options.js";
import { addedBySeqColumn } from "./places.js";
import { indexTables, rankSql, readSql, writeSql, type IndexName } from "./queries.js";

export type Statements<T extends Record<string, string>> = { [K in keyof T]: Database.Statement };
export type Indexes = { [K in IndexName]: DeferredIndex };

export const indexNames = Object.keys(indexTables) as IndexName[];

/** One open database, with everything prepared on it. */
export interface Connection {
  readonly db: Database.Database;
  readonly read: Statements<typeof readSql>;
  readonly write: Statements<typeof writeSql>;
  /** Text search ranking: the seqs of the best matches. */
  readonly rank: Statements<typeof rankSql>;
  readonly index: Indexes;
  /** Per slice of the hashed indexes: rows with seq up to this are in the tables. */
  readonly merged: number[];
}

/** How long a statement waits for a lock another connection holds (better-sqlite3's default). */
export const busyTimeoutMs = 5000;

/** Whether SQLite keeps the database at `path` in a file (":memory:" and "" are in memory). */
export function onDisk(path: string): boolean {
  return path !== ":memory:" && path !== "";
}

export function openDatabase(path: string, access: "owner" | "readers" | "reader"): Database.Database {
  if (access === "reader") return new Database(path, { readonly: true, fileMustExist: true });
  if (onDisk(path)) mkdirSync(dirname(path), { recursive: true });
  return new Database(path, { timeout: busyTimeoutMs });
}

/**
 * `autocheckpointPages`: the writer's own checkpoint mark (options.walAutocheckpointPages, or
 * its fallback while a checkpoint thread runs, checkpointer.ts).
 */
export function configure(db: Database.Database, options: SqliteStoreOptions, owner: boolean, autocheckpointPages = options.walAutocheckpointPages): void {
  // Before WAL is entered, so an owner makes no shared-memory index either.
  if (owner) db.pragma("locking_mode = EXCLUSIVE");
  // WAL: readers (HTTP workers) do not block the writer, and a commit is one sequential append.
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${options.synchronous.toUpperCase()}`);
  db.pragma(`cache_size = -${Math.floor(options.cacheSizeBytes / 1024)}`);
  db.pragma(`mmap_size = ${Math.floor(options.mmapSizeBytes)}`);
  db.pragma(`wal_autocheckpoint = ${Math.floor(autocheckpointPages)}`);
  db.pragma(`journal_size_limit = ${Math.floor(options.journalSizeLimitBytes)}`);
  db.pragma("temp_store = MEMORY");
}

/**
 * Prepares the statements and loads the index marks on a database whose schema is in place;
 * with `idFilter`, the ids' index keeps its filter (options.idFilter).
 */
export function prepareConnection(db: Database.Database, idFilter = false): Connection {
  const read = prepareAll(db, readSql);
  for (const name of singleColumnReads) read[name].pluck();
  read.keyPlacesAfter.raw();
  read.holdingsIn.raw();
  read.holdingsAtSeqs.raw();
  const write = prepareAll(db, writeSql);
  const rank = prepareAll(db, rankSql);
  for (const statement of Object.values(rank)) statement.pluck();
  const merged = read.sweep.all() as number[];
  const count = merged.length; // the database's own slice count
  // Only the ids are filtered: the duplicate check of each posted transaction looks up a new id.
  const make = (name: IndexName) =>
    new DeferredIndex(db, indexTables[name].table, indexTables[name].columns, count, addedBySeqColumn[name], idFilter && name === "ids");
  const index: Indexes = { ids: make("ids"), assets: make("assets"), keys: make("keys"), spent: make("spent") };
  return { db, read, write, rank, index, merged };
}

// Reads of one column return the value itself, not a row object.
const singleColumnReads = [
  "lastSeq",
  "dataVersion",
  "txIdAt",
  "txJsonAt",
  "txHeightAt",
  "createAt",
  "isCreateAt",
  "transferAt",
  "transferSeqsAfter",
  "keyRowsUpTo",
  "assetRowsUpTo",
  "txIdsBySeqRange",
  "txJsonsBySeqRange",
  "sweep",
  "legacyLastSeq",
  "legacyTxJson",
  "legacyTxHeight",
  "historyNode",
  "blockNode",
] as const satisfies readonly (keyof typeof readSql)[];

function prepareAll<T extends Record<string, string>>(
  db: Database.Database,
  sql: T,
): Statements<T> {
  const statements: Partial<Record<keyof T, Database.Statement>> = {};
  for (const name of Object.keys(sql) as (keyof T)[]) {
    statements[name] = db.prepare(sql[name] as string);
  }
  return statements as Statements<T>;
}
