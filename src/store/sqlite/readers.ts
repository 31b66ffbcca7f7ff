// The reads of the Store interface, as functions of one connection. The store runs each inside
// `reading` (a snapshot that has caught up with the writer, in a read-only store).

import assert from "node:assert/strict";
import { legacyOutputKey, type LegacyOutputRef } from "../../legacy/committed.js";
import { outputKey, type Operation, type OutputRef } from "../../transaction/committed.js";
import type {
  BlockRecord,
  ChainState,
  LegacyRecord,
  StoredLegacyOutput,
  StoredOutput,
  Validator,
  ValidatorSet,
  ElectionRecord,
  Evidence,
  BlockContents,
  RefusedLegacyTx,
  NodePlace,
  StoredBlockTx,
  StreamBlockPage,
  StreamBlockRecord,
} from "../store.js";
import { inBlockOrder } from "../blockOrder.js";
import { pageOfHeads, seqRangeOf, streamBlocksOf, type StreamBlockHead, type StreamTxRow } from "../streamBlocks.js";
import type { Connection } from "./connection.js";
import { keyHash } from "./keyHash.js";
import { idsAt, legacyOutputsAt, legacySeqsOf, outputsAt, seqsOf, spendersOf } from "./lookups.js";
import { chainRulesOfColumns } from "../chainRules.js";
import { placeKey, type Place } from "./places.js";
import type { BlockRow, ChainStateRow, RefusalRow, SeqJsonRow } from "./rows.js";

export function readChainState(c: Connection): ChainState {
  const row = c.read.chainState.get() as ChainStateRow;
  return {
    height: row.height,
    appHash: row.appHash,
    chainId: row.chainId,
    commitment: row.commitment,
    historySize: row.historySize,
    ...chainRulesOfColumns(row.appVersion, row.ruleHeights),
  };
}

export function readOutputs(c: Connection, refs: readonly OutputRef[]): Map<string, StoredOutput> {
  const seqs = seqsOf(c, refs.map((ref) => ref.transactionId));
  const places: Place[] = [];
  for (const ref of refs) {
    const seq = seqs.get(ref.transactionId);
    if (seq !== undefined) places.push([seq, ref.outputIndex]);
  }
  const rows = outputsAt(c, places);
  const spenders = spendersOf(c, places);
  const spenderIds = idsAt(c, spenders.values());
  const outputs = new Map<string, StoredOutput>();
  for (const ref of refs) {
    const seq = seqs.get(ref.transactionId);
    const row = seq === undefined ? undefined : rows.get(placeKey(seq, ref.outputIndex));
    if (seq === undefined || row === undefined) continue;
    const spender = spenders.get(placeKey(seq, ref.outputIndex));
    outputs.set(outputKey(ref), {
      transactionId: ref.transactionId,
      outputIndex: ref.outputIndex,
      assetId: row.assetId,
      amount: BigInt(row.amount),
      conditionUri: row.conditionUri,
      publicKeys: JSON.parse(row.publicKeys) as string[],
      spentBy: spender === undefined ? null : (spenderIds.get(spender) as string),
    });
  }
  return outputs;
}

export function readTransaction(c: Connection, id: string): string | null {
  for (const [seq] of c.index.ids.lookup(keyHash(id))) {
    const json = c.read.txJsonAt.get(seq, id) as string | undefined;
    if (json !== undefined) return json;
  }
  return null;
}

