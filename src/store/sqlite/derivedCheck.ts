// verify-chain's check of the SQLite rows derived from the transactions (DerivedCheck in
// ../store.ts): each block's rows against what commitBlock (blockWriter.ts) writes for the
// block's transactions re-derived from their JSON. Reads answer from these rows, not from the
// JSON the ids cover, so an edited row (an asset's data, an output's amount, an index row)
// would otherwise be served as the ledger's.
//
// Within one read transaction, a snapshot, from open to close. Per transaction, by key:
// its `transactions` columns, its `outputs` and `inputs` rows (each read whole by its key
// prefix, so an extra row shows), its rows of the four hashed indexes (those its slice's mark
// says are merged; the others must not be there yet, deferredIndex.ts), its search text (the
// FTS5 tables are contentless: the document's size must be its text's token count and the
// whole text must match as one phrase at that rowid) and its field index rows. A hashed
// index's or the field index's rows are keyed by hash, not by seq, so a row no transaction
// gave is found by counting each seq's rows in one pass at the end (`finish`).

import type Database from "better-sqlite3";
import type { CommittedLegacyTx } from "../../legacy/committed.js";
import type { CommittedTx } from "../../transaction/committed.js";
import { makesAsset, outputKey } from "../../transaction/committed.js";
import { searchText } from "../searchText.js";
import { searchTokens } from "../searchTokens.js";
import { columnDiffers, fieldLeavesOf, legacyOutputColumns, outputColumns, SeqCounts, shown, transactionColumns } from "../derivedRows.js";
import type { DerivedBlock, DerivedCheck } from "../store.js";
import { indexNames } from "./connection.js";
import { sliceOf, type IndexRow } from "./deferredIndex.js";
import { hasFieldIndex } from "./fieldIndex.js";
import { textIndexMark } from "./readIndexes.js";
import { keyHash } from "./keyHash.js";
import { addedBySeqColumn, keyIndexRows, spentIndexRow, txIndexRows } from "./places.js";
import { indexTables, type IndexName } from "./queries.js";

/** The tables counted per seq at the end: the hashed indexes and the field index. */
type CountedTable = IndexName | "fields";

const countedTables: Record<CountedTable, { table: string; seq: string }> = {
  ids: { table: "id_index", seq: "seq" },
  assets: { table: "asset_index", seq: "seq" },
  keys: { table: "key_index", seq: "seq" },
  spent: { table: "spent_index", seq: "spender_seq" },
  fields: { table: "field_index", seq: "seq" },
};

const sql = {
  head: "SELECT height FROM chain_state WHERE id = 1",
  block: "SELECT seq_first AS seqFirst, tx_count AS txCount FROM blocks WHERE height = ?",
  marks: "SELECT merged_seq FROM index_sweep ORDER BY slice",
  fieldMark: "SELECT seq FROM field_index_mark WHERE id = 1",
  tx: "SELECT height, operation, id, asset_id, asset_data, metadata FROM transactions WHERE seq = ?",
  txId: "SELECT id FROM transactions WHERE seq = ?",
  outputs: `SELECT output_index, amount, condition_uri, public_keys FROM outputs
            WHERE tx_seq = ? ORDER BY output_index`,
  inputs: `SELECT input_index AS inputIndex, tx_seq AS txSeq, output_index AS outputIndex
           FROM inputs WHERE spender_seq = ? ORDER BY input_index`,
  fieldRow: "SELECT 1 FROM field_index WHERE hash = ? AND seq = ?",
  assetsSize: "SELECT sz FROM assets_fts_docsize WHERE id = ?",
  metadataSize: "SELECT sz FROM metadata_fts_docsize WHERE id = ?",
  assetsMatch: "SELECT 1 FROM assets_fts WHERE assets_fts MATCH ? AND rowid = ?",
  metadataMatch: "SELECT 1 FROM metadata_fts WHERE metadata_fts MATCH ? AND rowid = ?",
  legacyTxs: `SELECT seq, id_hash AS idHash, id, position, variant, operation
              FROM legacy_transactions WHERE height = ? ORDER BY position`,
  legacySeq: "SELECT seq FROM legacy_transactions WHERE id_hash = ? AND id = ?",
  legacyOutputs: "SELECT cid, condition_uri, public_keys FROM legacy_outputs WHERE tx_seq = ? ORDER BY cid",
  legacySpentBy: "SELECT spent_by FROM legacy_outputs WHERE tx_seq = ? AND cid = ?",
  legacyFirst: `SELECT coalesce((SELECT min(seq) FROM legacy_transactions WHERE height >= ?),
                (SELECT coalesce(max(seq), 0) + 1 FROM legacy_transactions))`,
  legacySpent: "SELECT count(*) FROM legacy_outputs WHERE spent_by >= ? AND spent_by <= ?",
} as const;

