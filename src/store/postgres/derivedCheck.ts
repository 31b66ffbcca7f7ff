// verify-chain's check of the PostgreSQL rows derived from the transactions (DerivedCheck in
// ../store.ts): each block's rows against what writeBlock (blockWriter.ts) writes for the
// block's transactions re-derived from their JSON, a few bulk statements per block.
//
// One REPEATABLE READ, READ ONLY transaction on a connection of its own, from open to close: a
// snapshot. Per block: its `transactions` columns; its `outputs` (read whole by their key
// prefix, so an extra one shows), with the spender each spend names in `spent_by`; its
// `output_keys`, `field_index` rows and text documents (`asset_text`, `metadata_text`: the
// tsvector and token count searchDocuments gives), and its legacy rows. `output_keys` and
// `field_index` are keyed by key and digest, not by seq: a row no transaction gave is found
// by counting each seq's rows in one pass at the end (`finish`), as are spenders no spend
// named, and, for a walk of the whole chain, the counts search ranks on (`text_stats`,
// `text_terms`).

import type pg from "pg";
import type { CommittedLegacyTx } from "../../legacy/committed.js";
import type { CommittedTx } from "../../transaction/committed.js";
import { columnDiffers, fieldLeavesOf, legacyOutputColumns, outputColumns, SeqCounts, shown, transactionColumns } from "../derivedRows.js";
import type { DerivedBlock, DerivedCheck } from "../store.js";
import { fieldDigest } from "./blockWriter.js";
import { searchDocuments } from "./textSearch.js";

type Kind = "assets" | "metadata";
const textTables: Record<Kind, string> = { assets: "asset_text", metadata: "metadata_text" };

/** The seq-keyed tables and their seq column: no row may lie past the last seq checked. */
const pastRows = [
  ["transactions", "seq"],
  ["outputs", "tx_seq"],
  ["asset_text", "seq"],
  ["metadata_text", "seq"],
  ["output_keys", "tx_seq"],
  ["field_index", "seq"],
] as const;

/** A row that is not what its transaction gives: why, and which transaction. */
interface RowFault {
  readonly reason: string;
  readonly txId: string;
}

function fault(reason: string, txId: string): RowFault {
  return { reason, txId };
}

interface TextTotals {
  documents: number;
  tokens: number;
  terms: Map<string, number>;
}

