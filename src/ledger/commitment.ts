// The app hash chain, by the chain's rule (docs/proofs.md): `v1` folds each block with a valid
// transaction into the history tree (proofs/commitment.ts) and hashes its root; `bigchaindb`
// is BigchainDB 2.2.2's rule (appHash.ts), kept by chains begun before v1 existed. The edge of
// the history tree is held here, loaded from the store when the ledger opens.
import assert from "node:assert/strict";
import { blockTree } from "../proofs/blockTree.js";
import { appHashV1, blockLeaf, type CommitmentVersion } from "../proofs/commitment.js";
import { edgeOf, HistoryEdge } from "../proofs/history.js";
import type { BlockWrite, ChainState, SharedReads } from "../store/store.js";
import { nextAppHash } from "./appHash.js";

/** The next block's app hash and what the store writes for it, until the block is committed. */
export interface StagedCommitment {
  readonly appHash: string;
  readonly history: BlockWrite["history"];
  readonly edge: HistoryEdge | null;
}

/** Where a chain stands, as far as its app hash goes. */
export type CommitmentState = Pick<ChainState, "commitment" | "appHash" | "historySize">;

export class ChainCommitment {
  private constructor(
    readonly version: CommitmentVersion,
    private hash: string,
    private edge: HistoryEdge | null,
  ) {}

  /**
   * The chain's rule and, on a `v1` chain, its history's edge read from the store (asserted
   * present and giving `state.appHash`).
   */
  static async open(store: Pick<SharedReads, "getHistoryNodes">, state: CommitmentState): Promise<ChainCommitment> {
    if (state.commitment === "bigchaindb") return new ChainCommitment("bigchaindb", state.appHash, null);
    const places = edgeOf(state.historySize);
    const hashes = await store.getHistoryNodes(places);
    const missing = hashes.findIndex((hash) => hash === null);
    assert.equal(missing, -1, `the history's edge node ${JSON.stringify(places[missing])} is not stored`);
    const edge = HistoryEdge.of(state.historySize, hashes as Uint8Array[]);
    assert.equal(appHashV1(edge.size, edge.root()), state.appHash, "the stored history does not give the stored app hash");
    return new ChainCommitment("v1", state.appHash, edge);
  }

  /** The app hash after the last block advanced to. */
  get appHash(): string {
    return this.hash;
  }

  /** The app hash after a block of `height` whose valid transactions have these ids, in block order. */
  next(height: number, ids: readonly string[]): StagedCommitment {
    const edge = this.edge;
    if (edge === null) return { appHash: nextAppHash(this.hash, ids), history: undefined, edge: null };
    // A block with no valid transaction changes nothing (see proofs/commitment.ts).
    if (ids.length === 0) return { appHash: this.hash, history: { size: edge.size, nodes: [], blockNodes: [] }, edge };
    const tree = blockTree(ids);
    const appended = edge.append(blockLeaf(height, ids.length, tree.root));
    const appHash = appHashV1(appended.edge.size, appended.edge.root());
    return { appHash, history: { size: appended.edge.size, nodes: appended.completed, blockNodes: tree.nodes }, edge: appended.edge };
  }

  /** The staged block is committed. */
  advance(staged: StagedCommitment): void {
    this.hash = staged.appHash;
    this.edge = staged.edge;
  }
}
