// The index rows waiting in memory, rebuilt from the tables: on open (rows a crash lost), and
// in a read-only store for each block another process's writer committed (deferredIndex.ts).
// A writer on a thread of this process hands its block's rows over instead (`follow`), which
// spares this thread reading them back and deriving them again.

import { sliceOf, type IndexRow } from "./deferredIndex.js";
import { indexNames, type Connection } from "./connection.js";
import { indexTables, type IndexName } from "./queries.js";
import { addedBySeqColumn, keyIndexRows, spentIndexRow, txIndexRows, type BlockRows } from "./places.js";
import type { InputAfterRow, OutputAfterRow, TxRow } from "./rows.js";

export class IndexFollower {
  readonly #c: Connection;
  /**
   * What refresh has seen: the connection's data_version and the last seq, each recorded only
   * once what it stands for is in memory, so a look that throws is taken again by the next.
   */
  #dataVersion: number;
  #seenSeq: number;

  /** Restores the rows above the lowest slice mark; the connection's indexes start empty. */
  constructor(c: Connection) {
    this.#c = c;
    this.#dataVersion = c.read.dataVersion.get() as number;
    this.#seenSeq = (c.read.lastSeq.get() as number | null) ?? 0;
    this.#restoreWaitingRows(Math.min(...c.merged));
  }

  /**
   * In a read-only store, inside the read transaction: catches up with the writer. A slice whose
   * mark moved was merged after the last refresh, so its staged rows up to the mark are in the
   * table now (a slice merged in parts keeps those above it).
   */
  refresh(): void {
    const version = this.#c.read.dataVersion.get() as number;
    if (version === this.#dataVersion) return;
    this.#followMarks();
    this.#catchUp();
    this.#dataVersion = version;
  }

  /**
   * In a read-only store, inside a read transaction: follows the block its writer on another
   * thread just committed, with the rows the writer added (BlockRows) rather than reading them
   * back. A read that came between the commit and this call has followed it already; and should
   * this follower not stand right before the block, it reads the rows back as `refresh` does.
   */
  follow(block: BlockRows): void {
    const version = this.#c.read.dataVersion.get() as number;
    if (version === this.#dataVersion) return;
    this.#followMarks();
    if (this.#seenSeq === block.firstSeq - 1) {
      const { index, merged } = this.#c;
      const slices = merged.length;
      for (const name of indexNames) {
        const flat = block.rows[name];
        const width = 1 + indexTables[name].columns.length;
        const bySeq = addedBySeqColumn[name];
        for (let at = 0; at < flat.length; at += width) {
          const row: number[] = [];
          for (let column = 0; column < width; column++) row.push(flat[at + column]!);
          if (flat[at + bySeq]! <= merged[sliceOf(flat[at]!, slices)]!) index[name].note(row);
          else index[name].restore(row);
        }
      }
      this.#seenSeq = block.lastSeq;
    }
    this.#catchUp();
    this.#dataVersion = version;
  }

  /** Whether no other connection has committed since the last look: what this one knows is all. */
  current(): boolean {
    return this.#c.read.dataVersion.get() === this.#dataVersion;
  }

  /** Drops the rows of each slice the writer merged since the last look: they are in its table. */
  #followMarks(): void {
    const { read, index, merged } = this.#c;
    const marks = read.sweep.all() as number[];
    for (let slice = 0; slice < marks.length; slice++) {
      if (marks[slice] === merged[slice]) continue;
      for (const name of indexNames) index[name].dropMerged(slice, marks[slice] as number);
      merged[slice] = marks[slice] as number;
    }
  }

  /** Restores the rows of the transactions committed after those seen (none: nothing to read). */
  #catchUp(): void {
    const last = (this.#c.read.lastSeq.get() as number | null) ?? 0;
    if (last === this.#seenSeq) return;
    this.#restoreWaitingRows(this.#seenSeq);
    this.#seenSeq = last;
  }

  /**
   * Re-derives, exactly as the block writer derived them, the index rows of the transactions
   * after seq `from` that are above their slice's merge mark, so lookups see every committed
   * transaction.
   */
  #restoreWaitingRows(from: number): void {
    const { read, index, merged } = this.#c;
    const slices = merged.length;
    // Every row is read before any is restored: a read that throws changes nothing here, and
    // the next look reads them all again without restoring any twice.
    const found: { readonly name: IndexName; readonly row: IndexRow; readonly seq: number }[] = [];
    const restore = (name: IndexName, row: IndexRow, seq: number) => void found.push({ name, row, seq });
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
    // A row already merged is in the table; a filtered index notes its hash all the same.
    for (const { name, row, seq } of found) {
      if (seq > (merged[sliceOf(row[0] as number, slices)] as number)) index[name].restore(row);
      else index[name].note(row);
    }
  }
}