export class PostgresDerivedCheck implements DerivedCheck {
  readonly #client: pg.PoolClient;
  readonly #headHeight: number;
  readonly #fromStart: boolean;
  readonly #firstSeq: number;
  #nextSeq: number;
  #height: number;
  readonly #firstLegacySeq: number;
  #nextLegacySeq: number;
  #spends = 0;
  #legacySpends = 0;
  readonly #counts: { keys: SeqCounts; fields: SeqCounts };
  readonly #text: Record<Kind, TextTotals> = {
    assets: { documents: 0, tokens: 0, terms: new Map() },
    metadata: { documents: 0, tokens: 0, terms: new Map() },
  };

  /** Opens the snapshot at the block at height `from` (the store holds it) on `client`, which it releases at close. */
  static async open(client: pg.PoolClient, from: number): Promise<PostgresDerivedCheck> {
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const head = await client.query<{ height: string }>("SELECT height FROM chain_state WHERE id = 1");
      const block = await client.query<{ seq_first: string }>("SELECT seq_first FROM blocks WHERE height = $1", [from]);
      if (block.rows.length === 0) throw new Error(`no block at height ${from}`);
      const legacy = await client.query<{ seq: string }>(
        `SELECT coalesce((SELECT min(seq) FROM legacy_transactions WHERE height >= $1),
                         (SELECT coalesce(max(seq), 0) + 1 FROM legacy_transactions)) AS seq`,
        [from],
      );
      const first = { height: Number(head.rows[0]!.height), seq: Number(block.rows[0]!.seq_first), legacySeq: Number(legacy.rows[0]!.seq) };
      return new PostgresDerivedCheck(client, from, first);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw error;
    }
  }

  private constructor(client: pg.PoolClient, from: number, first: { height: number; seq: number; legacySeq: number }) {
    this.#client = client;
    this.#headHeight = first.height;
    this.#fromStart = from === 1;
    this.#firstSeq = this.#nextSeq = first.seq;
    this.#firstLegacySeq = this.#nextLegacySeq = first.legacySeq;
    this.#height = from - 1;
    this.#counts = { keys: new SeqCounts(first.seq), fields: new SeqCounts(first.seq) };
  }

  async block(block: DerivedBlock): Promise<string | null> {
    this.#height = block.height;
    const found = await this.#client.query<{ seq_first: string; tx_count: number }>("SELECT seq_first, tx_count FROM blocks WHERE height = $1", [block.height]);
    const row = found.rows[0];
    if (row === undefined) return `blocks: no row at height ${block.height}`;
    const seqFirst = Number(row.seq_first);
    if (seqFirst !== this.#nextSeq) return `blocks: height ${block.height} starts at seq ${seqFirst}, not ${this.#nextSeq}`;
    if (row.tx_count !== block.txs.length) return `blocks: height ${block.height} counts ${row.tx_count} transactions, ${block.txs.length} are stored`;
    const differs =
      (await this.#transactions(block.txs, seqFirst, block.height)) ??
      (await this.#outputs(block.txs, seqFirst)) ??
      (await this.#spentBy(block.txs, seqFirst)) ??
      (await this.#outputKeys(block.txs, seqFirst)) ??
      (await this.#documents("assets", block.txs, seqFirst)) ??
      (await this.#documents("metadata", block.txs, seqFirst)) ??
      (await this.#fieldRows(block.txs, seqFirst));
    if (differs !== null) return `${differs.reason} (transaction ${differs.txId}, height ${block.height})`;
    this.#nextSeq = seqFirst + block.txs.length;
    return this.#legacy(block.height, block.legacy?.txs ?? []);
  }

  async finish(): Promise<string | null> {
    const atHead = this.#height === this.#headHeight;
    const low = this.#fromStart ? Number.MIN_SAFE_INTEGER : this.#firstSeq;
    const high = atHead ? Number.MAX_SAFE_INTEGER : this.#nextSeq - 1;
    const counted =
      (await this.#countedRows("output_keys", "tx_seq", this.#counts.keys, low, high)) ??
      (await this.#countedRows("field_index", "seq", this.#counts.fields, low, high)) ??
      (await this.#spenders("outputs", this.#spends, low, high)) ??
      (await this.#spenders("legacy_outputs", this.#legacySpends, this.#fromStart ? low : this.#firstLegacySeq, atHead ? high : this.#nextLegacySeq - 1));
    if (counted !== null || !atHead) return counted;
    for (const [table, column] of [...pastRows, ["legacy_transactions", "seq"], ["legacy_outputs", "tx_seq"]] as const) {
      const next = table.startsWith("legacy_") ? this.#nextLegacySeq : this.#nextSeq;
      const rows = await this.#count(`SELECT count(*) AS n FROM ${table} WHERE ${column} >= $1`, [next]);
      if (rows > 0) return `${table}: ${rows} row(s) past the last transaction (seq ${next - 1})`;
    }
    return this.#fromStart ? ((await this.#textTotals("assets")) ?? (await this.#textTotals("metadata"))) : null;
  }

  async close(): Promise<void> {
    try {
      await this.#client.query("ROLLBACK");
    } finally {
      this.#client.release();
    }
  }

  async #count(text: string, values: readonly unknown[]): Promise<number> {
    const result = await this.#client.query<{ n: string }>(text, values as unknown[]);
    return Number(result.rows[0]!.n);
  }

  async #transactions(txs: readonly CommittedTx[], seqFirst: number, height: number): Promise<RowFault | null> {
    type Row = { seq: string; height: string; operation: string; id: string; asset_id: string; asset_data: string | null; metadata: string | null };
    const rows = await this.#client.query<Row>(
      `SELECT seq, height, operation, id, asset_id, asset_data, metadata FROM transactions
       WHERE seq >= $1 AND seq < $2 ORDER BY seq`,
      [seqFirst, seqFirst + txs.length],
    );
    for (const [i, tx] of txs.entries()) {
      const row = rows.rows[i];
      if (row === undefined || Number(row.seq) !== seqFirst + i) return fault(`transactions: no row at seq ${seqFirst + i}`, tx.id);
      const differs = columnDiffers("transactions", "", { ...row, height: Number(row.height) }, transactionColumns(tx, height));
      if (differs !== null) return fault(differs, tx.id);
    }
    return null;
  }

  async #outputs(txs: readonly CommittedTx[], seqFirst: number): Promise<RowFault | null> {
    type Row = { tx_seq: string; output_index: number; transaction_id: string; asset_id: string; amount: string; condition_uri: string; public_keys: string };
    const rows = await this.#client.query<Row>(
      `SELECT tx_seq, output_index, transaction_id, asset_id, amount::text AS amount, condition_uri, public_keys
       FROM outputs WHERE tx_seq >= $1 AND tx_seq < $2 ORDER BY tx_seq, output_index`,
      [seqFirst, seqFirst + txs.length],
    );
    const bySeq = new Map<number, Row[]>();
    for (const row of rows.rows) bySeq.set(Number(row.tx_seq), [...(bySeq.get(Number(row.tx_seq)) ?? []), row]);
    for (const [i, tx] of txs.entries()) {
      const stored = bySeq.get(seqFirst + i) ?? [];
      if (stored.length !== tx.outputs.length) return fault(`outputs: ${stored.length} rows, the transaction has ${tx.outputs.length} outputs`, tx.id);
      for (const [at, output] of tx.outputs.entries()) {
        const expected = { ...outputColumns(output), transaction_id: tx.id, asset_id: tx.assetId };
        const differs = columnDiffers("outputs", ` of output ${output.outputIndex}`, stored[at]!, expected);
        if (differs !== null) return fault(differs, tx.id);
      }
    }
    return null;
  }

  /** Each output a transaction spends names it in `spent_by` (`finish` counts that no other does). */
  async #spentBy(txs: readonly CommittedTx[], seqFirst: number): Promise<RowFault | null> {
    const refs = txs.flatMap((tx, i) => tx.spends.map((ref) => ({ ref, tx, seq: seqFirst + i })));
    if (refs.length === 0) return null;
    const rows = await this.#client.query<{ spent_by: string | null }>(
      `SELECT o.spent_by FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS p (id, idx, n)
       LEFT JOIN transactions t ON t.id = p.id LEFT JOIN outputs o ON o.tx_seq = t.seq AND o.output_index = p.idx
       ORDER BY p.n`,
      [refs.map((r) => r.ref.transactionId), refs.map((r) => r.ref.outputIndex)],
    );
    for (const [i, { ref, tx, seq }] of refs.entries()) {
      const spentBy = rows.rows[i]?.spent_by ?? null;
      if (spentBy === null || Number(spentBy) !== seq) {
        return fault(`outputs.spent_by of ${ref.transactionId}:${ref.outputIndex} holds ${shown(spentBy)}, the transaction (seq ${seq}) spends it`, tx.id);
      }
    }
    this.#spends += refs.length;
    return null;
  }

  /** Rows that must be there, as (columns...) arrays: the index of the first missing one, or null. */
  async #firstMissing(table: string, columns: readonly string[], types: readonly string[], values: readonly unknown[][]): Promise<number | null> {
    if (values[0]!.length === 0) return null;
    const on = columns.map((column) => `x.${column} = p.${column}`).join(" AND ");
    const unnest = types.map((type, i) => `$${i + 1}::${type}[]`).join(", ");
    const rows = await this.#client.query<{ n: string }>(
      `SELECT p.n FROM unnest(${unnest}) WITH ORDINALITY AS p (${columns.join(", ")}, n)
       WHERE NOT EXISTS (SELECT 1 FROM ${table} x WHERE ${on}) ORDER BY p.n LIMIT 1`,
      values as unknown[],
    );
    return rows.rows.length === 0 ? null : Number(rows.rows[0]!.n) - 1;
  }

  async #outputKeys(txs: readonly CommittedTx[], seqFirst: number): Promise<RowFault | null> {
    const rows: { key: string; seq: number; index: number; amount: string; tx: CommittedTx }[] = [];
    txs.forEach((tx, i) => {
      for (const output of tx.outputs) {
        for (const key of new Set(output.publicKeys)) rows.push({ key, seq: seqFirst + i, index: output.outputIndex, amount: output.amount.toString(), tx });
      }
    });
    const missing = await this.#firstMissing(
      "output_keys",
      ["public_key", "tx_seq", "output_index", "transaction_id", "asset_id", "amount"],
      ["text", "bigint", "integer", "text", "text", "numeric"],
      [rows.map((r) => r.key), rows.map((r) => r.seq), rows.map((r) => r.index), rows.map((r) => r.tx.id), rows.map((r) => r.tx.assetId), rows.map((r) => r.amount)],
    );
    if (missing !== null) {
      const row = rows[missing]!;
      return fault(`output_keys: the row of key ${row.key} of output ${row.index} is missing or differs from its output`, row.tx.id);
    }
    for (const row of rows) this.#counts.keys.add(row.seq);
    return null;
  }

  /** A text document: the tsvector and token count of the transaction's text; none without one. */
  async #documents(kind: Kind, txs: readonly CommittedTx[], seqFirst: number): Promise<RowFault | null> {
    const table = textTables[kind];
    const docs = txs.flatMap((tx, i) => {
      const json = kind === "assets" ? tx.assetData : tx.metadata;
      return json === null ? [] : [{ seq: seqFirst + i, id: tx.id, json }];
    });
    const expected = searchDocuments(docs);
    const rows = await this.#client.query<{ seq: string; same: boolean | null; tokens: number | null }>(
      `SELECT coalesce(p.seq, d.seq) AS seq, d.body = p.body AS same, d.tokens
       FROM unnest($1::bigint[], $2::tsvector[]) AS p (seq, body)
       FULL JOIN (SELECT seq, body, tokens FROM ${table} WHERE seq >= $3 AND seq < $4) d ON d.seq = p.seq
       ORDER BY 1`,
      [docs.map((d) => d.seq), expected.map((e) => e.vector), seqFirst, seqFirst + txs.length],
    );
    const bySeq = new Map(docs.map((doc, i) => [doc.seq, expected[i]!]));
    for (const row of rows.rows) {
      const seq = Number(row.seq);
      const id = txs[seq - seqFirst]!.id;
      const document = bySeq.get(seq);
      if (document === undefined) return fault(`${table}: a document the transaction has no ${kind} for`, id);
      if (row.same === null) return fault(`${table}: no document`, id);
      if (!row.same) return fault(`${table}: the document is not the transaction's text`, id);
      if (row.tokens !== document.tokens) return fault(`${table}: the document counts ${row.tokens} tokens, the transaction's text ${document.tokens}`, id);
    }
    const totals = this.#text[kind];
    for (const document of expected) {
      totals.documents++;
      totals.tokens += document.tokens;
      for (const lexeme of document.lexemes) totals.terms.set(lexeme, (totals.terms.get(lexeme) ?? 0) + 1);
    }
    return null;
  }

  async #fieldRows(txs: readonly CommittedTx[], seqFirst: number): Promise<RowFault | null> {
    const rows: { digest: Buffer; seq: number; tx: CommittedTx }[] = [];
    txs.forEach((tx, i) => {
      // Two leaves may share a digest: one row (ON CONFLICT DO NOTHING in the writer).
      const digests = new Map([...fieldLeavesOf(tx)].map((key) => { const digest = fieldDigest(key); return [digest.toString("hex"), digest]; }));
      for (const digest of digests.values()) rows.push({ digest, seq: seqFirst + i, tx });
    });
    const missing = await this.#firstMissing("field_index", ["digest", "seq"], ["bytea", "bigint"], [rows.map((r) => r.digest), rows.map((r) => r.seq)]);
    if (missing !== null) return fault(`field_index: the row of a leaf (digest ${rows[missing]!.digest.toString("hex")}) is missing`, rows[missing]!.tx.id);
    for (const row of rows) this.#counts.fields.add(row.seq);
    return null;
  }

  /** Each seq's rows of `table`, against the count the transactions give. */
  async #countedRows(table: string, seqColumn: string, counts: SeqCounts, low: number, high: number): Promise<string | null> {
    const rows = await this.#client.query<{ seq: string; n: string }>(
      `SELECT ${seqColumn} AS seq, count(*) AS n FROM ${table} WHERE ${seqColumn} BETWEEN $1 AND $2
       GROUP BY ${seqColumn} HAVING count(*) > 0 ORDER BY ${seqColumn}`,
      [low, high],
    );
    for (const row of rows.rows) {
      const seq = Number(row.seq);
      const expected = seq < this.#nextSeq ? counts.of(seq) : 0;
      if (Number(row.n) > expected) {
        const id = await this.#client.query<{ id: string }>("SELECT id FROM transactions WHERE seq = $1", [seq]);
        const of = id.rows.length === 0 ? `seq ${seq}, which holds no transaction` : `transaction ${id.rows[0]!.id}`;
        return `${table}: ${Number(row.n) - expected} row(s) of ${of} that it does not give`;
      }
    }
    return null;
  }

  /** No output names a spender among the transactions checked but those the walk saw spend it. */
  async #spenders(table: string, spends: number, low: number, high: number): Promise<string | null> {
    const named = await this.#count(`SELECT count(*) AS n FROM ${table} WHERE spent_by BETWEEN $1 AND $2`, [low, high]);
    return named === spends ? null : `${table}: ${named} outputs name a spender among the transactions checked, which spend ${spends}`;
  }

  /** The counts search ranks on, over the whole chain: each kind's documents, tokens and terms. */
  async #textTotals(kind: Kind): Promise<string | null> {
    const totals = this.#text[kind];
    const stats = await this.#client.query<{ documents: string; tokens: string }>("SELECT documents, tokens FROM text_stats WHERE kind = $1", [kind]);
    const stored = stats.rows[0];
    if (stored === undefined || Number(stored.documents) !== totals.documents || Number(stored.tokens) !== totals.tokens) {
      return `text_stats: ${kind} counts ${shown(stored ?? null)}, the transactions give ${totals.documents} documents of ${totals.tokens} tokens`;
    }
    const terms = await this.#client.query<{ lexeme: string; documents: string }>("SELECT lexeme, documents FROM text_terms WHERE kind = $1", [kind]);
    for (const row of terms.rows) {
      const expected = totals.terms.get(row.lexeme) ?? 0;
      if (Number(row.documents) !== expected) {
        return `text_terms: ${kind} term ${shown(row.lexeme)} counts ${row.documents} documents, the transactions give ${expected}`;
      }
    }
    if (terms.rows.length !== totals.terms.size) return `text_terms: ${kind} holds ${terms.rows.length} terms, the transactions give ${totals.terms.size}`;
    return null;
  }

  /** The block's legacy rows, in block order, against the legacy transactions it holds. */
  async #legacy(height: number, txs: readonly CommittedLegacyTx[]): Promise<string | null> {
    const rows = await this.#client.query<{ seq: string; id: string; position: number; variant: string; operation: string }>(
      "SELECT seq, id, position, variant, operation FROM legacy_transactions WHERE height = $1 ORDER BY position",
      [height],
    );
    if (rows.rows.length !== txs.length) return `legacy_transactions: ${rows.rows.length} rows at height ${height}, ${txs.length} transactions`;
    for (const [i, tx] of txs.entries()) {
      const row = { ...rows.rows[i]!, seq: Number(rows.rows[i]!.seq) };
      const expected = { seq: this.#nextLegacySeq, id: tx.id, position: tx.position, variant: tx.variant, operation: tx.operation };
      const differs = columnDiffers("legacy_transactions", "", row, expected) ?? (await this.#legacyOutputs(tx, row.seq));
      if (differs !== null) return `${differs} (legacy transaction ${tx.id}, height ${height})`;
      this.#nextLegacySeq = row.seq + 1;
    }
    return null;
  }

  async #legacyOutputs(tx: CommittedLegacyTx, seq: number): Promise<string | null> {
    const rows = await this.#client.query<{ cid: number; condition_uri: string; public_keys: string }>(
      "SELECT cid, condition_uri, public_keys FROM legacy_outputs WHERE tx_seq = $1 ORDER BY cid",
      [seq],
    );
    if (rows.rows.length !== tx.outputs.length) return `legacy_outputs: ${rows.rows.length} rows, the transaction has ${tx.outputs.length} outputs`;
    for (const [i, output] of tx.outputs.entries()) {
      const differs = columnDiffers("legacy_outputs", ` of output ${output.cid}`, rows.rows[i]!, legacyOutputColumns(output));
      if (differs !== null) return differs;
    }
    for (const ref of tx.spends) {
      const spent = await this.#client.query<{ spent_by: string | null }>(
        "SELECT o.spent_by FROM legacy_transactions t JOIN legacy_outputs o ON o.tx_seq = t.seq AND o.cid = $2 WHERE t.id = $1",
        [ref.txid, ref.cid],
      );
      const spentBy = spent.rows[0]?.spent_by ?? null;
      if (spentBy === null || Number(spentBy) !== seq) {
        return `legacy_outputs.spent_by of ${ref.txid}:${ref.cid} holds ${shown(spentBy)}, the transaction (seq ${seq}) spends it`;
      }
      this.#legacySpends++;
    }
    return null;
  }
}
