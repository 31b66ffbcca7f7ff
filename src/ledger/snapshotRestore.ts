// Restoring a ledger from a state-sync snapshot (docs/state-sync.md), in two passes over its
// chunks. The first (SnapshotVerifier) runs as the chunks arrive and writes nothing: it reads
// every block's line, recomputes each transaction's id from its body by its kind's rule, and
// folds the ids into the history tree (commitment v1) to the app hash CometBFT's light client
// verified. Only a snapshot that gives that hash reaches the second pass (restoreSnapshot),
// which commits the blocks through the ledger as a replay would, deriving every row the same
// way, but without checking signatures again: the app hash binds every id, every id its body.
import { misbehaviorOfLine, type BlockLine } from "./blockLine.js";
import { ChainCommitment } from "./commitment.js";
import { prepareRestored, restoredIdOf } from "./kinds/registry.js";
import type { LedgerApp } from "./ledgerApp.js";
import { ChunkLines, readBlockLine, type SnapshotMetadata } from "./snapshotFormat.js";

/** The first pass: the chunks in order, checked against the trusted app hash. */
export class SnapshotVerifier {
  private readonly lines = new ChunkLines();
  private height = 0;
  private txs = 0;

  private constructor(
    private readonly metadata: SnapshotMetadata,
    private readonly trustedAppHash: string,
    private readonly commitment: ChainCommitment,
  ) {}

  /** `trustedAppHash`: the app hash after the snapshot's height that the light client verified, hex. */
  static async start(metadata: SnapshotMetadata, trustedAppHash: string): Promise<SnapshotVerifier> {
    const empty = { commitment: "v1" as const, appHash: "", historySize: 0 };
    const commitment = await ChainCommitment.open({ getHistoryNodes: () => Promise.resolve([]) }, empty);
    return new SnapshotVerifier(metadata, trustedAppHash, commitment);
  }

  /** The next chunk: null when its blocks hold together so far, else why the snapshot is refused. */
  chunk(bytes: Uint8Array): string | null {
    const lines = this.lines.push(bytes);
    if (typeof lines === "string") return lines;
    for (const text of lines) {
      const line = readBlockLine(text);
      if (typeof line === "string") return line;
      const wrong = this.block(line);
      if (wrong !== null) return wrong;
    }
    return null;
  }

  private block(line: BlockLine): string | null {
    if (line.height !== this.height + 1) return `block ${line.height} follows block ${this.height}`;
    if (line.height > this.metadata.height) return `block ${line.height} is past the snapshot's height ${this.metadata.height}`;
    const ids: string[] = [];
    for (const [i, json] of line.txs.entries()) {
      const id = restoredIdOf(json);
      if (id === null) return `block ${line.height}: transaction ${i} hashes to no id`;
      ids.push(id);
    }
    const staged = this.commitment.next(line.height, ids);
    // Not trusted, but a line that disagrees with itself is refused at once.
    if (staged.appHash !== line.app_hash) return `block ${line.height}: app hash ${line.app_hash || '""'} in the snapshot, ${staged.appHash || '""'} recomputed`;
    this.commitment.advance(staged);
    this.height = line.height;
    this.txs += ids.length;
    return null;
  }

  /** After the last chunk: null when the blocks reach the snapshot's height and the trusted app hash. */
  finish(): string | null {
    if (!this.lines.ended) return "the last chunk ends inside a line";
    if (this.height !== this.metadata.height) return `the chunks hold blocks up to ${this.height}, the snapshot's height is ${this.metadata.height}`;
    if (this.txs !== this.metadata.txs) return `the chunks hold ${this.txs} transactions, the metadata says ${this.metadata.txs}`;
    const recomputed = this.commitment.appHash;
    if (recomputed !== this.trustedAppHash) {
      return `the ledger's app hash is ${recomputed || '""'} recomputed from its transactions, the light client verified ${this.trustedAppHash || '""'}`;
    }
    return null;
  }
}

/**
 * The second pass, on a snapshot the first accepted, into an empty ledger: the chain begun with
 * the snapshot's first validator set, then every block restored (LedgerApp.restoreBlock). Ends
 * at the snapshot's height and app hash, or throws.
 */
export async function restoreSnapshot(
  ledger: LedgerApp,
  metadata: SnapshotMetadata,
  chunks: AsyncIterable<Uint8Array>,
  onBlock?: (height: number) => void,
): Promise<void> {
  await ledger.initChain(metadata.chain_id, metadata.validators, "v1");
  const lines = new ChunkLines();
  for await (const chunk of chunks) {
    const texts = lines.push(chunk);
    if (typeof texts === "string") throw new Error(texts);
    for (const text of texts) {
      const line = readBlockLine(text);
      if (typeof line === "string") throw new Error(line);
      await ledger.restoreBlock(line.height, line.txs.map(prepareRestored), misbehaviorOfLine(line));
      onBlock?.(line.height);
    }
  }
  const { height, appHash } = ledger.info();
  if (height !== metadata.height || appHash !== metadata.app_hash) {
    throw new Error(`the restore ended at height ${height}, app hash ${appHash}; the snapshot is of ${metadata.height}, ${metadata.app_hash}`);
  }
}