/** The last transaction of an asset (with `operation`, the last of that kind), or none. */
export function readLastTransactionOfAsset(
  c: Connection,
  assetId: string,
  operation: Operation | undefined,
): string[] {
  const hash = keyHash(assetId);
  let last: SeqJsonRow | undefined;
  // The CREATE is the transaction whose id is the asset id.
  if (operation !== "TRANSFER") {
    for (const [seq] of c.index.ids.lookup(hash)) {
      const json = c.read.createAt.get(seq, assetId) as string | undefined;
      if (json !== undefined) last = { seq: seq as number, json };
    }
  }
  // The TRANSFERs name the asset. Waiting index rows are newer than merged ones.
  if (operation !== "CREATE") {
    let waiting: SeqJsonRow | undefined;
    for (const row of c.index.assets.waitingRows(hash)) {
      const seq = row[1] as number;
      const json = c.read.transferAt.get(seq, assetId) as string | undefined;
      if (json === undefined || (waiting !== undefined && seq < waiting.seq)) continue;
      waiting = { seq, json };
    }
    const merged = () => c.read.lastTransferOfAsset.get(hash, assetId) as SeqJsonRow | undefined;
    const transfer = waiting ?? merged();
    if (transfer !== undefined && (last === undefined || transfer.seq > last.seq)) last = transfer;
  }
  return last === undefined ? [] : [last.json];
}

export function readBlock(c: Connection, height: number): BlockRecord | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  if (row === undefined) return null;
  const end = row.seqFirst + row.txCount;
  const txIds = c.read.txIdsBySeqRange.all(row.seqFirst, end) as string[];
  assert.equal(txIds.length, row.txCount, `block ${height} lost transactions`);
  return { height, appHash: row.appHash, txIds, historySize: row.historySize };
}

/** The event streams' replay read (store.ts getStreamBlocks), in the caller's snapshot. */
export function readStreamBlocks(c: Connection, from: number, page: StreamBlockPage): StreamBlockRecord[] {
  const heads = pageOfHeads(c.read.streamHeads.all(from, page.blocksMax) as StreamBlockHead[], page);
  // Nothing stored from there (a replay caught up): no second read.
  if (heads.length === 0) return [];
  const { first, end } = seqRangeOf(heads);
  return streamBlocksOf(heads, c.read.streamTxs.all(first, end) as StreamTxRow[]);
}

export function readHistoryNodes(c: Connection, places: readonly NodePlace[]): (Uint8Array | null)[] {
  return hashesAt(places, ({ level, index }) => c.read.historyNode.get(level, index));
}

export function readBlockNodes(c: Connection, height: number, places: readonly NodePlace[]): (Uint8Array | null)[] {
  return hashesAt(places, ({ level, index }) => c.read.blockNode.get(height, level, index));
}

/** The stored hash at each place (a plain Uint8Array, not a Buffer), or null where none is. */
function hashesAt(places: readonly NodePlace[], read: (place: NodePlace) => unknown): (Uint8Array | null)[] {
  return places.map((place) => {
    const hash = read(place) as Buffer | undefined;
    return hash === undefined ? null : new Uint8Array(hash);
  });
}

export function readBlockContents(c: Connection, height: number): BlockContents | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  if (row === undefined) return null;
  const v2 = c.read.txRowsBySeqRange.all(row.seqFirst, row.seqFirst + row.txCount) as { id: string; json: string }[];
  const legacy = c.read.legacyTxsAtHeight.all(height) as { position: number; id: string; json: string }[];
  const txs = inBlockOrder<StoredBlockTx>(
    v2.map((tx) => ({ kind: "v2", ...tx })),
    legacy.map((tx) => ({ position: tx.position, item: { kind: "legacy", id: tx.id, json: tx.json } })),
  );
  return { height, appHash: row.appHash, txs, historySize: row.historySize, evidence: readEvidenceAfter(c, [height, -1], height, height, Number.MAX_SAFE_INTEGER) };
}

/** The refused legacy transactions with a body of blocks `from` to `to` (store.ts getRefusedLegacyTxs). */
export function readRefusedLegacyTxs(c: Connection, from: number, to: number): RefusedLegacyTx[] {
  return c.read.legacyRefusedBodies.all(from, to) as RefusedLegacyTx[];
}

/** At most `count` evidence after `place` of blocks up to `snapshot` (of block `only` when not null). */
export function readEvidenceAfter(c: Connection, place: readonly [number, number], snapshot: number, only: number | null, count: number): Evidence[] {
  return c.read.evidenceAfter.all(place[0], place[1], snapshot, only, only, count) as Evidence[];
}

