// The history tree's nodes read from its tiles (docs/transparency.md "Tiles"), so that a client
// that has only a log's tiles (a node's or a mirror's) builds inclusion and consistency proofs
// with merkle.ts and checks them against a signed checkpoint. A node of height 8L + r is the
// hash of 2^r consecutive hashes of a level-L tile. The source is synchronous, as merkle.ts's
// proofs are; a tile not at hand throws `TileNeeded`, and the caller fetches it and tries again
// (a proof needs O(log n) tiles, so the retries are few); `withTiles` does that loop with a fetch
// the caller gives. No IO of its own: the auditor and the explorer share it.
import { toBase64 } from "./encoding.js";
import type { Checkpoint } from "./checkpoint.js";
import { consistencyPath, emptyRoot, nodeHash, verifyConsistency, type Hash, type NodeSource } from "./merkle.js";
import { hashesAtLevel, tileHeight, tilePath, tileWidth, type TileRef } from "./tiles.js";

const hashBytes = 32;
/** Bytes before each entry of an entry bundle: its length, a big-endian uint16. */
const entryLengthBytes = 2;

/** Thrown by a tile source for a tile it does not hold yet. */
export class TileNeeded extends Error {
  constructor(readonly tile: TileRef) {
    super(`tile ${tilePath(tile)} is needed`);
  }
}

/** The tile (of a tree of `size` leaves) holding hash or entry `index` of `level`. */
export function tileHolding(level: number | "entries", index: number, size: number): TileRef {
  const tile = Math.floor(index / tileWidth);
  const count = hashesAtLevel(size, level === "entries" ? 0 : level);
  return { level, index: tile, width: Math.min(tileWidth, count - tile * tileWidth) };
}

/** The nodes of the tree of `size` leaves, from the tiles `held` has (by tilePath). */
export function tileNodes(size: number, held: ReadonlyMap<string, Uint8Array>): NodeSource {
  const hashAt = (level: number, index: number): Hash => {
    const ref = tileHolding(level, index, size);
    const tile = held.get(tilePath(ref));
    if (tile === undefined) throw new TileNeeded(ref);
    const at = (index % tileWidth) * hashBytes;
    if (tile.length !== ref.width * hashBytes) throw new Error(`tile ${tilePath(ref)} is ${tile.length} bytes, not ${ref.width * hashBytes}`);
    return tile.slice(at, at + hashBytes);
  };
  const node = (level: number, index: number): Hash => {
    if (level % tileHeight === 0) return hashAt(level / tileHeight, index);
    return nodeHash(node(level - 1, 2 * index), node(level - 1, 2 * index + 1));
  };
  return node;
}

/** Entry `index` of an entry bundle's bytes, or null when the bundle does not hold it. */
export function bundleEntry(bundle: Uint8Array, index: number): Uint8Array | null {
  let at = 0;
  for (let i = 0; at + entryLengthBytes <= bundle.length; i++) {
    const length = (bundle[at]! << 8) | bundle[at + 1]!;
    const end = at + entryLengthBytes + length;
    if (end > bundle.length) return null;
    if (i === index) return bundle.slice(at + entryLengthBytes, end);
    at = end;
  }
  return null;
}

/** Fetches a tile of the log (a node's `/api/v1/tlog/`, a mirror). */
export type TileFetch = (tile: TileRef) => Promise<Uint8Array>;

/** Tiles one proof may fetch: a proof needs O(log n), so more means a source that misbehaves. */
const tilesPerProofMax = 256;

/** Runs `build` over the nodes of the tree of `size`, fetching each tile it turns out to need. */
export async function withTiles<T>(fetchTile: TileFetch, size: number, build: (nodes: NodeSource) => T): Promise<T> {
  const held = new Map<string, Uint8Array>();
  const nodes = tileNodes(size, held);
  for (let fetched = 0; fetched <= tilesPerProofMax; fetched++) {
    try {
      return build(nodes);
    } catch (error) {
      if (!(error instanceof TileNeeded)) throw error;
      held.set(tilePath(error.tile), await fetchTile(error.tile));
    }
  }
  throw new Error(`a proof in a tree of ${size} needed more than ${tilesPerProofMax} tiles`);
}

/** Whether the tree `to` extends the tree `from`, by a consistency proof from the tiles of `to`'s size. */
export async function extendsTree(fetchTile: TileFetch, from: Checkpoint, to: Checkpoint): Promise<boolean> {
  if (from.size > to.size) return false;
  if (from.size === 0) return toBase64(from.root) === toBase64(emptyRoot);
  if (from.size === to.size) return toBase64(from.root) === toBase64(to.root);
  const path = await withTiles(fetchTile, to.size, (nodes) => consistencyPath(nodes, from.size, to.size));
  return verifyConsistency(from.size, to.size, from.root, to.root, path);
}