/**
 * Rows of the seq-keyed tables past the last transaction checked (each a range read of its
 * key): none when the walk reached the head. Those of the seqs checked were read whole.
 */
const pastSql = {
  transactions: "SELECT count(*) FROM transactions WHERE seq >= ?",
  outputs: "SELECT count(*) FROM outputs WHERE tx_seq >= ?",
  inputs: "SELECT count(*) FROM inputs WHERE spender_seq >= ?",
  assets_fts: "SELECT count(*) FROM assets_fts_docsize WHERE id >= ?",
  metadata_fts: "SELECT count(*) FROM metadata_fts_docsize WHERE id >= ?",
} as const;

const legacyPastSql = {
  legacy_transactions: "SELECT count(*) FROM legacy_transactions WHERE seq >= ?",
  legacy_outputs: "SELECT count(*) FROM legacy_outputs WHERE tx_seq >= ?",
} as const;

interface TxRow {
  height: number;
  operation: string;
  id: string;
  asset_id: string;
  asset_data: string | null;
  metadata: string | null;
}

export class SqliteDerivedCheck implements DerivedCheck {
  readonly #db: Database.Database;
  readonly #read: { [K in keyof typeof sql]: Database.Statement };
  readonly #marks: number[];
  /** Field index rows are written up to this seq (fieldIndex.ts); null without the table. */
  readonly #fieldMark: number | null;
  /** Text documents are written up to this seq (readIndexes.ts). */
  readonly #textMark: number;
  readonly #headHeight: number;
  readonly #indexRow: { [K in IndexName]: Database.Statement };
  readonly #counts: Record<CountedTable, SeqCounts>;
  /** The walk began at the first block: no row may lie below the seqs it checks. */
  readonly #fromStart: boolean;
  readonly #firstSeq: number;
  #nextSeq: number;
  #height: number;
  readonly #firstLegacySeq: number;
  #nextLegacySeq: number;
  #legacySpends = 0;

