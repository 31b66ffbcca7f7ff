// Taking a state-sync snapshot (docs/state-sync.md): the blocks 1..H read from the store and cut
// into chunks (snapshotFormat.ts), each handed to `putChunk` as it fills, and the metadata made
// last. Blocks up to H never change once committed, so reading them while later blocks commit
// sees one consistent chain: no commit waits for a snapshot.
import { blockLineOf } from "./blockLine.js";
import { chunkHash, SnapshotChunker, snapshotKind, type RefusedLine, type SnapshotLine, type SnapshotMetadata } from "./snapshotFormat.js";
import type { ChainReads, RefusedLegacyTx } from "../store/store.js";

/** Blocks whose refused transactions are read at once: refusals are rare, one read covers many. */
const refusedReadBlocks = 1024;

/**
 * The snapshot of height `height` (committed: asserted by the read), its chunks to `putChunk`
 * in order; its metadata. `signedHeader` gives CometBFT's signed header of a height (compact
 * JSON) or null when there is none to give. Throws on a chain keeping BigchainDB's app hash, which no snapshot
 * can be checked against.
 */
export async function takeSnapshot(
  store: ChainReads,
  height: number,
  putChunk: (index: number, chunk: Buffer) => Promise<void>,
  signedHeader: (height: number) => Promise<string | null> = () => Promise.resolve(null),
): Promise<SnapshotMetadata> {
  const state = await store.getChainState();
  if (state.chainId === null) throw new Error("the ledger has no chain yet");
  if (state.commitment !== "v1") throw new Error("the chain keeps BigchainDB's app hash rule: a snapshot's ledger could not be checked against it (docs/proofs.md)");
  // A store begun before schema 7 learns its genesis's version after the start (docs/upgrades.md).
  if (state.appVersion === null) throw new Error("the chain's genesis protocol version is not recorded yet");
  const head = await store.getBlockHead(height);
  if (head === null) throw new Error(`block ${height} is not committed`);
  const validators = await store.getValidators(1);
  const hashes: string[] = [];
  const chunker = new SnapshotChunker(async (chunk) => {
    hashes.push(chunkHash(chunk));
    await putChunk(hashes.length - 1, chunk);
  });
  let txs = 0;
  let refusals: RefusedLegacyTx[] = [];
  let next = 0;
  for (let h = 1; h <= height; h++) {
    const contents = await store.getBlockContents(h);
    if (contents === null) throw new Error(`block ${h} is missing`);
    txs += contents.txs.length;
    if ((h - 1) % refusedReadBlocks === 0) {
      refusals = await store.getRefusedLegacyTxs(h, Math.min(height, h + refusedReadBlocks - 1));
      next = 0;
    }
    const refused: RefusedLine[] = [];
    for (; refusals[next]?.height === h; next++) refused.push({ at: refusals[next]!.position, tx: refusals[next]!.json });
    // The header that carries this block's app hash; the last block's has none yet.
    const header = h < height ? await signedHeader(h + 1) : null;
    const line: SnapshotLine = {
      ...blockLineOf(contents),
      ...(header === null ? {} : { signed_header: header }),
      ...(refused.length === 0 ? {} : { refused }),
    };
    await chunker.add(JSON.stringify(line));
  }
  await chunker.end();
  return {
    format: snapshotKind,
    chain_id: state.chainId,
    commitment: state.commitment,
    app_version: String(state.appVersion),
    rule_heights: Object.fromEntries(state.ruleHeights),
    height,
    app_hash: head.appHash,
    txs,
    validators,
    chunks: hashes,
  };
}
