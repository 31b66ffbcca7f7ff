// `ledgerd verify-chain`: re-derives every stored block from the stored transactions and reports
// the first height that disagrees (an edited or corrupted store). Each transaction's JSON must
// hash to the id it is stored under (its kind's id rule), and the app hash chain, recomputed
// from those ids in block order, must give every block's stored app hash and the chain state's.
// It only reads: run it on a stopped node's store, a copy, or beside a running node.
import { nextAppHash } from "./appHash.js";
import { kindNamed } from "./kinds/registry.js";
import type { Store } from "../store/store.js";

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
  if (from > 1) {
    const before = await store.getBlock(from - 1);
    if (before === null) return fault(from - 1, "no such block to start after");
    previous = before.appHash;
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
    const expected = nextAppHash(previous, contents.txs.map((tx) => tx.id));
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