  /** Opens the snapshot at the block at height `from` (the store holds it). */
  constructor(db: Database.Database, from: number) {
    this.#db = db;
    db.exec("BEGIN");
    try {
      const prepare = (text: string) => db.prepare(text);
      const fields = hasFieldIndex(db);
      this.#read = Object.fromEntries(
        Object.entries(sql)
          .filter(([name]) => fields || (name !== "fieldMark" && name !== "fieldRow"))
          .map(([name, text]) => [name, prepare(text)]),
      ) as { [K in keyof typeof sql]: Database.Statement };
      this.#headHeight = this.#read.head.pluck().get() as number;
      this.#marks = this.#read.marks.pluck().all() as number[];
      this.#fieldMark = fields ? (this.#read.fieldMark.pluck().get() as number) : null;
      this.#textMark = textIndexMark(db);
      const block = this.#read.block.get(from) as { seqFirst: number } | undefined;
      if (block === undefined) throw new Error(`no block at height ${from}`);
      this.#firstSeq = this.#nextSeq = block.seqFirst;
      this.#firstLegacySeq = this.#nextLegacySeq = this.#read.legacyFirst.pluck().get(from) as number;
      this.#fromStart = from === 1;
      this.#height = from - 1;
      this.#indexRow = Object.fromEntries(
        indexNames.map((name) => {
          const { table, columns } = indexTables[name];
          const where = ["hash", ...columns].map((column) => `${column} = ?`).join(" AND ");
          return [name, prepare(`SELECT 1 FROM ${table} WHERE ${where}`)];
        }),
      ) as { [K in IndexName]: Database.Statement };
      const counts = (name: CountedTable) => [name, new SeqCounts(this.#firstSeq)];
      this.#counts = Object.fromEntries((Object.keys(countedTables) as CountedTable[]).map(counts)) as Record<CountedTable, SeqCounts>;
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }

  async block(block: DerivedBlock): Promise<string | null> {
    this.#height = block.height;
    const row = this.#read.block.get(block.height) as { seqFirst: number; txCount: number } | undefined;
    if (row === undefined) return `blocks: no row at height ${block.height}`;
    if (row.seqFirst !== this.#nextSeq) return `blocks: height ${block.height} starts at seq ${row.seqFirst}, not ${this.#nextSeq}`;
    if (row.txCount !== block.txs.length) {
      return `blocks: height ${block.height} counts ${row.txCount} transactions, ${block.txs.length} are stored`;
    }
    const tokens = blockTokenCounts(block.txs);
    for (const [i, tx] of block.txs.entries()) {
      const seq = row.seqFirst + i;
      const differs = this.#tx(tx, seq, block.height, tokens[i]!);
      if (differs !== null) return `${differs} (transaction ${tx.id}, height ${block.height})`;
    }
    this.#nextSeq = row.seqFirst + row.txCount;
    return this.#legacy(block.height, block.legacy?.txs ?? []);
  }

  async finish(): Promise<string | null> {
    // The walk reached the snapshot's head: no row may lie past the seqs it checked.
    const atHead = this.#height === this.#headHeight;
    const low = this.#fromStart ? Number.MIN_SAFE_INTEGER : this.#firstSeq;
    const high = atHead ? Number.MAX_SAFE_INTEGER : this.#nextSeq - 1;
    for (const [name, { table, seq }] of Object.entries(countedTables) as [CountedTable, { table: string; seq: string }][]) {
      if (name === "fields" && this.#fieldMark === null) continue;
      const differs = this.#countedRows(name, table, seq, low, high);
      if (differs !== null) return differs;
    }
    if (!atHead) return null;
    return this.#past(pastSql, this.#nextSeq, "transaction") ?? this.#past(legacyPastSql, this.#nextLegacySeq, "legacy transaction") ?? this.#legacySpent();
  }

  async close(): Promise<void> {
    if (this.#db.inTransaction) this.#db.exec("COMMIT");
  }

  /** Every row derived from one v2.0 transaction, or the first that is not what it gives. */
  #tx(tx: CommittedTx, seq: number, height: number, tokens: TokenCounts): string | null {
    return (
      this.#txRow(tx, seq, height) ??
      this.#outputs(tx, seq) ??
      this.#inputs(tx, seq) ??
      this.#indexRows(tx, seq) ??
      this.#text("assets", seq, tx.id, tx.assetData, tokens.assets) ??
      this.#text("metadata", seq, tx.id, tx.metadata, tokens.metadata) ??
      this.#fieldRows(tx, seq)
    );
  }

  #txRow(tx: CommittedTx, seq: number, height: number): string | null {
    const row = this.#read.tx.get(seq) as TxRow | undefined;
    if (row === undefined) return `transactions: no row at seq ${seq}`;
    return columnDiffers("transactions", "", row, transactionColumns(tx, height));
  }

  #outputs(tx: CommittedTx, seq: number): string | null {
    const rows = this.#read.outputs.all(seq) as { output_index: number; amount: string; condition_uri: string; public_keys: string }[];
    if (rows.length !== tx.outputs.length) return `outputs: ${rows.length} rows, the transaction has ${tx.outputs.length} outputs`;
    for (const [i, output] of tx.outputs.entries()) {
      const differs = columnDiffers("outputs", ` of output ${output.outputIndex}`, rows[i]!, outputColumns(output));
      if (differs !== null) return differs;
    }
    return null;
  }

  #inputs(tx: CommittedTx, seq: number): string | null {
    const rows = this.#read.inputs.all(seq) as { inputIndex: number; txSeq: number; outputIndex: number }[];
    if (rows.length !== tx.spends.length) return `inputs: ${rows.length} rows, the transaction spends ${tx.spends.length} outputs`;
    for (const [i, ref] of tx.spends.entries()) {
      const row = rows[i]!;
      const spent = this.#read.txId.pluck().get(row.txSeq) as string | undefined;
      if (row.inputIndex !== i || row.outputIndex !== ref.outputIndex || spent !== ref.transactionId) {
        return `inputs: input ${i} names ${shown(spent)}:${row.outputIndex}, the transaction spends ${outputKey(ref)}`;
      }
    }
    return null;
  }

