// The PostgreSQL store's long answers found by key, paged (PageOptions in ../store.ts): a key's
// outputs, an asset's history, a key's balances, the documents of a query by field. Each is read a batch at a
// time, as of the last seq committed when it began (spent-ness as of then too), with the same
// positions as the SQLite backend (../positions.ts).
import { fieldKey, fieldsMatch, type FieldFilter } from "../fieldQuery.js";
import { encodeBalancePosition, encodePosition, notGiven, parseBalancePosition, parsePosition } from "../positions.js";
import type { Balance, Batches, FieldHit, HistoryEntry, OutputEntry, PageOptions } from "../store.js";
import type { Operation } from "../../transaction/committed.js";
import { fieldDigest } from "./blockWriter.js";
import { batchRowsMax, type Reads } from "./reads.js";

/**
 * A batch of a key's outputs after ($2, $3) as of seq $4, at most $5, read from output_keys'
 * index alone (schema.ts migration 6); `spent` filtered adds the outputs' spender. One text row
 * (`seq index id amount asset_id`, space-separated: none of them can hold a space), so that the
 * driver makes one string per batch, not an object and five values per output: at a key of
 * 1,000 outputs, half the node's CPU and fewer collector pauses (BENCHMARKS.md, issue #42).
 */
export function outputBatchSql(spent: boolean | undefined): string {
  const spender = spent === undefined
    ? ""
    : `AND EXISTS (SELECT 1 FROM outputs o WHERE o.tx_seq = k.tx_seq AND o.output_index = k.output_index
         AND (o.spent_by IS NOT NULL AND o.spent_by <= $4) = ${spent ? "true" : "false"})`;
  return `SELECT string_agg(concat_ws(' ', seq, idx, id, amount, asset_id), ' ' ORDER BY seq, idx) AS batch FROM (
      SELECT k.tx_seq AS seq, k.output_index AS idx, k.transaction_id AS id, k.amount::text AS amount, k.asset_id
      FROM output_keys k
      WHERE k.public_key = $1 AND (k.tx_seq, k.output_index) > ($2, $3) AND k.tx_seq <= $4 ${spender}
      ORDER BY k.tx_seq, k.output_index LIMIT $5) AS page`;
}

/** The outputs whose condition names `publicKey`, in commit order; `spent` filters. */
export async function* outputEntries(reads: Reads, publicKey: string, spent: boolean | undefined, page: PageOptions = {}): Batches<OutputEntry> {
  const lastSeq = await reads.lastSeq();
  const [snapshot, seq0, index0] = page.after === undefined
    ? [lastSeq, 0, -1]
    : (parsePosition(page.after, 3, lastSeq, true) as [number, number, number]);
  const sql = outputBatchSql(spent);
  let after = [seq0, index0];
  let left = page.limit ?? Infinity;
  while (left > 0) {
    const count = Math.min(batchRowsMax, left);
    const rows = await reads.rows<{ batch: string | null }>(sql, [publicKey, after[0], after[1], snapshot, count]);
    const batch = rows[0]?.batch ?? null;
    if (batch === null) return;
    const fields = batch.split(" ");
    const entries: OutputEntry[] = [];
    for (let i = 0; i < fields.length; i += 5) {
      const [seq, index] = [Number(fields[i]), Number(fields[i + 1])];
      entries.push({ transactionId: fields[i + 2]!, outputIndex: index, amount: fields[i + 3]!, assetId: fields[i + 4]!, position: encodePosition([snapshot, seq, index]) });
    }
    left -= entries.length;
    after = [Number(fields.at(-5)), Number(fields.at(-4))];
    yield entries;
    if (entries.length < count) return;
  }
}

/**
 * The sums of ($1 `public_keys`) per asset after $2, of asset $3 only when not null, as of seq
 * $4, at most $5 assets. The predicate of outputs_by_holder's partial index, word for word, so
 * that the index is used.
 */
export const balancesSql = `
  SELECT asset_id COLLATE "C" AS asset_id, sum(amount)::text AS amount FROM outputs
  WHERE public_keys = $1 AND strpos(condition_uri, 'fpt=ed25519-sha-256&') > 0 AND strpos(public_keys, ',') = 0
    AND asset_id COLLATE "C" > $2 AND ($3::text IS NULL OR asset_id COLLATE "C" = $3)
    AND tx_seq <= $4 AND (spent_by IS NULL OR spent_by > $4)
  GROUP BY asset_id COLLATE "C" ORDER BY asset_id COLLATE "C" LIMIT $5`;

/**
 * What `publicKey` alone may spend, summed per asset in asset id order (with `assetId`, that
 * asset only), through `outputs_by_holder`: a batch is up to batchRowsMax assets, each summed
 * whole by one query, so no page splits an asset's sum.
 */
