// The read indexes of a SQLite store: the text-search documents (`assets_fts`, `metadata_fts`)
// and the field index (fieldIndex.ts). Only reads use them (searches, queries by field); no
// check of a transaction does. A writer opened with `readIndexes: false` (a validator that
// serves no reads, docs/operations.md) writes neither and leaves both marks where they are; a
// search or field query on its file is then refused with ReadIndexesOff (409), never answered
// from a partial index.
//
// `text_index_mark` says up to which seq the text documents are complete, as `field_index_mark`
// does for the field index. Created at a writer's open at the last seq: every ledgerd before it
// wrote each transaction's documents in its block. A writer that opens with the read indexes on
// and finds a mark behind writes the rest first (`openReadIndexes`): turning them back on is
// one restart. A document written again (an older ledgerd, which knows no mark, may have
// written blocks past it) is one document still: a contentless FTS5 table keeps one per rowid.

import type Database from "better-sqlite3";
import { LedgerError } from "../../errors/ledgerError.js";
import { searchText } from "../searchText.js";
import { catchUpFieldIndex, fieldIndexSql, forEachDocumentAfter, statement } from "./fieldIndex.js";

const textIndexSql = `
CREATE TABLE IF NOT EXISTS text_index_mark (
  id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL
);
INSERT OR IGNORE INTO text_index_mark (id, seq) VALUES (1, (SELECT coalesce(max(seq), 0) FROM transactions));
`;

/**
 * At a writer's open: creates the marks when missing; with the read indexes on, writes the rows
 * of every transaction past them (one write transaction each index; one read when complete).
 */
export function openReadIndexes(db: Database.Database, on: boolean): void {
  if (!on) {
    db.transaction(() => db.exec(fieldIndexSql + textIndexSql)).immediate();
    return;
  }
  catchUpFieldIndex(db);
  catchUpTextIndex(db);
}

function catchUpTextIndex(db: Database.Database): void {
  db.transaction(() => {
    db.exec(textIndexSql);
    const mark = db.prepare("SELECT seq FROM text_index_mark WHERE id = 1").pluck().get() as number;
    const assets = db.prepare("INSERT INTO assets_fts (rowid, body) VALUES (?, ?)");
    const metadata = db.prepare("INSERT INTO metadata_fts (rowid, body) VALUES (?, ?)");
    const last = forEachDocumentAfter(db, mark, (row) => {
      if (row.assetData !== null) assets.run(row.seq, searchText(row.id, row.assetData));
      if (row.metadata !== null) metadata.run(row.seq, searchText(row.id, row.metadata));
    });
    setTextIndexMark(db, last);
  }).immediate();
}

/** The text documents are complete up to `seq`; inside the block's write transaction. */
export function setTextIndexMark(db: Database.Database, seq: number): void {
  statement(db, "UPDATE text_index_mark SET seq = ? WHERE id = 1").run(seq);
}

/**
 * The text documents are complete up to this seq: the mark, or with no mark (a file no writer
 * of this version has opened yet) every seq, as every writer before wrote them.
 */
export function textIndexMark(db: Database.Database): number {
  return indexMark(db, "text_index_mark");
}

/**
 * A read index's mark (the field index's is read the same way: every seq without its table,
 * fieldMatches says why). Its statements are prepared once a connection: every search asks.
 */
function indexMark(db: Database.Database, table: "text_index_mark" | "field_index_mark"): number {
  const tables = statement(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  if ((tables.get(table) as number) === 0) return Number.MAX_SAFE_INTEGER;
  return statement(db, `SELECT seq FROM ${table} WHERE id = 1`).pluck().get() as number;
}

/** Refuses a read of `index` when it stops short of `lastSeq` (the read's snapshot). */
export function checkReadIndex(db: Database.Database, index: "text" | "fields", lastSeq: number): void {
  const mark = indexMark(db, index === "text" ? "text_index_mark" : "field_index_mark");
  if (mark >= lastSeq) return;
  const what = index === "text" ? "text search" : "queries by field";
  throw new LedgerError("ReadIndexesOff", `This node keeps no index for ${what} (database.read_indexes is false); ask a node that serves reads`);
}
