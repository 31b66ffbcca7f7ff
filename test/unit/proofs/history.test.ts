// The history tree's edge (proofs/history.ts) and the commitment v1 (proofs/commitment.ts):
// the edge's root is the RFC 9162 root of every leaf appended, each append hands out exactly the
// perfect subtrees it completed, and the app hashes match docs/proofs.md as a second, plain
// reading of it computes them (test/helpers/appHashV1.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { appHashV1, blockLeaf, transactionLeaf } from "../../../src/proofs/commitment.js";
import { fromHex, toHex } from "../../../src/proofs/encoding.js";
import { edgeOf, HistoryEdge } from "../../../src/proofs/history.js";
import { inclusionPath, leafHash, leafNodes, rootOf, verifyInclusion, type Hash } from "../../../src/proofs/merkle.js";
import { blockChunkLevel, blockNodes, blockTree } from "../../../src/proofs/blockTree.js";
import { V1Chain } from "../../helpers/appHashV1.js";

const leaf = (i: number): Hash => leafHash(new TextEncoder().encode(`leaf-${i}`));

describe("the history tree's edge", () => {
  it("has the RFC 9162 root of every leaf appended, and hands out each perfect subtree once", () => {
    let edge = HistoryEdge.empty();
    const leaves: Hash[] = [];
    const kept = new Map<string, Hash>();
    for (let n = 0; n <= 70; n++) {
      assert.deepEqual(edge.root(), rootOf(leaves), `root of ${n}`);
      assert.equal(edge.size, n);
      // Rebuilt from the kept nodes alone, the edge is the same tree.
      const again = HistoryEdge.of(n, edgeOf(n).map((p) => kept.get(`${p.level}/${p.index}`)!));
      assert.deepEqual(again.root(), edge.root());
      const next = leaf(n);
      const { edge: grown, completed } = edge.append(next);
      leaves.push(next);
      for (const node of completed) {
        const key = `${node.level}/${node.index}`;
        assert.ok(!kept.has(key), `${key} handed out twice`);
        kept.set(key, node.hash);
        assert.deepEqual(node.hash, leafNodes(leaves)(node.level, node.index), key);
      }
      assert.equal(completed[0]!.level, 0);
      edge = grown;
    }
    // Every perfect subtree of 71 leaves, and nothing else: 71 leaves, 35 pairs, 17, 8, 4, 2, 1.
    assert.equal(kept.size, 71 + 35 + 17 + 8 + 4 + 2 + 1);
  });

  it("lists the edge of a size as its set bits, largest first", () => {
    assert.deepEqual(edgeOf(0), []);
    assert.deepEqual(edgeOf(1), [{ level: 0, index: 0 }]);
    assert.deepEqual(edgeOf(13), [{ level: 3, index: 0 }, { level: 2, index: 2 }, { level: 0, index: 12 }]);
    assert.deepEqual(edgeOf(2 ** 40), [{ level: 40, index: 0 }]);
    assert.throws(() => HistoryEdge.of(3, [leaf(0)]), RangeError);
  });

  it("leaves the edge it appended to as it was", () => {
    const one = HistoryEdge.empty().append(leaf(0)).edge;
    const root = one.root();
    one.append(leaf(1));
    assert.deepEqual(one.root(), root);
    assert.equal(one.size, 1);
  });
});

describe("commitment v1", () => {
  it("gives the app hashes docs/proofs.md defines, block after block", () => {
    const plain = new V1Chain();
    let edge = HistoryEdge.empty();
    for (let height = 1; height <= 40; height++) {
      const ids = Array.from({ length: height % 7 }, (_, i) => toHex(leaf(height * 100 + i)));
      const expected = plain.next(height, ids);
      if (ids.length > 0) edge = edge.append(blockLeaf(height, ids.length, blockTree(ids).root)).edge;
      assert.equal(appHashV1(edge.size, edge.root()), expected, `height ${height}`);
    }
  });

  it("is empty before the first block, and binds the size (the same root at two sizes differs)", () => {
    assert.equal(appHashV1(0, rootOf([])), "");
    const root = leaf(1);
    assert.notEqual(appHashV1(1, root), appHashV1(2, root));
  });

  it("binds a block's height and count into its leaf", () => {
    const root = blockTree(["a".repeat(64)]).root;
    assert.notDeepEqual(blockLeaf(1, 1, root), blockLeaf(2, 1, root));
    assert.notDeepEqual(blockLeaf(1, 1, root), blockLeaf(1, 2, root));
  });

  it("reads hex back, and refuses what is not hex", () => {
    const bytes = leaf(3);
    assert.deepEqual(fromHex(toHex(bytes)), bytes);
    assert.equal(fromHex("abc"), null);
    assert.equal(fromHex("zz"), null);
  });
});


describe("a block's tree as the store keeps it", () => {
  it("has the root of its leaves, keeps only subtrees of 64 leaves and more, and proves every index from them", () => {
    for (const size of [1, 2, 63, 64, 65, 127, 128, 129, 200, 333]) {
      const ids = Array.from({ length: size }, (_, i) => toHex(leaf(size * 1000 + i)));
      const leaves = ids.map(transactionLeaf);
      const tree = blockTree(ids);
      assert.deepEqual(tree.root, rootOf(leaves), `root of ${size}`);
      assert.ok(tree.nodes.every((n) => n.level >= blockChunkLevel));
      assert.equal(tree.nodes.filter((n) => n.level === blockChunkLevel).length, Math.floor(size / 64));
      const stored = new Map(tree.nodes.map((n) => [`${n.level}/${n.index}`, n.hash]));
      const nodes = blockNodes(ids, (level, index) => {
        const hash = stored.get(`${level}/${index}`);
        assert.ok(hash !== undefined, `${level}/${index} is not stored`);
        return hash;
      });
      for (let index = 0; index < size; index += size > 70 ? 7 : 1) {
        assert.ok(verifyInclusion(leaves[index]!, index, size, inclusionPath(nodes, index, size), tree.root), `${index} of ${size}`);
      }
    }
  });
});
