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
} from "../store.js";
import type { Connection } from "./connection.js";
import { keyHash } from "./keyHash.js";
import { idsAt, legacyOutputsAt, legacySeqsOf, outputsAt, seqsOf, spendersOf } from "./lookups.js";
import { placeKey, type Place } from "./places.js";
import type { BlockRow, ChainStateRow, OutputOfKeyRow, RefusalRow, SeqJsonRow } from "./rows.js";

export function readChainState(c: Connection): ChainState {
  const row = c.read.chainState.get() as ChainStateRow;
  return { height: row.height, appHash: row.appHash, chainId: row.chainId };
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

export function readTransactionsByAsset(
  c: Connection,
  assetId: string,
  options: { operation?: Operation; lastOnly?: boolean },
): string[] {
  const hash = keyHash(assetId);
  const lastOnly = options.lastOnly === true;
  const found: SeqJsonRow[] = [];
  // The CREATE is the transaction whose id is the asset id.
  if (options.operation !== "TRANSFER") {
    for (const [seq] of c.index.ids.lookup(hash)) {
      const json = c.read.createAt.get(seq, assetId) as string | undefined;
      if (json !== undefined) found.push({ seq: seq as number, json });
    }
  }
  // The TRANSFERs name the asset. Waiting index rows are newer than merged ones.
  if (options.operation !== "CREATE") {
    const waiting: SeqJsonRow[] = [];
    for (const row of c.index.assets.waitingRows(hash)) {
      const seq = row[1] as number;
      const json = c.read.transferAt.get(seq, assetId) as string | undefined;
      if (json !== undefined) waiting.push({ seq, json });
    }
    if (!lastOnly) {
      const merged = c.read.transfersOfAsset.iterate(hash, assetId);
      for (const row of merged as Iterable<SeqJsonRow>) found.push(row);
    } else if (waiting.length === 0) {
      const last = c.read.lastTransferOfAsset.get(hash, assetId) as SeqJsonRow | undefined;
      if (last !== undefined) found.push(last);
    }
    for (const row of waiting) found.push(row);
  }
  found.sort((a, b) => a.seq - b.seq); // commit order
  const last = found[found.length - 1];
  if (lastOnly) return last === undefined ? [] : [last.json];
  return found.map((tx) => tx.json);
}

export function readOutputsByPublicKey(
  c: Connection,
  publicKey: string,
  spent: boolean | undefined,
): OutputRef[] {
  const hash = keyHash(publicKey);
  const rows = c.read.outputsOfKey.all(hash) as OutputOfKeyRow[];
  const waiting = c.index.keys.waitingRows(hash).map((row) => [row[1], row[2]] as Place);
  for (const row of outputsAt(c, waiting).values()) rows.push(row);
  rows.sort((a, b) => a.seq - b.seq || a.outputIndex - b.outputIndex); // commit order
  // keyHash is not unique: keep only outputs that really name this key.
  const names = (row: OutputOfKeyRow) =>
    (JSON.parse(row.publicKeys) as string[]).includes(publicKey);
  const mine = rows.filter(names);
  const spenders =
    spent === undefined ? new Map() : spendersOf(c, mine.map((r) => [r.seq, r.outputIndex]));
  const refs: OutputRef[] = [];
  for (const row of mine) {
    const isSpent = spenders.has(placeKey(row.seq, row.outputIndex));
    if (spent !== undefined && spent !== isSpent) continue;
    refs.push({ transactionId: row.transactionId, outputIndex: row.outputIndex });
  }
  return refs;
}

export function readBlock(c: Connection, height: number): BlockRecord | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  if (row === undefined) return null;
  const end = row.seqFirst + row.txCount;
  const txIds = c.read.txIdsBySeqRange.all(row.seqFirst, end) as string[];
  assert.equal(txIds.length, row.txCount, `block ${height} lost transactions`);
  return { height, appHash: row.appHash, txIds };
}

export function readBlockTransactions(c: Connection, height: number): string[] | null {
  const row = c.read.block.get(height) as BlockRow | undefined;
  if (row === undefined) return null;
  const end = row.seqFirst + row.txCount;
  const txs = c.read.txJsonsBySeqRange.all(row.seqFirst, end) as string[];
  assert.equal(txs.length, row.txCount, `block ${height} lost transactions`);
  return txs;
}

export function readBlockHeightOfTransaction(c: Connection, id: string): number | null {
  for (const [seq] of c.index.ids.lookup(keyHash(id))) {
    const height = c.read.txHeightAt.get(seq, id) as number | undefined;
    if (height !== undefined) return height;
  }
  return null;
}

export function readValidators(c: Connection, height: number | undefined): Validator[] {
  const at = height ?? Number.MAX_SAFE_INTEGER;
  const json = c.read.validatorsAt.get(at) as string | undefined;
  return json === undefined ? [] : (JSON.parse(json) as Validator[]);
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
