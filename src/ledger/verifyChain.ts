// `ledgerd verify-chain`: re-derives every stored block from the stored transactions and reports
// the first height that disagrees (an edited or corrupted store). Each transaction's JSON must
// hash to the id it is stored under (its kind's id rule), and the app hash chain, recomputed
// from those ids in block order by the chain's rule (docs/proofs.md), must give every block's
// stored app hash and the chain state's. On a `v1` chain the history tree is rebuilt too, and
// every perfect subtree the store keeps for proofs must be the one recomputed. Every row the
// store derived from the transactions (outputs, spends, indexes, search text, field index) must
// be what the transactions, re-derived from their JSON by their kind's rules, give: the reads
// answer from those rows, not from the JSON the ids cover (docs/verify-chain.md).
// It only reads: run it on a stopped node's store, a copy, or beside a running node.
import { ChainCommitment } from "./commitment.js";
import { kindNamed } from "./kinds/registry.js";
import type { CommitmentVersion } from "../proofs/commitment.js";
import { toHex } from "../proofs/encoding.js";
import type { PerfectNode } from "../proofs/history.js";
import type { BlockContents, BlockWrite, DerivedBlock, DerivedCheck, ChainReads } from "../store/store.js";
import type { CommittedLegacyTx } from "../legacy/committed.js";
import type { CommittedTx } from "../transaction/committed.js";

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

export async function verifyChain(store: ChainReads, options: VerifyChainOptions = {}): Promise<ChainReport> {
  const from = Math.max(1, options.from ?? 1);
  const head = await store.getChainState();
  const fault = (height: number, reason: string, txs: number): ChainReport => ({ from, to: height, txs, fault: { height, reason } });
  // The ledger's own app hash chain, started where the walk starts.
  const start = await startBefore(store, head.commitment, from);
  if (typeof start === "string") return fault(from - 1, start, 0);
  if (from > head.height) return { from, to: head.height, txs: 0, fault: null };
  // Opened after the chain state was read: its snapshot holds every block the walk reads.
  const derived = await store.openDerivedCheck(from);
  try {
    const walked = await walkBlocks(store, derived, start, { from, to: head.height }, options);
    if (walked.fault !== null) return walked;
    const leftOver = await derived.finish();
    if (leftOver !== null) return fault(head.height, leftOver, walked.txs);
    if (start.appHash !== head.appHash) {
      return fault(head.height, `the chain state's app hash ${head.appHash} is not the last block's ${start.appHash}`, walked.txs);
    }
    return walked;
  } finally {
    await derived.close();
  }
}

/** Checks the blocks `range.from` to `range.to`, advancing `commitment` over them. */
async function walkBlocks(
  store: ChainReads,
  derived: DerivedCheck,
  commitment: ChainCommitment,
  range: { from: number; to: number },
  options: VerifyChainOptions,
): Promise<ChainReport> {
  let txs = 0;
  const fault = (height: number, reason: string): ChainReport => ({ ...range, to: height, txs, fault: { height, reason } });
  for (let height = range.from; height <= range.to; height++) {
    let contents;
    try {
      contents = await store.getBlockContents(height);
    } catch (error) {
      return fault(height, `the block cannot be read: ${messageOf(error)}`);
    }
    if (contents === null) return fault(height, "the block is missing");
    const block = rederived(contents);
    if (typeof block === "string") return fault(height, block);
    const rows = await derived.block(block);
    if (rows !== null) return fault(height, rows);
    txs += contents.txs.length;
    const staged = commitment.next(height, contents.txs.map((tx) => tx.id));
    const differs = staged.history === undefined ? null : await storedHistoryDiffers(store, contents, staged.history);
    if (differs !== null) return fault(height, differs);
    if (staged.appHash !== contents.appHash) {
      return fault(height, `app hash ${contents.appHash || '""'} stored, ${staged.appHash || '""'} recomputed`);
    }
    commitment.advance(staged);
    options.onProgress?.(height, range.to, txs);
  }
  return { ...range, txs, fault: null };
}

/**
 * The block's transactions as their kinds derive them from the stored JSON, or why one cannot
 * be: its JSON hashes to another id, or no longer passes its kind's rules.
 */
function rederived(contents: BlockContents): DerivedBlock | string {
  const txs: CommittedTx[] = [];
  const legacy: CommittedLegacyTx[] = [];
  for (const [i, tx] of contents.txs.entries()) {
    const kind = kindNamed(tx.kind);
    const id = kind.storedId(tx.json);
    if (id !== tx.id) {
      const found = id === null ? "hashes to no id" : `hashes to ${id}`;
      return `transaction ${i} (${tx.kind}) stored as ${tx.id} ${found}`;
    }
    const write = kind.stored(tx.json, i);
    if (typeof write === "string") return `transaction ${i} (${tx.kind}) ${tx.id}: ${write}`;
    txs.push(...(write.txs ?? []));
    legacy.push(...(write.legacy?.txs ?? []));
  }
  return { height: contents.height, txs, ...(legacy.length === 0 ? {} : { legacy: { txs: legacy, invalid: [] } }) };
}

/** The chain's app hash rule as it stood before `from`, read from the store; or why it cannot be. */
async function startBefore(store: ChainReads, rule: CommitmentVersion, from: number): Promise<ChainCommitment | string> {
  if (from === 1) return ChainCommitment.open(store, { commitment: rule, appHash: "", historySize: 0 });
  const before = await store.getBlockHead(from - 1);
  if (before === null) return "no such block to start after";
  if (rule === "v1" && before.historySize === null) return "the block has no history size on a v1 chain";
  try {
    return await ChainCommitment.open(store, { commitment: rule, appHash: before.appHash, historySize: before.historySize ?? 0 });
  } catch (error) {
    return `the history before it cannot be read: ${messageOf(error)}`;
  }
}

/**
 * Null when the store keeps what the block added to the history (its size after the block, each
 * perfect subtree of the history and of the block's tree), else which one differs.
 */
async function storedHistoryDiffers(store: ChainReads, contents: BlockContents, history: NonNullable<BlockWrite["history"]>): Promise<string | null> {
  const differs =
    sameNodes("history", history.nodes, await store.getHistoryNodes(history.nodes)) ??
    sameNodes("block tree", history.blockNodes, await store.getBlockNodes(contents.height, history.blockNodes));
  if (differs !== null) return differs;
  if (contents.historySize !== history.size) return `history size ${String(contents.historySize)} stored, ${history.size} recomputed`;
  return null;
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
