// Snapshots made wrong on purpose, for the state-sync tests: a snapshot folder as
// engine/cometbft/snapshotFiles.ts keeps it (`metadata.json`, `<i>.chunk`), changed in place.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChainCommitment } from "../../src/ledger/commitment.js";
import { restoredIdOf } from "../../src/ledger/kinds/registry.js";
import { ChunkLines, encodeMetadata, readBlockLine, readMetadata, SnapshotChunker, chunkHash, type SnapshotMetadata } from "../../src/ledger/snapshotFormat.js";
import type { BlockLine } from "../../src/ledger/blockLine.js";

export function readSnapshotMetadata(dir: string): SnapshotMetadata {
  const metadata = readMetadata(readFileSync(join(dir, "metadata.json")));
  if (typeof metadata === "string") throw new Error(metadata);
  return metadata;
}

/** The snapshot's metadata changed by `change`; its chunks as they were (its hash changes with it). */
export function editMetadata(dir: string, change: (metadata: SnapshotMetadata) => SnapshotMetadata): void {
  writeFileSync(join(dir, "metadata.json"), encodeMetadata(change(readSnapshotMetadata(dir))));
}

/** One byte of chunk `index` flipped; the metadata left as it was, so the chunk no longer hashes to it. */
export function corruptChunk(dir: string, index = 0): void {
  const path = join(dir, `${index}.chunk`);
  const bytes = readFileSync(path);
  bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
  writeFileSync(path, bytes);
}

/** The blocks a snapshot folder holds, in order. */
export function snapshotBlocks(dir: string): BlockLine[] {
  const metadata = readSnapshotMetadata(dir);
  const lines = new ChunkLines();
  const blocks: BlockLine[] = [];
  for (let i = 0; i < metadata.chunks.length; i++) {
    const texts = lines.push(readFileSync(join(dir, `${i}.chunk`)));
    if (typeof texts === "string") throw new Error(texts);
    for (const text of texts) {
      const block = readBlockLine(text);
      if (typeof block === "string") throw new Error(block);
      blocks.push(block);
    }
  }
  return blocks;
}

/**
 * A forgery that holds together: the last transaction of the last block that has one dropped,
 * every block's app hash recomputed for what is left, the chunks cut again and their hashes and
 * the count in the metadata made to match. Only the metadata's app hash stays the chain's (the
 * one the light client verifies), which the forged ledger no longer gives.
 */
export async function forgeLedger(dir: string): Promise<void> {
  const metadata = readSnapshotMetadata(dir);
  const blocks = snapshotBlocks(dir);
  const last = blocks.map((block) => block.txs.length > 0).lastIndexOf(true);
  if (last < 0) throw new Error("a snapshot without transactions cannot lose one");
  blocks[last] = { ...blocks[last]!, txs: blocks[last]!.txs.slice(0, -1) };
  const commitment = await ChainCommitment.open({ getHistoryNodes: () => Promise.resolve([]) }, { commitment: "v1", appHash: "", historySize: 0 });
  for (const [i, block] of blocks.entries()) {
    const staged = commitment.next(block.height, block.txs.map((json) => restoredIdOf(json)!));
    commitment.advance(staged);
    blocks[i] = { ...block, app_hash: staged.appHash };
  }
  for (const name of readdirSync(dir)) if (name.endsWith(".chunk")) rmSync(join(dir, name));
  const hashes: string[] = [];
  const chunker = new SnapshotChunker(async (chunk) => {
    writeFileSync(join(dir, `${hashes.length}.chunk`), chunk);
    hashes.push(chunkHash(chunk));
  });
  for (const block of blocks) await chunker.add(JSON.stringify(block));
  await chunker.end();
  writeFileSync(join(dir, "metadata.json"), encodeMetadata({ ...metadata, txs: metadata.txs - 1, chunks: hashes }));
}
