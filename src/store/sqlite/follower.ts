// The index rows waiting in memory, rebuilt from the tables: on open (rows a crash lost), and
// in a read-only store for each block another process's writer committed (deferredIndex.ts).

import { sliceOf, type IndexRow } from "./deferredIndex.js";
import { indexNames, type Connection, type IndexName } from "./connection.js";
import { keyIndexRows, spentIndexRow, txIndexRows } from "./places.js";
import type { InputAfterRow, OutputAfterRow, TxRow } from "./rows.js";

export class IndexFollower {
  readonly #c: Connection;
  /** What refresh has seen: the connection's data_version and the last seq. */
  #dataVersion: number;
  #seenSeq: number;

  /** Restores the rows above the lowest slice mark; the connection's indexes start empty. */
  constructor(c: Connection) {
    this.#c = c;
    this.#dataVersion = c.db.pragma("data_version", { simple: true }) as number;
    this.#seenSeq = (c.read.lastSeq.get() as number | null) ?? 0;
    this.#restoreWaitingRows(Math.min(...c.merged));
  }

  /**
   * In a read-only store, inside the read transaction: catches up with the writer. A slice whose
   * mark moved was merged after the last refresh, so all its staged rows are in the table now.
   */
  refresh(): void {
    const { db, read, index, merged } = this.#c;
    const version = db.pragma("data_version", { simple: true }) as number;
    if (version === this.#dataVersion) return;
    this.#dataVersion = version;
    const marks = read.sweep.all() as number[];
    for (let slice = 0; slice < marks.length; slice++) {
      if (marks[slice] === merged[slice]) continue;
      for (const name of indexNames) index[name].dropSlice(slice);
      merged[slice] = marks[slice] as number;
    }
    const from = this.#seenSeq;
    this.#seenSeq = (read.lastSeq.get() as number | null) ?? 0;
    this.#restoreWaitingRows(from);
  }

  /**
   * Re-derives, exactly as the block writer derived them, the index rows of the transactions
   * after seq `from` that are above their slice's merge mark, so lookups see every committed
   * transaction.
   */
  #restoreWaitingRows(from: number): void {
    const { read, index, merged } = this.#c;
    const slices = merged.length;
    const restore = (name: IndexName, row: IndexRow, seq: number) => {
      if (seq > (merged[sliceOf(row[0] as number, slices)] as number)) {
        index[name].restore(row);
      }
    };
    for (const tx of read.txsAfter.iterate(from) as Iterable<TxRow>) {
      const rows = txIndexRows(tx.seq, tx.id, tx.operation, tx.assetId);
      for (const row of rows.ids) restore("ids", row, tx.seq);
      for (const row of rows.assets) restore("assets", row, tx.seq);
    }
    for (const output of read.outputsAfter.iterate(from) as Iterable<OutputAfterRow>) {
      const keys = JSON.parse(output.publicKeys) as string[];
      for (const row of keyIndexRows(output.seq, output.outputIndex, keys)) {
        restore("keys", row, output.seq);
      }
    }
    for (const input of read.inputsAfter.iterate(from) as Iterable<InputAfterRow>) {
      const row = spentIndexRow(input.txSeq, input.outputIndex, input.spenderSeq);
      restore("spent", row, input.spenderSeq);
    }
  }
}
