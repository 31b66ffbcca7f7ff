import type Database from "better-sqlite3";
import { HashFilter } from "./hashFilter.js";
import { indexHashesSql, indexInsertSql, indexLookupSql } from "./queries.js";

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
// A slice holding more rows than one commit should merge (a busy public key's, after a restart)
// is merged over several commits, oldest rows first: its mark then stops at a seq below the
// block's, and its rows above the mark go on waiting.
//
// Nothing is lost in a crash: the staged rows are derived from the append-only tables written in
// the same commit, and `index_sweep` records, per slice, up to which seq its rows are merged. On
// open the store re-derives the rows above each slice's mark (see SqliteStore's constructor).
// A read-only store in another process (an HTTP worker) does the same for each block the writer
// commits, and drops a slice's rows when it sees the writer merge that slice.
// Lookups read the table, the staged rows, and the rows of the block being written ("pending").

/** A row of a deferred index: the 48-bit hash, then the index's columns (all integers). */
export type IndexRow = readonly number[];

/** A slice a commit merges: its waiting rows added by transactions up to seq `upTo`. */
export interface SliceMerge {
  readonly slice: number;
  readonly upTo: number;
}

/** The slice of the key space a hash falls in; slices are contiguous ranges, so merges cluster. */
export function sliceOf(hash: number, slices: number): number {
  return Math.floor(hash / (2 ** 48 / slices));
}

export class DeferredIndex {
  readonly #slices: number;
  /** The column of a row holding the seq of the transaction that added it. */
  readonly #seqColumn: number;
  readonly #select: Database.Statement;
  readonly #insert: Database.Statement;
  /** Per slice, hash -> rows: a merged slice is dropped whole. */
  readonly #staged: Map<number, IndexRow[]>[];
  readonly #stagedCount: number[];
  /** Per slice, no staged row's seq is above this (a bound, not always the greatest). */
  readonly #stagedSeqMax: number[];
  #pending = new Map<number, IndexRow[]>();
  #pendingCount: number[];
  /**
   * With `filtered`: every hash in the table when it was read, and every hash added, restored
   * or noted since (a superset of what a lookup can find), so an absent hash costs no read.
   */
  #filter: HashFilter | null = null;

  /**
   * `table` has columns (hash, ...columns) with a primary key starting with hash; a row's
   * `seqColumn` holds the seq of the transaction that added it.
   */
  constructor(db: Database.Database, table: string, columns: readonly string[], slices: number, seqColumn: number, filtered = false) {
    this.#slices = slices;
    this.#seqColumn = seqColumn;
    this.#select = db.prepare(indexLookupSql(table, columns)).raw();
    this.#insert = db.prepare(indexInsertSql(table, columns));
    this.#staged = Array.from({ length: slices }, () => new Map());
    this.#stagedCount = new Array<number>(slices).fill(0);
    this.#stagedSeqMax = new Array<number>(slices).fill(0);
    this.#pendingCount = new Array<number>(slices).fill(0);
    if (filtered) this.#buildFilter(db.prepare(indexHashesSql(table)).pluck());
  }

  /** The bytes its filter takes; 0 unfiltered. */
  get filterBytes(): number {
    return this.#filter?.bytes ?? 0;
  }

  /** False only when no row with this hash is in the table or waiting (always true unfiltered). */
  mayHold(hash: number): boolean {
    return this.#filter === null || this.#filter.mayHold(hash);
  }

  /**
   * A row another connection committed and merged before this one saw it (a follower's): in the
   * table now, so never restored here, but the filter must know its hash.
   */
  note(row: IndexRow): void {
    this.#filterAdd(row[0] as number);
  }

  /** Every row with this hash (merged, staged, or of the block being written), without hash. */
  lookup(hash: number): number[][] {
    if (!this.mayHold(hash)) return [];
    const rows = this.#select.all(hash) as number[][];
    for (const row of this.waitingRows(hash)) rows.push(row.slice(1));
    return rows;
  }

  /**
   * The rows with this hash not in the table yet, hash included (do not change them). They are
   * all newer than the table's rows with this hash: a slice's rows reach the table in order.
   */
  waitingRows(hash: number): readonly IndexRow[] {
    const staged = this.#staged[sliceOf(hash, this.#slices)]?.get(hash);
    const pending = this.#pending.get(hash);
    if (pending === undefined) return staged ?? [];
    return staged === undefined ? pending : staged.concat(pending);
  }

