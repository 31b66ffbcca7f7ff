// The long answers of the Store, read a batch at a time (`Batches` in ../store.ts). Each reader
// is opened inside one read and then asked for one batch per read: at most `batchRowsMax` rows
// and about `batchCharsMax` characters, so no read holds the connection for long and no answer
// is ever whole in memory. A reader answers as of its opening: rows committed later (a higher
// seq) are left out, and an output spent later still counts as unspent.
//
// A hashed lookup reads two sources in commit order: its index table, after a cursor, and the
// index rows still waiting in memory (deferredIndex.ts), taken once at opening. A waiting row
// may reach the table between two batches; the merge drops it the second time.

import assert from "node:assert/strict";
import type { Operation, OutputRef } from "../../transaction/committed.js";
import type { SearchHit } from "../store.js";
import type { Connection } from "./connection.js";
import type { IndexRow } from "./deferredIndex.js";
import { keyHash } from "./keyHash.js";
import { batchCharsMax, batchRowsMax } from "./limits.js";
import { spendersOf } from "./lookups.js";
import { placeKey } from "./places.js";
import type { BlockRow, OutputOfKeyRow } from "./rows.js";

/** One batch per call (each inside its own read); null once there is no more. */
export interface BatchReader<T> {
  next(): readonly T[] | null;
}

/** A short answer read whole at opening: one batch (none when empty). */
export function wholeReader<T>(items: readonly T[]): BatchReader<T> {
  let given = items.length === 0;
  return {
    next: () => {
      if (given) return null;
      given = true;
      return items;
    },
  };
}

/** The outputs whose condition names `publicKey`, in commit order; `spent` filters. */
export function outputsOfKey(
  c: Connection,
  publicKey: string,
  spent: boolean | undefined,
): BatchReader<OutputRef> {
  const hash = keyHash(publicKey);
  const lastSeq = lastSeqOf(c);
  const waiting = waitingInOrder(c.index.keys.waitingRows(hash));
  let after = { seq: 0, outputIndex: -1 };
  let done = false;
  return {
    next: () => {
      if (done) return null;
      const { seq, outputIndex } = after;
      const table = c.read.outputsOfKeyAfter.all(hash, seq, outputIndex, lastSeq, batchRowsMax);
      const waitingRows: OutputOfKeyRow[] = [];
      for (const row of waitingAfter(waiting, [seq, outputIndex], lastSeq)) {
        waitingRows.push(c.read.outputOfKeyAt.get(row[1], row[2]) as OutputOfKeyRow);
      }
      const rows = mergeSorted(table as OutputOfKeyRow[], waitingRows, byPlace, batchRowsMax);
      done = rows.length < batchRowsMax;
      if (rows.length === 0) return null;
      after = rows[rows.length - 1]!;
      return outputRefs(c, rows, publicKey, spent, lastSeq);
    },
  };
}

function outputRefs(
  c: Connection,
  rows: readonly OutputOfKeyRow[],
  publicKey: string,
  spent: boolean | undefined,
  lastSeq: number,
): OutputRef[] {
  // keyHash is not unique: keep only outputs that really name this key. The keys are base58
  // (checked when the transaction was accepted), so `"key"` is in the JSON array exactly when
  // one of its strings is the key: no parse needed.
  const quoted = JSON.stringify(publicKey);
  const mine = rows.filter((row) => row.publicKeys.includes(quoted));
  const places = mine.map((row) => [row.seq, row.outputIndex] as [number, number]);
  const spenders = spent === undefined ? new Map<string, number>() : spendersOf(c, places);
  const refs: OutputRef[] = [];
  for (const row of mine) {
    const spender = spenders.get(placeKey(row.seq, row.outputIndex));
    const isSpent = spender !== undefined && spender <= lastSeq;
    if (spent !== undefined && spent !== isSpent) continue;
    refs.push({ transactionId: row.transactionId, outputIndex: row.outputIndex });
  }
  return refs;
}

