// Where things are: an output's place ([seq, output index]) and the index rows a transaction
// adds. The block writer derives the rows when it commits and `follower.ts` when it restores
// them, both here, so they agree.

import type { IndexRow } from "./deferredIndex.js";
import { keyHash } from "./keyHash.js";

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

export function spentIndexRow(txSeq: number, outputIndex: number, spenderSeq: number): IndexRow {
  return [outputHash(txSeq, outputIndex), txSeq, outputIndex, spenderSeq];
}
