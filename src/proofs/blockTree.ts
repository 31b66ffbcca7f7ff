// A block's tree (commitment.ts) as the store keeps it: its perfect subtrees of 64 leaves and
// more are stored with the block, so that a proof in a block of thousands of transactions hashes
// one 64-leaf chunk and reads the rest, instead of rehashing the whole block (measured: a path
// in a 2,000-transaction block cost ~14 ms rebuilt, see BENCHMARKS.md "Issue #15"). About one row
// per 32 transactions. Pure, no IO.
import type { PerfectNode } from "./history.js";
import { transactionLeaf } from "./commitment.js";
import { nodeHash, rangeRoot, type Hash, type NodeSource } from "./merkle.js";

/** Perfect subtrees of 2^blockChunkLevel leaves or more are stored. */
export const blockChunkLevel = 6;

/** The block tree's root and the perfect subtrees a store keeps of it (none under 64 leaves). */
export function blockTree(ids: readonly string[]): { root: Hash; nodes: PerfectNode[] } {
  const levels: Hash[][] = [ids.map(transactionLeaf)];
  for (let level = 0; levels[level]!.length >= 2; level++) {
    const below = levels[level]!;
    const above: Hash[] = [];
    for (let i = 0; i + 1 < below.length; i += 2) above.push(nodeHash(below[i]!, below[i + 1]!));
    levels.push(above);
  }
  const nodes: PerfectNode[] = [];
  for (let level = blockChunkLevel; level < levels.length; level++) {
    levels[level]!.forEach((hash, index) => nodes.push({ level, index, hash }));
  }
  return { root: rangeRoot((level, index) => levels[level]![index]!, 0, ids.length), nodes };
}

/**
 * The block tree's perfect subtrees: below `blockChunkLevel` hashed from the ids (at most one
 * chunk of 64 leaves per call; `memo` keeps them for a second walk), from `stored` at and above it.
 */
export function blockNodes(ids: readonly string[], stored: NodeSource, memo = new Map<string, Hash>()): NodeSource {
  const node = (level: number, index: number): Hash => {
    if (level >= blockChunkLevel) return stored(level, index);
    const key = `${level}/${index}`;
    let hash = memo.get(key);
    if (hash === undefined) {
      hash = level === 0 ? transactionLeaf(ids[index]!) : nodeHash(node(level - 1, 2 * index), node(level - 1, 2 * index + 1));
      memo.set(key, hash);
    }
    return hash;
  };
  return node;
}
