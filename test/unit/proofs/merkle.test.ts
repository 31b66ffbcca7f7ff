// RFC 9162 trees: roots of small trees by hand, every inclusion and consistency proof of trees up
// to 40 leaves verifies, and any flipped bit, wrong index, wrong size or forked history fails.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import {
  consistencyPath,
  emptyRoot,
  inclusionPath,
  leafHash,
  leafNodes,
  nodeHash,
  rangeRoot,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type Hash,
} from "../../../src/proofs/merkle.js";

const sha = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const leaves = (n: number, salt = "leaf"): Hash[] => Array.from({ length: n }, (_, i) => leafHash(new TextEncoder().encode(`${salt}-${i}`)));
const flipped = (hash: Hash, bit: number): Hash => {
  const copy = Uint8Array.from(hash);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
};

describe("RFC 9162 Merkle trees", () => {
  it("hashes leaves and nodes with their prefixes; the empty tree is SHA-256 of nothing", () => {
    const data = new TextEncoder().encode("x");
    assert.deepEqual(leafHash(data), sha(Uint8Array.of(0), data));
    const [a, b] = leaves(2);
    assert.deepEqual(nodeHash(a!, b!), sha(Uint8Array.of(1), a!, b!));
    assert.deepEqual(emptyRoot, sha());
    assert.deepEqual(rootOf([]), emptyRoot);
  });

  it("splits at the largest power of two below n (a tree of 5 and of 7 by hand)", () => {
    const l = leaves(7);
    const n = (x: Hash, y: Hash) => nodeHash(x, y);
    const four = n(n(l[0]!, l[1]!), n(l[2]!, l[3]!));
    assert.deepEqual(rootOf(l.slice(0, 5)), n(four, l[4]!));
    assert.deepEqual(rootOf(l), n(four, n(n(l[4]!, l[5]!), l[6]!)));
    assert.deepEqual(rangeRoot(leafNodes(l), 4, 3), n(n(l[4]!, l[5]!), l[6]!));
  });

  it("every leaf of trees of 1..40 has a path that verifies, and nothing else does", () => {
    for (let size = 1; size <= 40; size++) {
      const l = leaves(size);
      const root = rootOf(l);
      for (let index = 0; index < size; index++) {
        const path = inclusionPath(leafNodes(l), index, size);
        assert.ok(path.length <= Math.ceil(Math.log2(size)));
        assert.ok(verifyInclusion(l[index]!, index, size, path, root), `${index} of ${size}`);
        if (size > 1) assert.ok(!verifyInclusion(l[index]!, (index + 1) % size, size, path, root), "another index");
        // The root alone does not fix the size (a path can fit two sizes): the app hash binds them.
        assert.ok(!verifyInclusion(l[index]!, index, index, path, root), "a size that cannot hold the index");
        assert.ok(!verifyInclusion(flipped(l[index]!, index % 256), index, size, path, root), "a flipped leaf");
        path.forEach((_, i) => {
          const bad = path.map((h, j) => (j === i ? flipped(h, (index * 7 + i) % 256) : h));
          assert.ok(!verifyInclusion(l[index]!, index, size, bad, root), "a flipped path hash");
        });
        assert.ok(!verifyInclusion(l[index]!, index, size, path, flipped(root, 3)), "another root");
      }
    }
  });

  it("every pair of sizes 1 <= m <= n <= 40 has a consistency proof that verifies; a fork does not", () => {
    const l = leaves(40);
    const fork = [...l.slice(0, 20), ...leaves(20, "fork")];
    for (let n = 1; n <= 40; n++) {
      const toRoot = rootOf(l.slice(0, n));
      for (let m = 1; m <= n; m++) {
        const fromRoot = rootOf(l.slice(0, m));
        const proof = consistencyPath(leafNodes(l), m, n);
        assert.ok(verifyConsistency(m, n, fromRoot, toRoot, proof), `${m} -> ${n}`);
        proof.forEach((_, i) => {
          const bad = proof.map((h, j) => (j === i ? flipped(h, 5) : h));
          assert.ok(!verifyConsistency(m, n, fromRoot, toRoot, bad), `${m} -> ${n}, hash ${i} flipped`);
        });
        if (m < n) assert.ok(!verifyConsistency(m, n, flipped(fromRoot, 1), toRoot, proof), "another old root");
        // A history that rewrote leaf 20 (below m): its tree at n does not extend the original at m.
        if (m > 20) {
          const forkProof = consistencyPath(leafNodes(fork), m, n);
          assert.ok(!verifyConsistency(m, n, fromRoot, rootOf(fork.slice(0, n)), forkProof), `fork ${m} -> ${n}`);
        }
      }
    }
  });
});
