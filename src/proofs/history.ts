// The history tree's growing edge. The history is an RFC 9162 tree (merkle.ts) that only ever
// appends; its root needs only the perfect subtrees along its right edge (one per set bit of the
// size, largest first), so the ledger keeps those in memory and the store keeps every perfect
// subtree ever completed (two per leaf, amortised) to build proofs from. Pure, no IO.
import { nodeHash, emptyRoot, type Hash } from "./merkle.js";

/** A perfect subtree: 2^level leaves starting at leaf `index * 2^level`. */
export interface PerfectNode {
  readonly level: number;
  readonly index: number;
  readonly hash: Hash;
}

/** Where the perfect subtrees of a tree of `size` leaves along its right edge are, largest first. */
export function edgeOf(size: number): { level: number; index: number }[] {
  const edge: { level: number; index: number }[] = [];
  let start = 0;
  for (let level = 52; level >= 0; level--) {
    const width = 2 ** level;
    if (size - start >= width) {
      edge.push({ level, index: start / width });
      start += width;
    }
  }
  return edge;
}

export class HistoryEdge {
  /** The right edge's perfect subtrees, largest first. */
  readonly #edge: PerfectNode[];
  readonly #size: number;

  private constructor(size: number, edge: PerfectNode[]) {
    this.#size = size;
    this.#edge = edge;
  }

  static empty(): HistoryEdge {
    return new HistoryEdge(0, []);
  }

  /** The edge of a tree of `size` leaves from its perfect subtrees (as `edgeOf` lists them). */
  static of(size: number, hashes: readonly Hash[]): HistoryEdge {
    const places = edgeOf(size);
    if (places.length !== hashes.length) throw new RangeError(`a tree of ${size} has ${places.length} edge nodes, not ${hashes.length}`);
    return new HistoryEdge(size, places.map((p, i) => ({ ...p, hash: hashes[i]! })));
  }

  get size(): number {
    return this.#size;
  }

  /** The tree's root (RFC 9162 MTH): the edge folded from its smallest subtree up. */
  root(): Hash {
    const edge = this.#edge;
    if (edge.length === 0) return emptyRoot;
    let root = edge[edge.length - 1]!.hash;
    for (let i = edge.length - 2; i >= 0; i--) root = nodeHash(edge[i]!.hash, root);
    return root;
  }

  /**
   * The edge after appending `leaf` (a leaf hash), and the perfect subtrees the leaf completed
   * (the leaf itself first): what a store keeps. This edge is left as it was.
   */
  append(leaf: Hash): { edge: HistoryEdge; completed: PerfectNode[] } {
    const edge = this.#edge.slice();
    let node: PerfectNode = { level: 0, index: this.#size, hash: leaf };
    const completed = [node];
    // A binary counter: equal-sized subtrees at the end merge into one twice their size.
    while (edge.length > 0 && edge[edge.length - 1]!.level === node.level) {
      const left = edge.pop()!;
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(left.hash, node.hash) };
      completed.push(node);
    }
    edge.push(node);
    return { edge: new HistoryEdge(this.#size + 1, edge), completed };
  }
}
