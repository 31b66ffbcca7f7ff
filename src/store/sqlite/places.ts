// Where things are: an output's place ([seq, output index]) and the index rows a transaction
// adds. The block writer derives the rows when it commits and `follower.ts` when it restores
// them, both here, so they agree.

import type { IndexRow } from "./deferredIndex.js";
import { keyHash } from "./keyHash.js";
import type { IndexName } from "./queries.js";

/** An output's place: [seq of its transaction, output index]. */
export type Place = [number, number];

export function placeKey(seq: number, outputIndex: number): string {
  return `${seq}:${outputIndex}`;
}

/** Spent outputs are indexed by a hash of their place, so a merge touches one range. */
export function outputHash(txSeq: number, outputIndex: number): number {
  return keyHash(`${txSeq}:${outputIndex}`);
}

export function txIndexRows(seq: number, id: string, operation: string, assetId: string) {
  return {
    ids: [[keyHash(id), seq]] as IndexRow[],
    // A CREATE is found by its id; only TRANSFERs go in the asset index.
    assets: (operation === "TRANSFER" ? [[keyHash(assetId), seq]] : []) as IndexRow[],
  };
}

export function keyIndexRows(seq: number, outputIndex: number, keys: readonly string[]): IndexRow[] {
  // Two keys of one output may share a hash; one row serves both.
  return [...new Set(keys.map(keyHash))].map((hash) => [hash, seq, outputIndex]);
}

/**
 * The column of each index's rows holding the seq of the transaction that added the row: the
 * row is in the table once its slice's merge mark reaches that seq.
 */
export const addedBySeqColumn: { readonly [K in IndexName]: number } = { ids: 1, assets: 1, keys: 1, spent: 3 };

/**
 * A block's index rows as its writer added them, flattened per index (each row as wide as its
 * index's rows), with the seqs of the block's transactions: what a follower on another thread
 * takes instead of reading the block back (threadedStore.ts).
 */
export interface BlockRows {
  readonly firstSeq: number;
  /** `firstSeq - 1` when the block holds no transaction of its own tables. */
  readonly lastSeq: number;
  readonly rows: { readonly [K in IndexName]: Float64Array };
}

export function spentIndexRow(txSeq: number, outputIndex: number, spenderSeq: number): IndexRow {
  return [outputHash(txSeq, outputIndex), txSeq, outputIndex, spenderSeq];
}
