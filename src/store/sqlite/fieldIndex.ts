// The SQLite side of queries by field (../fieldQuery.ts, docs/compatibility.md #25).
//
// `field_index` holds one row per indexed leaf of a document: (keyHash(fieldKey), seq), keyed
// by both, WITHOUT ROWID. The hash is 48 bits (keyHash.ts), so a lookup re-reads the document
// and keeps it only when it really holds every filter (a collision costs a parse, never a wrong
// answer). An AND of filters is a leapfrog join over the filters' rows (see fieldMatches).
//
// `field_index_mark` says up to which seq the table is complete. The block writer moves it with
// each block; a writer that opens a database whose mark is behind (one made before this table
// existed, or written meanwhile by an older ledgerd that does not know it) indexes the rest
// first (`catchUpFieldIndex`): that is the migration, and it needs no schema version of its own.

import type Database from "better-sqlite3";
import { fieldKey, fieldLeafKeys, fieldsMatch, type FieldFilter } from "../fieldQuery.js";
import { encodePosition } from "../positions.js";
import type { FieldHit } from "../store.js";
import type { BatchReader } from "./batchReaders.js";
import { keyHash } from "./keyHash.js";
import { batchRowsMax } from "./limits.js";

export const fieldIndexSql = `
CREATE TABLE IF NOT EXISTS field_index (
  hash INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (hash, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS field_index_mark (
  id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL
);
INSERT OR IGNORE INTO field_index_mark (id, seq) VALUES (1, 0);
`;

/** Transactions read per statement while catching up. */
const catchUpRowsMax = 1000;

const statementsOf = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** `sql` prepared once per connection. */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let cache = statementsOf.get(db);
  if (cache === undefined) statementsOf.set(db, (cache = new Map()));
  let prepared = cache.get(sql);
  if (prepared === undefined) cache.set(sql, (prepared = db.prepare(sql)));
  return prepared;
}

/** True when the database has the field index tables. */
export function hasFieldIndex(db: Database.Database): boolean {
  const sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'field_index_mark'";
  return (statement(db, sql).pluck().get() as number) === 1;
}

/**
 * Creates the tables when missing and indexes every transaction after the mark, in one write
 * transaction. A writer calls it at open; it costs one read when the index is complete.
 */
export function catchUpFieldIndex(db: Database.Database): void {
  db.transaction(() => {
    db.exec(fieldIndexSql);
    const mark = db.prepare("SELECT seq FROM field_index_mark WHERE id = 1").pluck().get() as number;
    const last = forEachDocumentAfter(db, mark, (row) => writeFieldRows(db, row.seq, row.assetData, row.metadata));
    setFieldIndexMark(db, last);
  }).immediate();
}

/** A stored transaction's documents, as a read index's catch-up reads them. */
export interface DocumentRow {
  readonly seq: number;
  readonly id: string;
  readonly assetData: string | null;
  readonly metadata: string | null;
}

/** Calls `each` with every transaction after seq `mark`, in order, in reads of `catchUpRowsMax`; returns the last seq. */
export function forEachDocumentAfter(db: Database.Database, mark: number, each: (row: DocumentRow) => void): number {
  const last = (db.prepare("SELECT max(seq) FROM transactions").pluck().get() as number | null) ?? 0;
  const read = db.prepare(`
    SELECT seq, id, asset_data AS assetData, metadata FROM transactions
    WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`);
  let after = mark;
  while (after < last) {
    const rows = read.all(after, last, catchUpRowsMax) as DocumentRow[];
    if (rows.length === 0) break;
    for (const row of rows) each(row);
    after = rows[rows.length - 1]!.seq;
  }
  return last;
}

const insertFieldRowSql = "INSERT OR IGNORE INTO field_index (hash, seq) VALUES (?, ?)";

/** Indexes one transaction's documents; inside the block's write transaction. */
export function writeFieldRows(
  db: Database.Database,
  seq: number,
  assetData: string | null,
  metadata: string | null,
): void {
  // Two leaves of one document may share a hash: the row is the same, written once.
  const insert = statement(db, insertFieldRowSql);
  if (assetData !== null) for (const key of fieldLeafKeys("assets", assetData)) insert.run(keyHash(key), seq);
  if (metadata !== null) for (const key of fieldLeafKeys("metadata", metadata)) insert.run(keyHash(key), seq);
}

/** One transaction's field rows, appended to `held` as (hash, seq) pairs, for writeHeldFieldRows. */
export function holdFieldRows(held: number[], seq: number, assetData: string | null, metadata: string | null): void {
  if (assetData !== null) for (const key of fieldLeafKeys("assets", assetData)) held.push(keyHash(key), seq);
  if (metadata !== null) for (const key of fieldLeafKeys("metadata", metadata)) held.push(keyHash(key), seq);
}

