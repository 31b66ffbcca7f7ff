// Keeps CometBFT's signed headers in ledgerd's store, so that the proofs (http/routes/proofs.ts)
// outlive CometBFT's pruning (`engine.retain_blocks`). ABCI gives the app no signatures (its
// `decided_last_commit` names who voted, not their signatures), so the header and commit are read
// from CometBFT's RPC `commit`, as the proofs read them, and stored as CometBFT showed them.
// After the ledger committed height H, CometBFT holds block H, whose last commit is the
// canonical commit of H - 1: heights up to H - 1 are stored, each once, in order. A failed read
// (CometBFT restarting) is tried again after the next commit; until a height is stored, Commit's
// retain_height stays at or below it (`retainHeight`), so CometBFT never prunes a header
// ledgerd lacks. Headers CometBFT never had or pruned before this node stored them (a node
// started by state sync, or a store that predates this) are skipped: they cannot be had, and
// waiting for them would stop the pruning for good.
import type { Logger } from "pino";
import type { SignedHeader } from "../../proofs/verify.js";
import type { Store, StoredSignedHeader } from "../../store/store.js";

/** Headers stored in one write at most (about 1 KB each with a few validators). */
export const signedHeadersPerWriteMax = 64;

export interface SignedHeaderSource {
  signedHeader(height: number): Promise<SignedHeader>;
  /** The lowest height CometBFT still holds (its `status` earliest_block_height). */
  earliestHeight(): Promise<number>;
}

export class SignedHeaderKeeper {
  /** The highest height stored (every one below it is stored too, from the first one stored). */
  #stored: number;
  /** The last committed height told, to store up to (minus one). */
  #committed = 0;
  #running: Promise<void> | null = null;

  private constructor(
    private readonly store: Pick<Store, "putSignedHeaders">,
    private readonly source: SignedHeaderSource,
    private readonly retainBlocks: number,
    stored: number,
    private readonly logger?: Pick<Logger, "warn">,
  ) {
    this.#stored = stored;
  }

  static async open(
    store: Pick<Store, "putSignedHeaders" | "getSignedHeaderHeight">,
    source: SignedHeaderSource,
    retainBlocks: number,
    logger?: Pick<Logger, "warn">,
  ): Promise<SignedHeaderKeeper> {
    return new SignedHeaderKeeper(store, source, retainBlocks, await store.getSignedHeaderHeight(), logger);
  }

  /**
   * The ledger committed `height`: store the headers now canonical, in the background. Without
   * `retainBlocks` CometBFT keeps every header itself, so nothing is read or stored (no RPC call
   * a block); a node that turns pruning on later reads them from its first unstored height,
   * which CometBFT still holds, before its retain_height moves.
   */
  committed(height: number): void {
    if (this.retainBlocks === 0) return;
    this.#committed = Math.max(this.#committed, height);
    this.#running ??= this.#catchUp().finally(() => {
      this.#running = null;
    });
  }

  /** Resolves when the store holds every header the last `committed` made canonical, or a read failed. */
  async settled(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  /**
   * Commit's retain_height after `height`: 0 (keep everything) without `retainBlocks`; else the
   * last `retainBlocks` blocks, and never a height whose header is not stored yet.
   */
  retainHeight(height: number): number {
    if (this.retainBlocks === 0) return 0;
    const retain = Math.min(height - this.retainBlocks + 1, this.#stored + 1);
    return retain > 1 ? retain : 0;
  }

  /**
   * Reads the next headers, up to `signedHeadersPerWriteMax`, and stores them in one write (one
   * sync of the store, not one per block while the node catches up); on a failed read, those
   * read before it, then the failure.
   */
  async #storeSome(): Promise<void> {
    const read: StoredSignedHeader[] = [];
    const last = Math.min(this.#committed - 1, this.#stored + signedHeadersPerWriteMax);
    try {
      for (let height = this.#stored + 1; height <= last; height++) {
        read.push({ height, json: JSON.stringify(await this.source.signedHeader(height)) });
      }
    } finally {
      if (read.length > 0) {
        await this.store.putSignedHeaders(read);
        this.#stored = read[read.length - 1]!.height;
      }
    }
  }

  /** Moves past the heights below CometBFT's earliest; true if it did. */
  async #skipUnavailable(): Promise<boolean> {
    const earliest = await this.source.earliestHeight().catch(() => 0);
    if (earliest <= this.#stored + 1) return false;
    this.logger?.warn({ from: this.#stored + 1, to: earliest - 1 }, "CometBFT holds no block at these heights: their proofs carry no signed header");
    this.#stored = earliest - 1;
    return true;
  }

  async #catchUp(): Promise<void> {
    try {
      while (this.#stored < this.#committed - 1) await this.#storeSome();
    } catch (error) {
      if (await this.#skipUnavailable()) return this.#catchUp();
      this.logger?.warn({ err: error, height: this.#stored + 1 }, "CometBFT's signed header not stored yet; tried again after the next block");
    }
  }
}
