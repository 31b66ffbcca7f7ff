// The long answers found through a hashed index: the outputs of a key and the history of an
// asset, in commit order, paged (PageOptions in ../store.ts; positions.ts). Each reads two
// sources in commit order: its index table, after a cursor, and the index rows still waiting in
// memory (deferredIndex.ts), taken once at opening. A waiting row may reach the table between
// two batches; the merge drops it the second time. Everything is read as of the walk's
// snapshot: rows committed later are left out, and an output spent later counts as unspent.

import type { Operation } from "../../transaction/committed.js";
import type { HistoryEntry, OutputEntry, PageOptions } from "../store.js";
import { byPlace, lastSeqOf, mergeSorted, waitingAfter, waitingInOrder, type BatchReader } from "./batchReaders.js";
import type { Connection } from "./connection.js";
import { keyHash } from "./keyHash.js";
import { batchCharsMax, batchRowsMax } from "./limits.js";
import type { IndexRow } from "./deferredIndex.js";
import { outputsAt, spendersOf } from "./lookups.js";
import { placeKey, type Place } from "./places.js";
import { encodePosition, parsePosition } from "../positions.js";
import type { OutputOfKeyRow } from "./rows.js";

/** The outputs whose condition names `publicKey`, in commit order; `spent` filters. */
export function outputsOfKey(
  c: Connection,
  publicKey: string,
  spent: boolean | undefined,
  page: PageOptions = {},
): BatchReader<OutputEntry> {
  const hash = keyHash(publicKey);
  const [snapshot, seq0, index0] = page.after === undefined
    ? [lastSeqOf(c), 0, -1]
    : (parsePosition(page.after, 3, lastSeqOf(c), true) as [number, number, number]);
  const waiting = waitingInOrder(c.index.keys.waitingRows(hash));
  let after = { seq: seq0, outputIndex: index0 };
  let left = page.limit ?? Infinity;
  let done = left <= 0;
  return {
    next: () => {
      if (done) return null;
      const { seq, outputIndex } = after;
      const table = c.read.outputsOfKeyAfter.all(hash, seq, outputIndex, snapshot, batchRowsMax) as OutputOfKeyRow[];
      let places = waitingAfter(waiting, [seq, outputIndex], snapshot);
      // A full batch from the table ends the batch: waiting rows past its last are read next time.
      const lastOfTable = table.length === batchRowsMax ? table[table.length - 1]! : undefined;
      if (lastOfTable !== undefined) places = places.filter((row) => byPlace({ seq: row[1] as number, outputIndex: row[2] as number }, lastOfTable) < 0);
      const rows = mergeSorted(table, outputsOfWaiting(c, places), byPlace, batchRowsMax);
      done = rows.length < batchRowsMax;
      if (rows.length === 0) return null;
      const entries = outputEntries(c, rows, publicKey, spent, snapshot).slice(0, left);
      left -= entries.length;
      done ||= left === 0;
      // A full page stops at its last item; otherwise the batch was read to its end.
      const last = left === 0 ? entries[entries.length - 1]! : rows[rows.length - 1]!;
      after = "position" in last ? placeOf(last) : last;
      return entries;
    },
  };
}

/** The outputs the waiting index rows name, in their order: one statement for the batch. */
function outputsOfWaiting(c: Connection, rows: readonly IndexRow[]): OutputOfKeyRow[] {
  const places = rows.map((row) => [row[1], row[2]] as Place);
  const found = outputsAt(c, places);
  return places.map(([seq, index]) => found.get(placeKey(seq, index))!);
}

function placeOf(entry: OutputEntry): { seq: number; outputIndex: number } {
  const [, seq, outputIndex] = entry.position.split(".").map(Number) as [number, number, number];
  return { seq, outputIndex };
}

function outputEntries(
  c: Connection,
  rows: readonly OutputOfKeyRow[],
  publicKey: string,
  spent: boolean | undefined,
  snapshot: number,
): OutputEntry[] {
  // keyHash is not unique: keep only outputs that really name this key. The keys are base58
  // (checked when the transaction was accepted), so `"key"` is in the JSON array exactly when
  // one of its strings is the key: no parse needed.
  const quoted = JSON.stringify(publicKey);
  const mine = rows.filter((row) => row.publicKeys.includes(quoted));
  const places = mine.map((row) => [row.seq, row.outputIndex] as [number, number]);
  const spenders = spent === undefined ? new Map<string, number>() : spendersOf(c, places);
  const entries: OutputEntry[] = [];
  for (const row of mine) {
    const spender = spenders.get(placeKey(row.seq, row.outputIndex));
    const isSpent = spender !== undefined && spender <= snapshot;
    if (spent !== undefined && spent !== isSpent) continue;
    entries.push({
      transactionId: row.transactionId,
      outputIndex: row.outputIndex,
      amount: row.amount,
      assetId: row.assetId,
      position: encodePosition([snapshot, row.seq, row.outputIndex]),
    });
  }
  return entries;
}

/** The CREATE of an asset (its id is the asset id) and its TRANSFERs, in commit order. */
export function transactionsOfAsset(
  c: Connection,
  assetId: string,
  operation: Operation | undefined,
  page: PageOptions = {},
): BatchReader<HistoryEntry> {
  const hash = keyHash(assetId);
  const [snapshot, seq0] = page.after === undefined
    ? [lastSeqOf(c), 0]
    : (parsePosition(page.after, 2, lastSeqOf(c), true) as [number, number]);
  const position = (seq: number) => encodePosition([snapshot, seq]);
  let create: HistoryEntry | undefined;
  if (operation !== "TRANSFER") {
    for (const [found] of c.index.ids.lookup(hash)) {
      const seq = found as number;
      if (seq <= seq0 || seq > snapshot || create !== undefined) continue;
      const json = c.read.createAt.get(seq, assetId) as string | undefined;
      if (json !== undefined) create = { json, position: position(seq) };
    }
  }
  const waiting = waitingInOrder(c.index.assets.waitingRows(hash));
  let after = seq0;
  let left = page.limit ?? Infinity;
  let done = operation === "CREATE";
  return {
    next: () => {
      if (left <= 0) return null;
      const batch: HistoryEntry[] = [];
      let chars = 0;
      // The CREATE comes first: a TRANSFER of an asset is always committed after its CREATE.
      if (create !== undefined) {
        batch.push(create);
        chars += create.json.length;
        left--;
        create = undefined;
      }
      if (done || left <= 0) return batch.length > 0 ? batch : null;
      const table = c.read.transferSeqsAfter.all(hash, after, snapshot, batchRowsMax) as number[];
      const more = waitingAfter(waiting, [after], snapshot).map((row) => row[1] as number);
      const seqs = mergeSorted(table, more, (a, b) => a - b, batchRowsMax);
      done = seqs.length < batchRowsMax;
      for (const seq of seqs) {
        after = seq;
        const json = c.read.transferAt.get(seq, assetId) as string | undefined;
        if (json === undefined) continue; // another asset with the same keyHash
        batch.push({ json, position: position(seq) });
        chars += json.length;
        left--;
        if (chars < batchCharsMax && left > 0) continue;
        done = done && seq === seqs[seqs.length - 1];
        break;
      }
      return batch.length === 0 && done ? null : batch;
    },
  };
}
