// Tiles (docs/transparency.md "Tiles", after C2SP tlog-tiles): the history tree served as
// static resources. A tile of level L and index N holds up to 256 hashes: those of the perfect
// subtrees of 256^L leaves numbered N*256 ... N*256+255, which are the tree's nodes at height
// 8L, so every hash of a tile is a node the store keeps (docs/proofs.md "Storage"). Entry
// bundles hold the leaves' data. A tile that is not full is "partial", of width W.
// Pure, no IO: the path's grammar and the arithmetic of which tiles a tree of a size has.

/** Hashes in a full tile, and the tree levels a tile spans (256 = 2^8). */
export const tileWidth = 256;
export const tileHeight = 8;
/** The highest tile level the spec names. */
export const tileLevelMax = 63;

export interface TileRef {
  /** The tile level, or "entries" for an entry bundle. */
  readonly level: number | "entries";
  readonly index: number;
  /** The number of hashes (or entries): 256 for a full tile. */
  readonly width: number;
}

/** N in 3-digit path elements, all but the last prefixed with `x`: 1234067 is `x001/x234/067`. */
function indexPath(index: number): string {
  let digits = String(index);
  digits = digits.padStart(Math.ceil(digits.length / 3) * 3, "0");
  const groups = digits.match(/.{3}/g)!;
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

/** A tile's path under the log's prefix: `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`. */
export function tilePath(tile: TileRef): string {
  const partial = tile.width < tileWidth ? `.p/${tile.width}` : "";
  return `tile/${tile.level}/${indexPath(tile.index)}${partial}`;
}

/**
 * A path after `tile/` read back, or null when it is not one the spec allows: a level of 0 to
 * 63 (or `entries`), index elements of three digits, a width of 1 to 255, no leading zeroes.
 */
export function parseTilePath(path: string): TileRef | null {
  const match = /^(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(path);
  if (match === null) return null;
  const level = match[1] === "entries" ? "entries" : Number(match[1]);
  if (level !== "entries" && level > tileLevelMax) return null;
  const digits = match[2]!.replace(/[x/]/g, "");
  // The shortest encoding only: `x000/001` is not the path of tile 1.
  if (digits.length > 3 && digits.startsWith("000")) return null;
  const index = Number(digits);
  const width = match[3] === undefined ? tileWidth : Number(match[3]);
  if (!Number.isSafeInteger(index) || width > tileWidth || (match[3] !== undefined && width === tileWidth)) return null;
  return { level, index, width };
}

/** The number of hashes at tile level `level` of a tree of `size` leaves: floor(size / 256^L). */
export function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / tileWidth ** level);
}

/** Whether a tree of `size` leaves holds every hash (or entry) of `tile`. */
export function tileWithin(tile: TileRef, size: number): boolean {
  const level = tile.level === "entries" ? 0 : tile.level;
  return tile.index * tileWidth + tile.width <= hashesAtLevel(size, level);
}

/** The tiles (and entry bundles) a tree of `size` leaves has: full ones, then each level's partial. */
export function tilesOf(size: number): TileRef[] {
  const tiles: TileRef[] = [];
  for (let level = 0; hashesAtLevel(size, level) > 0; level++) {
    const count = hashesAtLevel(size, level);
    const full = Math.floor(count / tileWidth);
    const partial = count % tileWidth;
    const levels: (number | "entries")[] = level === 0 ? ["entries", 0] : [level];
    for (const at of levels) {
      for (let index = 0; index < full; index++) tiles.push({ level: at, index, width: tileWidth });
      if (partial > 0) tiles.push({ level: at, index: full, width: partial });
    }
  }
  return tiles;
}
