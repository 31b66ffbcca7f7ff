// The proofs of docs/proofs.md, built from the store: a transaction's path in its block's tree
// and its block's path in the history tree up to an anchor height, and the consistency of the
// history between two heights. The history's nodes come from the store's perfect subtrees; a
// block's tree is rebuilt from its ids. The signed header (CometBFT) is added by the caller.
import assert from "node:assert/strict";
import { LedgerError } from "../errors/ledgerError.js";
import { blockNodes } from "../proofs/blockTree.js";
import { toHex } from "../proofs/encoding.js";
import { consistencyPath, inclusionPath, rangeRoot, type Hash, type NodeSource } from "../proofs/merkle.js";
import type { HistoryPoint, TransactionProof } from "../proofs/verify.js";
import { proofVersion } from "../proofs/verify.js";
import type { ChainState, NodePlace, ChainReads } from "../store/store.js";

export type UnsignedTransactionProof = Omit<TransactionProof, "signed_header">;
export type UnsignedHistoryPoint = Omit<HistoryPoint, "signed_header">;

/**
 * Runs `build` over the store's history nodes: once to learn which nodes it reads (their values
 * do not steer the walk), then with those nodes read in one batch.
 */
export async function withStoredNodes<T>(
  read: (places: readonly NodePlace[]) => Promise<(Uint8Array | null)[]>,
  build: (nodes: NodeSource) => T,
): Promise<T> {
  const wanted: NodePlace[] = [];
  const placeholder = new Uint8Array(32);
  build((level, index) => {
    wanted.push({ level, index });
    return placeholder;
  });
  const hashes = await read(wanted);
  const found = new Map<string, Hash>();
  wanted.forEach((place, i) => {
    const hash = hashes[i];
    assert.ok(hash !== null && hash !== undefined, `tree node (level ${place.level}, index ${place.index}) is not stored`);
    found.set(`${place.level}/${place.index}`, hash);
  });
  return build((level, index) => found.get(`${level}/${index}`)!);
}

export const withHistoryNodes = <T>(store: ChainReads, build: (nodes: NodeSource) => T): Promise<T> =>
  withStoredNodes((places) => store.getHistoryNodes(places), build);

/** The chain's head, read once; ProofsUnavailable on a chain that keeps BigchainDB's app hash. */
export async function provingState(store: ChainReads): Promise<ChainState> {
  const head = await store.getChainState();
  if (head.commitment !== "v1") {
    throw new LedgerError("ProofsUnavailable", "This chain keeps BigchainDB's app hash, which proves nothing; it has no proofs (docs/proofs.md, upgrading)");
  }
  return head;
}

export async function provingChain(store: ChainReads): Promise<number> {
  return (await provingState(store)).height;
}

interface ProvenBlock {
  readonly height: number;
  readonly appHash: string;
  readonly historySize: number;
}

async function blockAt(store: ChainReads, height: number): Promise<ProvenBlock> {
  const block = await store.getBlockHead(height);
  assert.ok(block !== null && block.historySize !== null, `block ${height} of a v1 chain has no history size`);
  return { height, appHash: block.appHash, historySize: block.historySize };
}

/** The height of the block that holds a committed transaction of either kind, or null. */
async function heightOf(store: ChainReads, id: string): Promise<number | null> {
  const height = await store.getBlockHeightOfTransaction(id);
  if (height !== null) return height;
  const legacy = await store.getLegacyRecord(id);
  return legacy?.status === "valid" ? legacy.height : null;
}

/**
 * The proof that transaction `id` is in the ledger whose app hash after `anchor` (default: the
 * last committed height) the proof reaches. NotFound when no committed transaction has that id
 * or the anchor is past the chain. When the transaction is after the anchor:
 * ProofHeightBeforeTransaction if the client asked for that anchor (`anchorAsked`), since no later
 * block changes it; else ProofNotYetSigned, since the default anchor moves on with the chain.
 */
export async function transactionProof(
  store: ChainReads,
  id: string,
  anchor?: number,
  anchorAsked: boolean = anchor !== undefined,
): Promise<UnsignedTransactionProof> {
  const head = await provingChain(store);
  const at = anchor ?? head;
  const height = await heightOf(store, id);
  if (height === null) throw new LedgerError("NotFound", "Not found");
  if (height > at && anchorAsked) {
    const message = `height: The transaction is in block ${height}, after height ${at}: ask for a height of ${height} or more`;
    throw new LedgerError("ProofHeightBeforeTransaction", message);
  }
  if (height > at) throw new LedgerError("ProofNotYetSigned", `The transaction is at height ${height}, after the height ${at} proved to; retry after the next block`);
  if (at > head) throw new LedgerError("NotFound", `No block at height ${at}`);
  const [block, ids] = await Promise.all([blockAt(store, height), store.getBlockIds(height)]);
  assert.ok(ids !== null, `block ${height} is missing`);
  const index = ids.indexOf(id);
  assert.ok(index >= 0, `${id} is not in block ${height}`);
  // The chunk of 64 around the transaction is hashed from the ids; the rest is read.
  const hashed = new Map<string, Hash>();
  const blockPath = await withStoredNodes(
    (places) => store.getBlockNodes(height, places),
    (stored) => inclusionPath(blockNodes(ids, stored, hashed), index, ids.length),
  );
  const end = await blockAt(store, at);
  const historyIndex = block.historySize - 1;
  const historyPath = await withHistoryNodes(store, (nodes) => inclusionPath(nodes, historyIndex, end.historySize));
  return {
    version: proofVersion,
    transaction_id: id,
    block: { height, index, size: ids.length, path: blockPath.map(toHex) },
    history: { index: historyIndex, size: end.historySize, path: historyPath.map(toHex) },
    height: at,
    app_hash: end.appHash,
  };
}

/** The proof that the history after `to` extends the one after `from` (heights, from ≤ to). */
export async function consistencyProof(store: ChainReads, from: number, to: number): Promise<{ from: UnsignedHistoryPoint; to: UnsignedHistoryPoint; path: string[] }> {
  const head = await provingChain(store);
  if (from < 1 || to > head) throw new LedgerError("NotFound", `No block at height ${from < 1 ? from : to}`);
  assert.ok(from <= to, "from is after to");
  const [first, last] = [await blockAt(store, from), await blockAt(store, to)];
  const point = (block: ProvenBlock, size: number, root: Hash): UnsignedHistoryPoint => ({ height: block.height, size, root: toHex(root), app_hash: block.appHash });
  return withHistoryNodes(store, (nodes) => {
    const path = first.historySize === 0 ? [] : consistencyPath(nodes, first.historySize, last.historySize);
    return {
      from: point(first, first.historySize, rangeRoot(nodes, 0, first.historySize)),
      to: point(last, last.historySize, rangeRoot(nodes, 0, last.historySize)),
      path: path.map(toHex),
    };
  });
}
