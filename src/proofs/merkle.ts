// Merkle trees as RFC 9162 (Certificate Transparency 2.0) §2.1 defines them: SHA-256, leaf
// hashes `H(0x00 || data)` and node hashes `H(0x01 || left || right)` (domain separated, so a
// leaf can never pass for a node), the tree of n leaves split at the largest power of two below
// n. Inclusion and consistency proofs are O(log n) hashes; their verification is RFC 9162's
// algorithm (§2.1.3.2, §2.1.4.2). Pure, no IO: the verifier (verify.ts) runs in a browser too.
//
// A proof's leaves and nodes come from a `NodeSource`: the hash of a perfect subtree (2^level
// leaves, aligned), which a store keeps for a large tree (the history) and a small one (a block's
// transactions) computes from its leaves.
import { sha256 } from "./sha256.js";

export type Hash = Uint8Array;

const leafPrefix = Uint8Array.of(0x00);
const nodePrefix = Uint8Array.of(0x01);

export function leafHash(data: Uint8Array): Hash {
  return sha256(leafPrefix, data);
}

export function nodeHash(left: Hash, right: Hash): Hash {
  return sha256(nodePrefix, left, right);
}

/** The hash of the empty tree: SHA-256 of nothing (RFC 9162 §2.1.1). */
export const emptyRoot: Hash = sha256();

/** The hash of the perfect subtree of `2^level` leaves starting at leaf `index * 2^level`. */
export type NodeSource = (level: number, index: number) => Hash;

/** Exact for every safe integer (bitwise operators cut to 32 bits; log2 rounds near 2^53). */
function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

/** The largest power of two below `n` (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH of leaves [start, start + size), from perfect subtrees (start is aligned to them). */
export function rangeRoot(nodes: NodeSource, start: number, size: number): Hash {
  if (size === 0) return emptyRoot;
  if (isPowerOfTwo(size) && start % size === 0) return nodes(Math.round(Math.log2(size)), start / size);
  const k = split(size);
  return nodeHash(rangeRoot(nodes, start, k), rangeRoot(nodes, start + k, size - k));
}

/** A NodeSource over leaf hashes in memory (a block's transactions): O(2^level) per call. */
export function leafNodes(leaves: readonly Hash[]): NodeSource {
  const node = (level: number, index: number): Hash => {
    if (level === 0) return leaves[index]!;
    return nodeHash(node(level - 1, 2 * index), node(level - 1, 2 * index + 1));
  };
  return node;
}

/** The root of a whole list of leaf hashes. */
export function rootOf(leaves: readonly Hash[]): Hash {
  return rangeRoot(leafNodes(leaves), 0, leaves.length);
}

/** The audit path of leaf `index` in the tree of the first `size` leaves (RFC 9162 PATH). */
export function inclusionPath(nodes: NodeSource, index: number, size: number): Hash[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path: Hash[] = [];
  let start = 0;
  let n = size;
  let m = index;
  // Walk down from the root, collecting the sibling of each subtree that holds the leaf.
  while (n > 1) {
    const k = split(n);
    if (m < k) {
      path.push(rangeRoot(nodes, start + k, n - k));
      n = k;
    } else {
      path.push(rangeRoot(nodes, start, k));
      start += k;
      m -= k;
      n -= k;
    }
  }
  return path.reverse();
}

/** The proof that the tree of `to` leaves extends the tree of `from` (RFC 9162 PROOF). */
export function consistencyPath(nodes: NodeSource, from: number, to: number): Hash[] {
  if (!(from >= 1 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  const proof: Hash[] = [];
  // SUBPROOF(m, D[start:start+n], b), iteratively.
  let start = 0;
  let n = to;
  let m = from;
  let whole = true;
  while (m !== n) {
    const k = split(n);
    if (m <= k) {
      proof.push(rangeRoot(nodes, start + k, n - k));
      n = k;
    } else {
      proof.push(rangeRoot(nodes, start, k));
      start += k;
      m -= k;
      n -= k;
      whole = false;
    }
  }
  if (!whole) proof.push(rangeRoot(nodes, start, n));
  return proof.reverse();
}

function equal(a: Hash, b: Hash): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The walk up the tree both verifications share (RFC 9162 §2.1.3.2, §2.1.4.2): `fn` is the
 * index of the node proved, `sn` the last index, at each level. Each proof hash is a left
 * sibling (`left`) or a right one (`right`); true when the walk ends at the root.
 */
function walkUp(fn: number, sn: number, proof: readonly Hash[], left: (h: Hash) => void, right: (h: Hash) => void): boolean {
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      left(p);
      // A right edge node: climb to where it is a right child again.
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      right(p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0;
}

/**
 * RFC 9162 §2.1.3.2: the root `path` leads to from `leaf` as leaf `index` of a tree of `size`,
 * or null when the path does not fit that index and size.
 */
export function inclusionRoot(leaf: Hash, index: number, size: number, path: readonly Hash[]): Hash | null {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return null;
  let r = leaf;
  const walked = walkUp(index, size - 1, path, (p) => (r = nodeHash(p, r)), (p) => (r = nodeHash(r, p)));
  return walked ? r : null;
}

/** Whether `path` proves `leaf` is leaf `index` of the tree of `size` with `root`. */
export function verifyInclusion(leaf: Hash, index: number, size: number, path: readonly Hash[], root: Hash): boolean {
  const reached = inclusionRoot(leaf, index, size, path);
  return reached !== null && equal(reached, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree (`to`, `toRoot`) extends (`from`, `fromRoot`). */
export function verifyConsistency(from: number, to: number, fromRoot: Hash, toRoot: Hash, proof: readonly Hash[]): boolean {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 1 && from <= to)) return false;
  if (from === to) return proof.length === 0 && equal(fromRoot, toRoot);
  // A first tree that is a perfect, left-aligned subtree is its own first node.
  const path = isPowerOfTwo(from) ? [fromRoot, ...proof] : proof;
  const first = path[0];
  if (first === undefined) return false;
  // Start at the lowest node that holds the first tree's last leaf as a right edge.
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = first;
  let sr = first;
  const left = (c: Hash): void => {
    fr = nodeHash(c, fr);
    sr = nodeHash(c, sr);
  };
  const walked = walkUp(fn, sn, path.slice(1), left, (c) => (sr = nodeHash(sr, c)));
  return walked && equal(fr, fromRoot) && equal(sr, toRoot);
}
