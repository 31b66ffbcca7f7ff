// The history tree's nodes read from its tiles (src/proofs/tileNodes.ts): over a tree of 600
// leaves (two full level-0 tiles, a partial one, a partial level-1 tile), the inclusion and
// consistency proofs built from the tiles are those built from the leaves; a missing tile is
// asked for by its path; entry bundles are read entry by entry.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { consistencyPath, inclusionPath, leafHash, leafNodes } from "../../../src/proofs/merkle.js";
import { bundleEntry, TileNeeded, tileNodes } from "../../../src/proofs/tileNodes.js";
import { tilePath, tilesOf } from "../../../src/proofs/tiles.js";

const size = 600;
const leaves = Array.from({ length: size }, (_, i) => leafHash(Uint8Array.of(i >> 8, i & 255)));
const fromLeaves = leafNodes(leaves);

function allTiles(): Map<string, Uint8Array> {
  const held = new Map<string, Uint8Array>();
  for (const tile of tilesOf(size)) {
    if (tile.level === "entries") continue;
    const bytes = new Uint8Array(tile.width * 32);
    for (let i = 0; i < tile.width; i++) bytes.set(fromLeaves(8 * tile.level, tile.index * 256 + i), i * 32);
    held.set(tilePath(tile), bytes);
  }
  return held;
}

describe("tile nodes", () => {
  test("proofs from the tiles are the proofs from the leaves", () => {
    const nodes = tileNodes(size, allTiles());
    for (const index of [0, 255, 256, 511, 599]) assert.deepEqual(inclusionPath(nodes, index, size), inclusionPath(fromLeaves, index, size), `leaf ${index}`);
    for (const from of [1, 256, 300, 512, 599]) assert.deepEqual(consistencyPath(nodes, from, size), consistencyPath(fromLeaves, from, size), `from ${from}`);
  });

  test("a tile not held is asked for by its path", () => {
    const held = allTiles();
    held.delete("tile/1/000.p/2");
    assert.throws(() => consistencyPath(tileNodes(size, held), 300, size), (error: unknown) => error instanceof TileNeeded && tilePath(error.tile) === "tile/1/000.p/2");
  });

  test("an entry bundle is read entry by entry; one past its end is null", () => {
    const bundle = Uint8Array.of(0, 1, 7, 0, 2, 8, 9);
    assert.deepEqual(bundleEntry(bundle, 0), Uint8Array.of(7));
    assert.deepEqual(bundleEntry(bundle, 1), Uint8Array.of(8, 9));
    assert.equal(bundleEntry(bundle, 2), null);
    assert.equal(bundleEntry(Uint8Array.of(0, 5, 1), 0), null);
  });
});