  /** A row of the block being written; it becomes staged when the block commits. */
  add(row: IndexRow): void {
    const hash = row[0] as number;
    this.#filterAdd(hash);
    push(this.#pending, hash, row);
    this.#pendingCount[sliceOf(hash, this.#slices)]! += 1;
  }

  /** A row re-derived on open, committed earlier but not merged yet. */
  restore(row: IndexRow): void {
    this.#filterAdd(row[0] as number);
    this.#stage(row);
  }

  #stage(row: IndexRow): void {
    const hash = row[0] as number;
    const slice = sliceOf(hash, this.#slices);
    push(this.#staged[slice]!, hash, row);
    this.#stagedCount[slice]! += 1;
    this.#stagedSeqMax[slice] = Math.max(this.#stagedSeqMax[slice]!, row[this.#seqColumn]!);
  }

  /** Rows waiting in this slice, staged and pending. */
  waitingCount(slice: number): number {
    return (this.#stagedCount[slice] ?? 0) + (this.#pendingCount[slice] ?? 0);
  }

  /** Rows of the block being written, in every slice. */
  get pendingRows(): number {
    return this.#pendingCount.reduce((n, count) => n + count, 0);
  }

  /**
   * Writes the seq of every row waiting in this slice (staged and pending) into `into` from
   * `at` (room for waitingCount(slice) of them); returns where it stopped.
   */
  waitingSeqs(slice: number, into: Float64Array, at: number): number {
    const seq = this.#seqColumn;
    for (const list of this.#staged[slice]!.values()) for (const row of list) into[at++] = row[seq]!;
    for (const [hash, list] of this.#pending) {
      if (sliceOf(hash, this.#slices) === slice) for (const row of list) into[at++] = row[seq]!;
    }
    return at;
  }

  /** Writes the waiting rows each merge names to the table, in key order. Inside the commit. */
  merge(merges: readonly SliceMerge[]): void {
    const upTo = this.#bounds(merges);
    const seq = this.#seqColumn;
    const rows: IndexRow[] = [];
    // Loops, not push(...list): one hash (a busy public key) may hold very many rows.
    for (const { slice, upTo: bound } of merges) {
      for (const list of this.#staged[slice]!.values()) for (const row of list) if (row[seq]! <= bound) rows.push(row);
    }
    for (const [hash, list] of this.#pending) {
      const bound = upTo.get(sliceOf(hash, this.#slices));
      if (bound !== undefined) for (const row of list) if (row[seq]! <= bound) rows.push(row);
    }
    // By hash only: rows sharing a hash land on the same page in any order.
    rows.sort((a, b) => (a[0] as number) - (b[0] as number));
    for (const row of rows) this.#insert.run(...row);
  }

  /** The slice was merged up to seq `upTo`: its staged rows up to there are in the table now. */
  dropMerged(slice: number, upTo: number): void {
    const seq = this.#seqColumn;
    const staged = this.#staged[slice]!;
    // Merged whole, as nearly every merge is: no row to look at.
    if (upTo >= this.#stagedSeqMax[slice]!) {
      staged.clear();
      this.#stagedCount[slice] = 0;
      this.#stagedSeqMax[slice] = 0;
      return;
    }
    let left = 0;
    for (const [hash, list] of staged) {
      const kept = list.filter((row) => row[seq]! > upTo);
      if (kept.length === 0) staged.delete(hash);
      else if (kept.length !== list.length) staged.set(hash, kept);
      left += kept.length;
    }
    this.#stagedCount[slice] = left;
  }

  /** The block committed: merged rows leave memory, the other pending rows become staged. */
  committed(merges: readonly SliceMerge[]): void {
    const upTo = this.#bounds(merges);
    const seq = this.#seqColumn;
    for (const { slice, upTo: bound } of merges) this.dropMerged(slice, bound);
    for (const [hash, list] of this.#pending) {
      const bound = upTo.get(sliceOf(hash, this.#slices)) ?? -1;
      for (const row of list) if (row[seq]! > bound) this.#stage(row); // in the filter since add
    }
    this.rolledBack();
  }

  #filterAdd(hash: number): void {
    this.#filter?.add(hash);
  }

  /**
   * The filter of the table's hashes, at open (before any row is restored or added): one read
   * of the table, 0.4 to 0.7 s and 4 MiB at a million rows on this project's test machine.
   */
  #buildFilter(hashes: Database.Statement): void {
    const merged = hashes.all() as number[];
    const filter = new HashFilter(2 * merged.length);
    for (const hash of merged) filter.add(hash);
    this.#filter = filter;
  }

  #bounds(merges: readonly SliceMerge[]): Map<number, number> {
    return new Map(merges.map(({ slice, upTo }) => [slice, upTo]));
  }

  /** The block was rolled back (or committed): no block is being written. */
  rolledBack(): void {
    this.#pending = new Map();
    this.#pendingCount.fill(0);
  }
}

function push(map: Map<number, IndexRow[]>, hash: number, row: IndexRow): void {
  const rows = map.get(hash);
  if (rows === undefined) map.set(hash, [row]);
  else rows.push(row);
}
