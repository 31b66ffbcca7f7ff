// `ledgerd verify-chain`: re-derives every stored block from the stored transactions and reports
// the first height that disagrees (an edited or corrupted store). Each transaction's JSON must
// hash to the id it is stored under (its kind's id rule), and the app hash chain, recomputed
// from those ids in block order by the chain's rule (docs/proofs.md), must give every block's
// stored app hash and the chain state's. On a `v1` chain the history tree is rebuilt too, and
// every perfect subtree the store keeps for proofs must be the one recomputed.
// It only reads: run it on a stopped node's store, a copy, or beside a running node.
import { nextAppHash } from "./appHash.js";
import { kindNamed } from "./kinds/registry.js";
import { blockTree } from "../proofs/blockTree.js";
import { appHashV1, blockLeaf, toHex } from "../proofs/commitment.js";
import { edgeOf, HistoryEdge, type PerfectNode } from "../proofs/history.js";
import type { BlockContents, Store } from "../store/store.js";

export interface ChainFault {
  readonly height: number;
  readonly reason: string;
}

export interface ChainReport {
  readonly from: number;
  /** The last height checked (the chain's height when the walk ended at a fault-free chain). */
  readonly to: number;
  readonly txs: number;
  readonly fault: ChainFault | null;
}

export interface VerifyChainOptions {
  /** The first height to check (the app hash before it is taken as stored). Default 1. */
  readonly from?: number;
  /** Called now and then with the height reached. */
  readonly onProgress?: (height: number, of: number, txs: number) => void;
}

export async function verifyChain(store: Store, options: VerifyChainOptions = {}): Promise<ChainReport> {
  const from = Math.max(1, options.from ?? 1);
  const head = await store.getChainState();
  let txs = 0;
  const fault = (height: number, reason: string): ChainReport => ({ from, to: height, txs, fault: { height, reason } });
  let previous = "";
  // On a v1 chain, the history's edge before `from` (read from the store when starting later).
  let edge: HistoryEdge | null = head.commitment === "v1" ? HistoryEdge.empty() : null;
  if (from > 1) {
    const before = await store.getBlock(from - 1);
    if (before === null) return fault(from - 1, "no such block to start after");
    previous = before.appHash;
    if (edge !== null) {
      const started = await edgeAt(store, before.historySize);
      if (typeof started === "string") return fault(from - 1, started);
      edge = started;
    }
  }
  for (let height = from; height <= head.height; height++) {
    let contents;
    try {
      contents = await store.getBlockContents(height);
    } catch (error) {
      return fault(height, `the block cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (contents === null) return fault(height, "the block is missing");
    for (const [i, tx] of contents.txs.entries()) {
      const id = kindNamed(tx.kind).storedId(tx.json);
      if (id !== tx.id) {
        const found = id === null ? "hashes to no id" : `hashes to ${id}`;
        return fault(height, `transaction ${i} (${tx.kind}) stored as ${tx.id} ${found}`);
      }
    }
    txs += contents.txs.length;
    const ids = contents.txs.map((tx) => tx.id);
    let expected: string;
    if (edge === null) {
      expected = nextAppHash(previous, ids);
    } else {
      const next = await nextHistory(store, edge, contents, ids);
      if (typeof next === "string") return fault(height, next);
      edge = next;
      expected = appHashV1(edge.size, edge.root());
    }
    if (expected !== contents.appHash) {
      return fault(height, `app hash ${contents.appHash || '""'} stored, ${expected || '""'} recomputed`);
    }
    previous = expected;
    options.onProgress?.(height, head.height, txs);
  }
  if (head.height >= from && previous !== head.appHash) {
    return fault(head.height, `the chain state's app hash ${head.appHash} is not the last block's ${previous}`);
  }
  return { from, to: head.height, txs, fault: null };
}

/** Null when the stored hashes are the recomputed nodes, else which one differs. */
function sameNodes(tree: string, recomputed: readonly PerfectNode[], stored: readonly (Uint8Array | null)[]): string | null {
  for (const [i, node] of recomputed.entries()) {
    const hash = stored[i];
    const expected = toHex(node.hash);
    if (hash === null || hash === undefined || toHex(hash) !== expected) {
      const found = hash === null || hash === undefined ? "missing" : toHex(hash);
      return `${tree} node (level ${node.level}, index ${node.index}) stored ${found}, ${expected} recomputed`;
    }
  }
  return null;
}

/** The edge of the stored history of `size` leaves, or why it cannot be read. */
async function edgeAt(store: Store, size: number | null): Promise<HistoryEdge | string> {
  if (size === null) return "the block has no history size on a v1 chain";
  const hashes = await store.getHistoryNodes(edgeOf(size));
  if (hashes.some((hash) => hash === null)) return "the history's edge is not stored";
  return HistoryEdge.of(size, hashes as Uint8Array[]);
}

/**
 * The history after a block, checked against what the store keeps: the block's history size,
 * and each perfect subtree the block completed. Or why they disagree.
 */
async function nextHistory(store: Store, edge: HistoryEdge, contents: BlockContents, ids: readonly string[]): Promise<HistoryEdge | string> {
  let next = edge;
  if (ids.length > 0) {
    const tree = blockTree(ids);
    const appended = edge.append(blockLeaf(contents.height, ids.length, tree.root));
    const differs =
      sameNodes("history", appended.completed, await store.getHistoryNodes(appended.completed)) ??
      sameNodes("block tree", tree.nodes, await store.getBlockNodes(contents.height, tree.nodes));
    if (differs !== null) return differs;
    next = appended.edge;
  }
  if (contents.historySize !== next.size) return `history size ${String(contents.historySize)} stored, ${next.size} recomputed`;
  return next;
}
