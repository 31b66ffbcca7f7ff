// The long answers of the Store, read a batch at a time (`Batches` in ../store.ts). Each reader
// is opened inside one read and then asked for one batch per read: at most `batchRowsMax` rows
// and about `batchCharsMax` characters, so no read holds the connection for long and no answer
// is ever whole in memory. A reader answers as of its opening: rows committed later (a higher
// seq) are left out, and an output spent later still counts as unspent.
//
// The readers of hashed lookups (an asset's history, a key's outputs) are in keyedReaders.ts.

import assert from "node:assert/strict";
import type { SearchHit } from "../store.js";
import type { Connection } from "./connection.js";
import type { IndexRow } from "./deferredIndex.js";
import { batchCharsMax, batchRowsMax } from "./limits.js";
import type { BlockRow } from "./rows.js";

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

/** Each item of `reader` as `map` makes it; `index` counts the items from 0 across batches. */
export function mapReader<T, U>(reader: BatchReader<T>, map: (item: T, index: number) => U): BatchReader<U> {
  let index = 0;
  return {
    next: () => reader.next()?.map((item) => map(item, index++)) ?? null,
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
export function waitingInOrder(rows: readonly IndexRow[]): readonly IndexRow[] {
  for (let i = 1; i < rows.length; i++) {
    if (compareRows(rows[i - 1]!, rows[i]!) > 0) return [...rows].sort(compareRows);
  }
  return rows;
}

/** Up to batchRowsMax of `rows` (in order) after `cursor` (the columns after the hash). */
export function waitingAfter(
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

export function lastSeqOf(c: Connection): number {
  return (c.read.lastSeq.get() as number | null) ?? 0;
}

export function byPlace(
  a: { readonly seq: number; readonly outputIndex: number },
  b: { readonly seq: number; readonly outputIndex: number },
): number {
  return a.seq - b.seq || a.outputIndex - b.outputIndex;
}

/** The first `count` of two sorted lists, merged, an item in both taken once. */
export function mergeSorted<T>(
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