  /** The hashed index rows: present when their slice is merged past them, else absent. */
  #indexRows(tx: CommittedTx, seq: number): string | null {
    const role = makesAsset(tx.operation) ? "CREATE" : "TRANSFER";
    const rows: { [K in IndexName]: IndexRow[] } = { ...txIndexRows(seq, tx.id, role, tx.assetId), keys: [], spent: [] };
    for (const output of tx.outputs) rows.keys.push(...keyIndexRows(seq, output.outputIndex, output.publicKeys));
    const inputs = this.#read.inputs.all(seq) as { txSeq: number; outputIndex: number }[];
    for (const input of inputs) rows.spent.push(spentIndexRow(input.txSeq, input.outputIndex, seq));
    for (const name of indexNames) {
      for (const row of rows[name]) {
        const merged = row[addedBySeqColumn[name]]! <= this.#marks[sliceOf(row[0]!, this.#marks.length)]!;
        const present = this.#indexRow[name].get(...row) !== undefined;
        if (present !== merged) {
          const table = indexTables[name].table;
          return merged ? `${table}: its row ${shown(row)} is missing` : `${table}: its row ${shown(row)} is there before its merge`;
        }
        if (merged) this.#counts[name].add(seq);
      }
    }
    return null;
  }

  /** A contentless FTS5 document: its size is the text's token count, the text matches it whole. */
  #text(kind: "assets" | "metadata", seq: number, id: string, json: string | null, tokens: number): string | null {
    const table = `${kind}_fts`;
    if (seq > this.#textMark) return null;
    const size = (kind === "assets" ? this.#read.assetsSize : this.#read.metadataSize).pluck().get(seq) as Buffer | undefined;
    if (json === null) return size === undefined ? null : `${table}: a document the transaction has no ${kind} for`;
    if (size === undefined) return `${table}: no document`;
    const text = searchText(id, json);
    const stored = readVarint(size);
    if (stored !== tokens) return `${table}: the document holds ${stored} tokens, the transaction's text ${tokens}`;
    // A phrase of all the text's tokens in a document of as many is that document.
    const phrase = `"${text.replaceAll('"', '""')}"`;
    const match = kind === "assets" ? this.#read.assetsMatch : this.#read.metadataMatch;
    if (tokens > 0 && match.get(phrase, seq) === undefined) return `${table}: the document is not the transaction's text`;
    return null;
  }

  #fieldRows(tx: CommittedTx, seq: number): string | null {
    if (this.#fieldMark === null || seq > this.#fieldMark) return null;
    // Two leaves may share a hash: one row (fieldIndex.ts).
    for (const hash of new Set([...fieldLeavesOf(tx)].map(keyHash))) {
      if (this.#read.fieldRow.get(hash, seq) === undefined) return `field_index: the row of a leaf (hash ${hash}) is missing`;
      this.#counts.fields.add(seq);
    }
    return null;
  }

  /** Each seq's rows of a hashed index or the field index, against the count the transactions give. */
  #countedRows(name: CountedTable, table: string, seqColumn: string, low: number, high: number): string | null {
    const counts = this.#counts[name];
    const perSeq = this.#db
      .prepare(`SELECT ${seqColumn} AS seq, count(*) AS n FROM ${table}
                WHERE ${seqColumn} >= ? AND ${seqColumn} <= ? GROUP BY ${seqColumn} ORDER BY ${seqColumn}`)
      .raw();
    for (const [seq, n] of perSeq.iterate(low, high) as Iterable<[number, number]>) {
      const expected = seq < this.#nextSeq ? counts.of(seq) : 0;
      if (n > expected) {
        const id = this.#read.txId.pluck().get(seq) as string | undefined;
        const of = id === undefined ? `seq ${seq}, which holds no transaction` : `transaction ${id}`;
        return `${table}: ${n - expected} row(s) of ${of} that it does not give`;
      }
    }
    return null;
  }

  /** The block's legacy rows, in block order, against the legacy transactions it holds. */
  #legacy(height: number, txs: readonly CommittedLegacyTx[]): string | null {
    const rows = this.#read.legacyTxs.all(height) as { seq: number; idHash: number; id: string; position: number; variant: string; operation: string }[];
    if (rows.length !== txs.length) return `legacy_transactions: ${rows.length} rows at height ${height}, ${txs.length} transactions`;
    for (const [i, tx] of txs.entries()) {
      const row = rows[i]!;
      const expected = { seq: this.#nextLegacySeq, idHash: keyHash(tx.id), id: tx.id, position: tx.position, variant: tx.variant, operation: tx.operation };
      const differs =
        columnDiffers("legacy_transactions", "", row, expected) ?? this.#legacyOutputs(tx, row.seq) ?? this.#spentByIt(tx, row.seq);
      if (differs !== null) return `${differs} (legacy transaction ${tx.id}, height ${height})`;
      this.#nextLegacySeq = row.seq + 1;
    }
    return null;
  }

  #legacyOutputs(tx: CommittedLegacyTx, seq: number): string | null {
    const rows = this.#read.legacyOutputs.all(seq) as { cid: number; condition_uri: string; public_keys: string }[];
    if (rows.length !== tx.outputs.length) return `legacy_outputs: ${rows.length} rows, the transaction has ${tx.outputs.length} outputs`;
    for (const [i, output] of tx.outputs.entries()) {
      const row = rows[i]!;
      const differs = columnDiffers("legacy_outputs", ` of output ${output.cid}`, row, legacyOutputColumns(output));
      if (differs !== null) return differs;
    }
    return null;
  }

  /** Each output it spends names it as the spender (`finish` counts that no other does). */
  #spentByIt(tx: CommittedLegacyTx, seq: number): string | null {
    for (const ref of tx.spends) {
      const spentSeq = this.#read.legacySeq.pluck().get(keyHash(ref.txid), ref.txid) as number | undefined;
      const spentBy = spentSeq === undefined ? undefined : (this.#read.legacySpentBy.pluck().get(spentSeq, ref.cid) as number | null | undefined);
      if (spentBy !== seq) {
        return `legacy_outputs.spent_by of ${ref.txid}:${ref.cid} holds ${shown(spentBy)}, the transaction (seq ${seq}) spends it`;
      }
      this.#legacySpends++;
    }
    return null;
  }

  /** Rows of these tables past the last seq of the blocks checked. */
  #past(counts: Record<string, string>, next: number, what: string): string | null {
    for (const [table, text] of Object.entries(counts)) {
      const rows = this.#db.prepare(text).pluck().get(next) as number;
      if (rows > 0) return `${table}: ${rows} row(s) past the last ${what} (seq ${next - 1})`;
    }
    return null;
  }

  /** No legacy output names a spender but those the walk saw spend it. */
  #legacySpent(): string | null {
    const low = this.#fromStart ? Number.MIN_SAFE_INTEGER : this.#firstLegacySeq;
    const spent = this.#read.legacySpent.pluck().get(low, Number.MAX_SAFE_INTEGER) as number;
    if (spent === this.#legacySpends) return null;
    return `legacy_outputs: ${spent} outputs name a spender among the legacy transactions checked, which spend ${this.#legacySpends}`;
  }
}

/** The token count of a transaction's asset and metadata texts (-1 where it has none). */
interface TokenCounts {
  readonly assets: number;
  readonly metadata: number;
}

/** The token counts of a block's texts, tokenized in one batch (searchTokens). */
function blockTokenCounts(txs: readonly CommittedTx[]): TokenCounts[] {
  const texts = txs.flatMap((tx) => [tx.assetData, tx.metadata].flatMap((json) => (json === null ? [] : [searchText(tx.id, json)])));
  const counts = searchTokens(texts).map((tokens) => tokens.length);
  let at = 0;
  const next = (json: string | null) => (json === null ? -1 : counts[at++]!);
  return txs.map((tx) => ({ assets: next(tx.assetData), metadata: next(tx.metadata) }));
}

/** SQLite's varint (FTS5's docsize): big-endian groups of 7 bits, the high bit says more follow. */
function readVarint(bytes: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < bytes.length && i < 9; i++) {
    const byte = bytes[i]!;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}