export async function* balances(reads: Reads, publicKey: string, assetId: string | undefined, page: PageOptions = {}): Batches<Balance> {
  const lastSeq = await reads.lastSeq();
  const [snapshot, start] = page.after === undefined ? [lastSeq, ""] : parseBalancePosition(page.after, lastSeq);
  if (page.after !== undefined) {
    // A position names an asset made by its snapshot: any other this store never gave.
    const made = await reads.rows("SELECT 1 FROM transactions WHERE id = $1 AND operation = 'CREATE' AND seq <= $2", [start, snapshot]);
    if (made.length === 0) throw notGiven();
  }
  let after = start;
  let left = page.limit ?? Infinity;
  while (left > 0) {
    const count = Math.min(batchRowsMax, left);
    const rows = await reads.rows<{ asset_id: string; amount: string }>(
      balancesSql,
      [JSON.stringify([publicKey]), after, assetId ?? null, snapshot, count],
    );
    if (rows.length === 0) return;
    left -= rows.length;
    after = rows.at(-1)!.asset_id;
    yield rows.map((row) => ({ assetId: row.asset_id, amount: row.amount, position: encodeBalancePosition(snapshot, row.asset_id) }));
    if (rows.length < count) return;
  }
}

/** The CREATE of an asset and its TRANSFERs, in commit order. */
export async function* assetHistory(reads: Reads, assetId: string, operation: Operation | undefined, page: PageOptions = {}): Batches<HistoryEntry> {
  const lastSeq = await reads.lastSeq();
  const [snapshot, seq0] = page.after === undefined ? [lastSeq, 0] : (parsePosition(page.after, 2, lastSeq, true) as [number, number]);
  const position = (seq: number) => encodePosition([snapshot, seq]);
  let left = page.limit ?? Infinity;
  if (left <= 0) return;
  // The CREATE first: a TRANSFER of an asset is always committed after its CREATE.
  if (operation !== "TRANSFER") {
    const rows = await reads.rows<{ seq: number; json: string }>(
      "SELECT seq, json FROM transactions WHERE id = $1 AND operation = 'CREATE' AND seq > $2 AND seq <= $3",
      [assetId, seq0, snapshot],
    );
    if (rows.length > 0) {
      left--;
      yield [{ json: rows[0]!.json, position: position(rows[0]!.seq) }];
    }
  }
  if (operation === "CREATE") return;
  let after = seq0;
  while (left > 0) {
    const count = Math.min(batchRowsMax, left);
    const rows = await reads.rows<{ seq: number; json: string }>(
      `SELECT seq, json FROM transactions WHERE asset_id = $1 AND operation = 'TRANSFER' AND seq > $2 AND seq <= $3
       ORDER BY seq LIMIT $4`,
      [assetId, after, snapshot, count],
    );
    if (rows.length === 0) return;
    left -= rows.length;
    after = rows.at(-1)!.seq;
    yield rows.map((row) => ({ json: row.json, position: position(row.seq) }));
    if (rows.length < count) return;
  }
}

/** The documents holding every filter (../fieldQuery.ts), in commit order, paged (PageOptions). */
export async function* fieldMatches(
  reads: Reads,
  kind: "assets" | "metadata",
  filters: readonly FieldFilter[],
  page: PageOptions = {},
): Batches<FieldHit> {
  const lastSeq = await reads.lastSeq();
  const [snapshot, seq0] = page.after === undefined ? [lastSeq, 0] : (parsePosition(page.after, 2, lastSeq, true) as [number, number]);
  let after = seq0;
  const digests = [...new Set(filters.map((filter) => fieldDigest(fieldKey(kind, filter)).toString("hex")))].map((hex) => Buffer.from(hex, "hex"));
  let left = page.limit ?? Infinity;
  if (digests.length === 0 || left <= 0) return;
  const joins = digests.slice(1).map((_, i) => `JOIN field_index f${i + 1} ON f${i + 1}.seq = f0.seq AND f${i + 1}.digest = $${i + 5}`).join(" ");
  const column = kind === "assets" ? "asset_data" : "metadata";
  for (;;) {
    const rows = await reads.rows<{ seq: number; id: string; json: string | null }>(
      `SELECT f0.seq, t.id, t.${column} AS json FROM field_index f0 ${joins}
       JOIN transactions t ON t.seq = f0.seq
       WHERE f0.digest = $1 AND f0.seq > $2 AND f0.seq <= $3 ORDER BY f0.seq LIMIT $4`,
      [digests[0], after, snapshot, batchRowsMax, ...digests.slice(1)],
    );
    if (rows.length === 0) return;
    after = rows.at(-1)!.seq;
    // A digest of another leaf (never seen, but 128 bits are not a proof): check the document.
    const hits = rows
      .filter((row) => row.json !== null && fieldsMatch(kind, row.json, filters))
      .slice(0, left)
      .map((row) => ({ id: row.id, json: row.json!, position: encodePosition([snapshot, row.seq]) }));
    left -= hits.length;
    if (hits.length > 0) yield hits;
    if (left <= 0 || rows.length < batchRowsMax) return;
  }
}
