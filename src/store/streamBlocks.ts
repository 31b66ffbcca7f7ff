// What every backend shares of the event streams' replay read (store.ts getStreamBlocks): the
// blocks read make a page until their transactions pass the page's cap, and one read of the
// page's transactions by commit order (`seq`) is dealt out to the blocks by their seq ranges.
import assert from "node:assert/strict";
import type { StreamBlockPage, StreamBlockRecord } from "./store.js";

/** A block's row: its transactions are those of seq `seqFirst` to `seqFirst + txCount - 1`. */
export interface StreamBlockHead {
  readonly height: number;
  readonly appHash: string;
  readonly seqFirst: number;
  readonly txCount: number;
}

/** A transaction's row as the replay reads it. */
export interface StreamTxRow {
  readonly seq: number;
  readonly id: string;
  readonly assetId: string;
}

/**
 * The heads (in height order, at most `page.blocksMax` read) that make one page: the first,
 * then each next one while the page stays within `page.txsMax` transactions.
 */
export function pageOfHeads(heads: readonly StreamBlockHead[], page: StreamBlockPage): StreamBlockHead[] {
  const taken: StreamBlockHead[] = [];
  let txs = 0;
  for (const head of heads) {
    if (taken.length > 0 && txs + head.txCount > page.txsMax) break;
    taken.push(head);
    txs += head.txCount;
  }
  return taken;
}

/** The seq range one read of the page's transactions covers: from the first's, up to (without) `end`. */
export function seqRangeOf(heads: readonly StreamBlockHead[]): { first: number; end: number } {
  const last = heads.at(-1);
  if (last === undefined) return { first: 0, end: 0 };
  return { first: heads[0]!.seqFirst, end: last.seqFirst + last.txCount };
}

/** The page's blocks with their transactions, from rows in seq order over `seqRangeOf(heads)`. */
export function streamBlocksOf(heads: readonly StreamBlockHead[], rows: readonly StreamTxRow[]): StreamBlockRecord[] {
  let at = 0;
  return heads.map((head) => {
    const end = head.seqFirst + head.txCount;
    while (at < rows.length && rows[at]!.seq < head.seqFirst) at++;
    const txs: { id: string; assetId: string }[] = [];
    for (; at < rows.length && rows[at]!.seq < end; at++) txs.push({ id: rows[at]!.id, assetId: rows[at]!.assetId });
    assert.equal(txs.length, head.txCount, `block ${head.height} lost transactions`);
    return { height: head.height, appHash: head.appHash, txs };
  });
}