export function readBlockHead(c: Connection, height: number): Omit<BlockRecord, "txIds"> | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  return row === undefined ? null : { height, appHash: row.appHash, historySize: row.historySize };
}

/** The ids of a block's valid transactions of both kinds, in block order; null without such a block. */
export function readBlockIds(c: Connection, height: number): string[] | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  if (row === undefined) return null;
  const v2 = c.read.txIdsBySeqRange.all(row.seqFirst, row.seqFirst + row.txCount) as string[];
  const legacy = c.read.legacyIdsAtHeight.all(height) as { position: number; id: string }[];
  return inBlockOrder(v2, legacy.map((tx) => ({ position: tx.position, item: tx.id })));
}

export function readBlockHeightOfTransaction(c: Connection, id: string): number | null {
  for (const [seq] of c.index.ids.lookup(keyHash(id))) {
    const height = c.read.txHeightAt.get(seq, id) as number | undefined;
    if (height !== undefined) return height;
  }
  return null;
}

export function readValidatorSet(c: Connection, height: number | undefined): ValidatorSet | null {
  const at = height ?? Number.MAX_SAFE_INTEGER;
  const row = c.read.validatorsAt.get(at) as { height: number; json: string } | undefined;
  return row === undefined ? null : { height: row.height, validators: JSON.parse(row.json) as Validator[] };
}

export function readValidatorSetsFrom(c: Connection, from: number, to: number, limit: number): ValidatorSet[] {
  const rows = c.read.validatorsFrom.all(from, to, limit) as { height: number; json: string }[];
  return rows.map((row) => ({ height: row.height, validators: JSON.parse(row.json) as Validator[] }));
}

export function readElections(c: Connection, ids: readonly string[]): Map<string, ElectionRecord> {
  const records = new Map<string, ElectionRecord>();
  for (const id of new Set(ids)) {
    const row = c.read.electionById.get(id) as ElectionRow | undefined;
    if (row === undefined) continue;
    records.set(id, { ...row, total: BigInt(row.total), votes: BigInt(row.votes) });
  }
  return records;
}

interface ElectionRow extends Omit<ElectionRecord, "total" | "votes"> {
  readonly total: string;
  readonly votes: string;
}

export function readLegacyOutputs(
  c: Connection,
  refs: readonly LegacyOutputRef[],
): Map<string, StoredLegacyOutput> {
  const seqs = legacySeqsOf(c, refs.map((ref) => ref.txid));
  const places: Place[] = [];
  for (const ref of refs) {
    const seq = seqs.get(ref.txid);
    if (seq !== undefined) places.push([seq, ref.cid]);
  }
  const rows = legacyOutputsAt(c, places);
  const outputs = new Map<string, StoredLegacyOutput>();
  for (const ref of refs) {
    const seq = seqs.get(ref.txid);
    const row = seq === undefined ? undefined : rows.get(placeKey(seq, ref.cid));
    if (row === undefined) continue;
    outputs.set(legacyOutputKey(ref), {
      txid: ref.txid,
      cid: ref.cid,
      conditionUri: row.conditionUri,
      publicKeys: JSON.parse(row.publicKeys) as string[],
      spentBy: row.spentBy,
    });
  }
  return outputs;
}

export function readLegacyTransaction(c: Connection, id: string): string | null {
  const json = c.read.legacyTxJson.get(keyHash(id), id) as string | undefined;
  return json ?? null;
}

export function readLegacyRecord(c: Connection, id: string): LegacyRecord | null {
  const hash = keyHash(id);
  const height = c.read.legacyTxHeight.get(hash, id) as number | undefined;
  if (height !== undefined) return { status: "valid", height } as const;
  const refusal = c.read.legacyLastRefusal.get(hash, id) as RefusalRow | undefined;
  if (refusal === undefined) return null;
  return { status: "invalid", height: refusal.height, code: refusal.code, message: refusal.message };
}
