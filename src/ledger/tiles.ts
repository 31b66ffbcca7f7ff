// The history tree as C2SP tiles (docs/transparency.md "Tiles"), read from the store: a hash
// tile's hashes are stored perfect subtrees (level 8L of the tree, proofs/tiles.ts), an entry
// bundle's entries are the blocks' 45-byte leaves, each rebuilt from its block's ids and checked
// against the stored leaf hash (STYLE rule 2: a read checks back what the write made true).
import assert from "node:assert/strict";
import { LedgerError } from "../errors/ledgerError.js";
import { blockNodes } from "../proofs/blockTree.js";
import { blockLeafData } from "../proofs/commitment.js";
import { leafHash, rangeRoot } from "../proofs/merkle.js";
import { tileHeight, tileWidth, tileWithin, type TileRef } from "../proofs/tiles.js";
import type { ChainReads } from "../store/store.js";
import { readBounded } from "./boundedReads.js";
import { provingState, withStoredNodes } from "./proofs.js";

/** The entries' length prefix: a big-endian uint16 (C2SP tlog-tiles). */
const lengthPrefixBytes = 2;

/** An entry bundle's reads of blocks running at once (a bundle holds up to 256 blocks' leaves). */
export const tileBlockReadsAtOnceMax = 16;

/**
 * The history's size after the last committed block and that block's height, read together;
 * ProofsUnavailable on a `bigchaindb` chain.
 */
export async function historyHeadOf(store: ChainReads): Promise<{ size: number; height: number }> {
  const state = await provingState(store);
  return { size: state.historySize, height: state.height };
}

/** The tile's bytes: 32 bytes a hash, or the entries length-prefixed. NotFound past `size`. */
export async function readTile(store: ChainReads, tile: TileRef, size: number): Promise<Uint8Array> {
  if (!tileWithin(tile, size)) throw new LedgerError("NotFound", `The history of ${size} blocks has no tile ${String(tile.level)}/${tile.index} of width ${tile.width}`);
  if (tile.level === "entries") return entryBundle(store, tile.index * tileWidth, tile.width);
  const first = tile.index * tileWidth;
  const places = Array.from({ length: tile.width }, (_, i) => ({ level: tile.level as number * tileHeight, index: first + i }));
  const hashes = await store.getHistoryNodes(places);
  const bytes = new Uint8Array(32 * tile.width);
  hashes.forEach((hash, i) => {
    assert.ok(hash !== null, `history node (level ${places[i]!.level}, index ${places[i]!.index}) is not stored`);
    bytes.set(hash, 32 * i);
  });
  return bytes;
}

/** The height of the block whose leaf is leaf `leaf` of the history: the first whose size passes it. */
export async function heightOfLeaf(store: ChainReads, leaf: number): Promise<number> {
  let low = 1;
  let high = (await store.getChainState()).height;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await historySizeAt(store, middle)) > leaf) high = middle;
    else low = middle + 1;
  }
  assert.ok((await historySizeAt(store, low)) === leaf + 1, `no block holds history leaf ${leaf}`);
  return low;
}

async function historySizeAt(store: ChainReads, height: number): Promise<number> {
  const head = await store.getBlockHead(height);
  assert.ok(head !== null && head.historySize !== null, `block ${height} of a v1 chain has no history size`);
  return head.historySize;
}

/** Leaves [first, first + count) as an entry bundle: the blocks that hold them, read side by side. */
async function entryBundle(store: ChainReads, first: number, count: number): Promise<Uint8Array> {
  const stored = await store.getHistoryNodes(Array.from({ length: count }, (_, i) => ({ level: 0, index: first + i })));
  const heights = await leafHeights(store, first, count);
  const leaves = await readBounded(heights, tileBlockReadsAtOnceMax, (height) => leafDataOf(store, height));
  const bundle = new Uint8Array(count * (lengthPrefixBytes + 45));
  let offset = 0;
  leaves.forEach((data, i) => {
    assert.ok(sameBytes(leafHash(data), stored[i]), `history leaf ${first + i} (block ${heights[i]}) does not hash to the stored leaf`);
    new DataView(bundle.buffer).setUint16(offset, data.length);
    bundle.set(data, offset + lengthPrefixBytes);
    offset += lengthPrefixBytes + data.length;
  });
  return bundle;
}

/**
 * The heights of the blocks holding leaves [first, first + count), from the first's on: block
 * heads read a window at a time. A block without a valid transaction has no leaf: its size is
 * the one before it.
 */
async function leafHeights(store: ChainReads, first: number, count: number): Promise<number[]> {
  const heights = [await heightOfLeaf(store, first)];
  let from = heights[0]! + 1;
  while (heights.length < count) {
    const window = Array.from({ length: tileBlockReadsAtOnceMax }, (_, i) => from + i);
    const heads = await readBounded(window, tileBlockReadsAtOnceMax, (height) => store.getBlockHead(height));
    for (const [i, head] of heads.entries()) {
      assert.ok(head !== null && head.historySize !== null, `no block ${window[i]} with a history size holds history leaf ${first + heights.length}`);
      if (head.historySize === first + heights.length + 1) heights.push(window[i]!);
      if (heights.length === count) break;
    }
    from += window.length;
  }
  return heights;
}

/** A block's leaf data: its height, its number of valid transactions and its tree's root. */
async function leafDataOf(store: ChainReads, height: number): Promise<Uint8Array> {
  const ids = await store.getBlockIds(height);
  assert.ok(ids !== null && ids.length > 0, `block ${height} has a history leaf but no transaction`);
  const root = await withStoredNodes(
    (places) => store.getBlockNodes(height, places),
    (nodes) => rangeRoot(blockNodes(ids, nodes), 0, ids.length),
  );
  return blockLeafData(height, ids.length, root);
}

function sameBytes(a: Uint8Array, b: Uint8Array | null | undefined): boolean {
  return b !== null && b !== undefined && a.length === b.length && a.every((byte, i) => byte === b[i]);
}
