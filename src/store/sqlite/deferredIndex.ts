import type Database from "better-sqlite3";
import { indexInsertSql, indexLookupSql } from "./queries.js";

// Why this exists: an index keyed by a hash takes each insert at a random place. Once the index
// is much bigger than a block, every insert dirties its own page, and the commit must write every
// dirty page to the log (and later back to the database). At a million transactions that was
// ~2,700 pages (11 MB) per block of 1,000 and the commit time grew with the ledger.
//
// So the hashed indexes (transactions by id, TRANSFERs by asset, outputs by public key, spent
// outputs) are written late and in key order. The key space is cut into `slices` ranges; new rows
// wait in memory ("staged"), and each commit moves the rows of the slice that waited longest into
// its table. Those rows, gathered over many blocks, all fall in one narrow range of the table, so
// they share pages: a commit dirties about (index pages / slices) pages per index, not one per row.
//
// Nothing is lost in a crash: the staged rows are derived from the append-only tables written in
// the same commit, and `index_sweep` records, per slice, up to which seq its rows are merged. On
// open the store re-derives the rows above each slice's mark (see SqliteStore's constructor).
// Lookups read the table, the staged rows, and the rows of the block being written ("pending").

/** A row of a deferred index: the 48-bit hash, then the index's columns (all integers). */
export type IndexRow = readonly number[];

/** The slice of the key space a hash falls in; slices are contiguous ranges, so merges cluster. */
export function sliceOf(hash: number, slices: number): number {
  return Math.floor(hash / (2 ** 48 / slices));
}

export class DeferredIndex {
  readonly #slices: number;
  readonly #select: Database.Statement;
  readonly #insert: Database.Statement;
  readonly #staged = new Map<number, IndexRow[]>();
  readonly #stagedBySlice: IndexRow[][];
  readonly #pending = new Map<number, IndexRow[]>();
  readonly #pendingBySlice: IndexRow[][];

  /** `table` has columns (hash, ...columns) with a primary key starting with hash. */
  constructor(db: Database.Database, table: string, columns: readonly string[], slices: number) {
    this.#slices = slices;
    this.#select = db.prepare(indexLookupSql(table, columns)).raw();
    this.#insert = db.prepare(indexInsertSql(table, columns));
    this.#stagedBySlice = Array.from({ length: slices }, () => []);
    this.#pendingBySlice = Array.from({ length: slices }, () => []);
  }

  /** Every row with this hash (merged, staged, or of the block being written), without hash. */
  lookup(hash: number): number[][] {
    const rows = this.#select.all(hash) as number[][];
    for (const row of this.#staged.get(hash) ?? []) rows.push(row.slice(1));
    for (const row of this.#pending.get(hash) ?? []) rows.push(row.slice(1));
    return rows;
  }

  /** A row of the block being written; it becomes staged when the block commits. */
  add(row: IndexRow): void {
    const slice = sliceOf(row[0] as number, this.#slices);
    push(this.#pending, row);
    this.#pendingBySlice[slice]?.push(row);
  }

  /** A row re-derived on open, committed earlier but not merged yet. */
  restore(row: IndexRow): void {
    const slice = sliceOf(row[0] as number, this.#slices);
    push(this.#staged, row);
    this.#stagedBySlice[slice]?.push(row);
  }

  /** Rows waiting in this slice, staged and pending. */
  waiting(slice: number): number {
    return (this.#stagedBySlice[slice]?.length ?? 0) + (this.#pendingBySlice[slice]?.length ?? 0);
  }

  /** Writes every waiting row of these slices to the table, in key order. Inside the commit. */
  merge(slices: readonly number[]): void {
    const rows: IndexRow[] = [];
    for (const slice of slices) {
      rows.push(...(this.#stagedBySlice[slice] ?? []), ...(this.#pendingBySlice[slice] ?? []));
    }
    rows.sort(compareRows);
    for (const row of rows) this.#insert.run(...row);
  }

  /** The block committed: merged slices leave memory, the other pending rows become staged. */
  committed(mergedSlices: readonly number[]): void {
    for (const slice of mergedSlices) {
      // A hash lives in one slice only, so its whole entry goes.
      for (const row of this.#stagedBySlice[slice] ?? []) this.#staged.delete(row[0] as number);
      this.#stagedBySlice[slice] = [];
      this.#pendingBySlice[slice] = [];
    }
    for (let slice = 0; slice < this.#slices; slice++) {
      for (const row of this.#pendingBySlice[slice] ?? []) this.restore(row);
      this.#pendingBySlice[slice] = [];
    }
    this.#pending.clear();
  }

  /** The block was rolled back: its rows never existed. */
  rolledBack(): void {
    this.#pending.clear();
    for (let slice = 0; slice < this.#slices; slice++) this.#pendingBySlice[slice] = [];
  }
}

function push(map: Map<number, IndexRow[]>, row: IndexRow): void {
  const hash = row[0] as number;
  const rows = map.get(hash);
  if (rows === undefined) map.set(hash, [row]);
  else rows.push(row);
}

function compareRows(a: IndexRow, b: IndexRow): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}