/** The CREATE of an asset (its id is the asset id) and its TRANSFERs, in commit order. */
export function transactionsOfAsset(
  c: Connection,
  assetId: string,
  operation: Operation | undefined,
): BatchReader<string> {
  const hash = keyHash(assetId);
  const lastSeq = lastSeqOf(c);
  let create: string | undefined;
  if (operation !== "TRANSFER") {
    for (const [seq] of c.index.ids.lookup(hash)) {
      create ??= c.read.createAt.get(seq, assetId) as string | undefined;
    }
  }
  const waiting = waitingInOrder(c.index.assets.waitingRows(hash));
  let after = 0;
  let done = operation === "CREATE";
  return {
    next: () => {
      const batch: string[] = [];
      let chars = 0;
      // The CREATE comes first: a TRANSFER of an asset is always committed after its CREATE.
      if (create !== undefined) batch.push(create);
      chars += create?.length ?? 0;
      create = undefined;
      if (done) return batch.length > 0 ? batch : null;
      const table = c.read.transferSeqsAfter.all(hash, after, lastSeq, batchRowsMax) as number[];
      const more = waitingAfter(waiting, [after], lastSeq).map((row) => row[1] as number);
      const seqs = mergeSorted(table, more, (a, b) => a - b, batchRowsMax);
      done = seqs.length < batchRowsMax;
      for (const seq of seqs) {
        after = seq;
        const json = c.read.transferAt.get(seq, assetId) as string | undefined;
        if (json === undefined) continue; // another asset with the same keyHash
        batch.push(json);
        chars += json.length;
        if (chars < batchCharsMax) continue;
        done = done && seq === seqs[seqs.length - 1];
        break;
      }
      return batch.length === 0 && done ? null : batch;
    },
  };
}

/** The transactions of a block as posted, in block order; null when there is no such block. */
export function blockTransactions(c: Connection, height: number): BatchReader<string> | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  if (row === undefined) return null;
  const end = row.seqFirst + row.txCount;
  let from = row.seqFirst;
  return {
    next: () => {
      if (from >= end) return null;
      const batch: string[] = [];
      let chars = 0;
      const upTo = Math.min(end, from + batchRowsMax);
      for (const json of c.read.txJsonsBySeqRange.iterate(from, upTo) as Iterable<string>) {
        batch.push(json);
        chars += json.length;
        if (chars >= batchCharsMax) break;
      }
      assert.ok(batch.length > 0, `block ${height} lost transactions`);
      from += batch.length;
      return batch;
    },
  };
}

/** The hits at these seqs (already ranked), in that order. */
export function searchHits(
  c: Connection,
  kind: "assets" | "metadata",
  seqs: readonly number[],
): BatchReader<SearchHit> {
  const hitAt = kind === "assets" ? c.read.assetHitAt : c.read.metadataHitAt;
  let at = 0;
  return {
    next: () => {
      if (at >= seqs.length) return null;
      const batch: SearchHit[] = [];
      let chars = 0;
      while (at < seqs.length && batch.length < batchRowsMax && chars < batchCharsMax) {
        const hit = hitAt.get(seqs[at++]) as SearchHit;
        batch.push(hit);
        chars += hit.json.length;
      }
      return batch;
    },
  };
}

/**
 * A hash's waiting index rows in (seq, ...) order. They are kept in commit order, so this is
 * the array itself (read, never changed), checked; a copy sorted if ever it were not.
 */
function waitingInOrder(rows: readonly IndexRow[]): readonly IndexRow[] {
  for (let i = 1; i < rows.length; i++) {
    if (compareRows(rows[i - 1]!, rows[i]!) > 0) return [...rows].sort(compareRows);
  }
  return rows;
}

/** Up to batchRowsMax of `rows` (in order) after `cursor` (the columns after the hash). */
function waitingAfter(
  rows: readonly IndexRow[],
  cursor: readonly number[],
  lastSeq: number,
): IndexRow[] {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareColumns(rows[middle]!, cursor) <= 0) low = middle + 1;
    else high = middle;
  }
  const out: IndexRow[] = [];
  for (let i = low; i < rows.length && out.length < batchRowsMax; i++) {
    if ((rows[i]![1] as number) > lastSeq) break;
    out.push(rows[i]!);
  }
  return out;
}

function compareRows(a: IndexRow, b: IndexRow): number {
  for (let i = 1; i < a.length; i++) {
    const order = (a[i] as number) - (b[i] as number);
    if (order !== 0) return order;
  }
  return 0;
}

/** An index row (hash first) against the columns after the hash. */
function compareColumns(row: IndexRow, columns: readonly number[]): number {
  for (let i = 0; i < columns.length; i++) {
    const order = (row[i + 1] as number) - (columns[i] as number);
    if (order !== 0) return order;
  }
  return 0;
}

function lastSeqOf(c: Connection): number {
  return (c.read.lastSeq.get() as number | null) ?? 0;
}

function byPlace(
  a: { readonly seq: number; readonly outputIndex: number },
  b: { readonly seq: number; readonly outputIndex: number },
): number {
  return a.seq - b.seq || a.outputIndex - b.outputIndex;
}

/** The first `count` of two sorted lists, merged, an item in both taken once. */
function mergeSorted<T>(
  a: readonly T[],
  b: readonly T[],
  compare: (x: T, y: T) => number,
  count: number,
): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (out.length < count && (i < a.length || j < b.length)) {
    const order = i >= a.length ? 1 : j >= b.length ? -1 : compare(a[i]!, b[j]!);
    if (order <= 0) out.push(a[i++]!);
    else out.push(b[j++]!);
    if (order === 0) j++;
  }
  return out;
}