/**
 * Writes held (hash, seq) pairs in the table's key order, inside the open write transaction:
 * each page of the index is then dirtied once, not once per random key (a restore's commits).
 */
export function writeHeldFieldRows(db: Database.Database, held: readonly number[]): void {
  const order = Array.from({ length: held.length / 2 }, (_, i) => 2 * i);
  order.sort((a, b) => held[a]! - held[b]! || held[a + 1]! - held[b + 1]!);
  const insert = statement(db, insertFieldRowSql);
  for (const at of order) insert.run(held[at]!, held[at + 1]!);
}

/** The field index is complete up to `seq`; inside the block's write transaction. */
export function setFieldIndexMark(db: Database.Database, seq: number): void {
  statement(db, "UPDATE field_index_mark SET seq = ? WHERE id = 1").run(seq);
}

// One filter: its rows in commit order, a batch per statement.
export const rowsAfterSql = `
  SELECT seq FROM field_index WHERE hash = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`;
// More: a leapfrog join. Each filter's rows are sorted by seq; seeking each to the highest seq
// any has reached skips every run of rows the others lack, so an AND costs about the rows of
// its rarest filter, whichever order the filters came in (`kind=car&serial=X` is one hop).
export const seekSql = `
  SELECT seq FROM field_index WHERE hash = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT 1`;

function documentSql(kind: "assets" | "metadata"): string {
  const column = kind === "assets" ? "asset_data" : "metadata";
  return `SELECT id, ${column} AS json FROM transactions WHERE seq = ?`;
}

/** Seeks one batch of a leapfrog join may make; past it the batch ends, maybe empty. */
const seeksPerBatchMax = 4 * batchRowsMax;

/**
 * The documents holding every filter, in commit order, after seq `after` and up to seq `upTo`
 * (the walk's snapshot: nothing committed later shows); at most `limit` in all (undefined:
 * all). Each batch is bounded in rows and seeks.
 */
export function fieldMatches(
  db: Database.Database,
  kind: "assets" | "metadata",
  filters: readonly FieldFilter[],
  range: { readonly after: number; readonly upTo: number },
  limit: number | undefined,
): BatchReader<FieldHit> {
  if (!hasFieldIndex(db)) {
    throw new Error(`${db.name} has no field index yet: open it once with a writing ledgerd`);
  }
  const hashes = [...new Set(filters.map((filter) => keyHash(fieldKey(kind, filter))))];
  let after = range.after;
  const upTo = range.upTo;
  const rowsAfter = statement(db, rowsAfterSql).pluck();
  const seek = statement(db, seekSql).pluck();
  const document = statement(db, documentSql(kind));
  let left = limit ?? Number.POSITIVE_INFINITY;
  let done = hashes.length === 0 || left <= 0;

  /** The next seqs in every filter's rows: up to `count`, and whether the rows ran out. */
  const candidates = (count: number): { seqs: number[]; end: boolean } => {
    if (hashes.length === 1) {
      const seqs = rowsAfter.all(hashes[0], after, upTo, count) as number[];
      after = seqs.at(-1) ?? after;
      return { seqs, end: seqs.length < count };
    }
    const seqs: number[] = [];
    let target = after + 1;
    for (let seeks = 0; seqs.length < count && seeks < seeksPerBatchMax; ) {
      let agreed = true;
      for (const hash of hashes) {
        const found = seek.get(hash, target - 1, upTo) as number | undefined;
        seeks++;
        if (found === undefined) {
          after = upTo;
          return { seqs, end: true };
        }
        if (found > target) {
          target = found;
          agreed = false;
          break;
        }
      }
      if (agreed) seqs.push(target++);
      after = target - 1;
    }
    return { seqs, end: false };
  };

  return {
    next: () => {
      if (done) return null;
      const { seqs, end } = candidates(Math.min(batchRowsMax, left));
      done = end;
      const hits: FieldHit[] = [];
      for (const seq of seqs) {
        const row = document.get(seq) as { id: string; json: string | null };
        // keyHash is not unique: keep only documents that really hold every filter.
        if (row.json === null || !fieldsMatch(kind, row.json, filters)) continue;
        hits.push({ id: row.id, json: row.json, position: encodePosition([upTo, seq]) });
      }
      left -= hits.length;
      if (left <= 0) done = true;
      if (done && hits.length === 0) return null;
      return hits;
    },
  };
}
