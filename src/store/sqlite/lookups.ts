// Bulk lookups by id and by place, shared by the block writer (its checks) and the readers.
// Each reads the merged index table and the rows still waiting in memory.

import type { Connection } from "./connection.js";
import { keyHash } from "./keyHash.js";
import { outputHash, placeKey, type Place } from "./places.js";
import type { LegacyOutputRow, OutputRow, SeqIdRow, SpentRow } from "./rows.js";

/** The seqs of the committed transactions among these ids. */
export function seqsOf(c: Connection, ids: Iterable<string>): Map<string, number> {
  const wanted = new Map<string, number>(); // id -> keyHash
  for (const id of ids) {
    if (wanted.has(id)) continue;
    // An id the filter has never seen is not committed: no read (hashFilter.ts).
    const hash = keyHash(id);
    if (c.index.ids.mayHold(hash)) wanted.set(id, hash);
  }
  const found = new Map<string, number>();
  if (wanted.size === 0) return found;
  const rows =
    wanted.size === 1
      ? c.read.idsEq.all(wanted.values().next().value)
      : c.read.idsIn.iterate(JSON.stringify([...new Set(wanted.values())]));
  for (const row of rows as Iterable<{ id: string; seq: number }>) {
    if (wanted.has(row.id)) found.set(row.id, row.seq);
  }
  // Ids of recent transactions are in the waiting rows: check their candidates in one read.
  const candidates: number[] = [];
  for (const [id, hash] of wanted) {
    if (found.has(id)) continue;
    for (const row of c.index.ids.waitingRows(hash)) candidates.push(row[1] as number);
  }
  for (const [seq, id] of idsAt(c, candidates)) if (wanted.has(id)) found.set(id, seq);
  return found;
}

/** Whether the ids' filter says none of these ids is committed (hashFilter.ts). */
export function noneMayBeCommitted(c: Connection, ids: readonly string[]): boolean {
  for (const id of ids) if (c.index.ids.mayHold(keyHash(id))) return false;
  return true;
}

/** The ids of the transactions at these seqs. */
export function idsAt(c: Connection, seqs: Iterable<number>): Map<number, string> {
  const unique = [...new Set(seqs)];
  const ids = new Map<number, string>();
  if (unique.length === 0) return ids;
  if (unique.length === 1) {
    const id = c.read.txIdAt.get(unique[0]) as string | undefined;
    if (id !== undefined) ids.set(unique[0]!, id);
    return ids;
  }
  for (const row of c.read.txIdsIn.iterate(JSON.stringify(unique)) as Iterable<SeqIdRow>) {
    ids.set(row.seq, row.id);
  }
  return ids;
}

/** The stored outputs at these places, keyed by placeKey. */
export function outputsAt(c: Connection, places: readonly Place[]): Map<string, OutputRow> {
  const rows = new Map<string, OutputRow>();
  if (places.length === 0) return rows;
  for (const row of c.read.outputsIn.iterate(JSON.stringify(places)) as Iterable<OutputRow>) {
    rows.set(placeKey(row.seq, row.outputIndex), row);
  }
  return rows;
}

/** The seqs of the transactions that spent these outputs, keyed by placeKey. */
export function spendersOf(c: Connection, places: readonly Place[]): Map<string, number> {
  const spenders = new Map<string, number>();
  if (places.length === 0) return spenders;
  const wanted = new Set(places.map(([seq, index]) => placeKey(seq, index)));
  const hashes = [...new Set(places.map(([seq, index]) => outputHash(seq, index)))];
  const merged = c.read.spentIn.iterate(JSON.stringify(hashes)) as Iterable<SpentRow>;
  const rows: number[][] = [];
  for (const row of merged) rows.push([row.seq, row.outputIndex, row.spender]);
  for (const hash of hashes) {
    for (const row of c.index.spent.waitingRows(hash)) rows.push(row.slice(1));
  }
  for (const [seq, index, spender] of rows as [number, number, number][]) {
    const key = placeKey(seq, index);
    if (wanted.has(key)) spenders.set(key, spender);
  }
  return spenders;
}

/** The seqs of the committed legacy transactions among these ids. */
export function legacySeqsOf(c: Connection, ids: Iterable<string>): Map<string, number> {
  const wanted = new Set(ids);
  const found = new Map<string, number>();
  if (wanted.size === 0) return found;
  const hashes = JSON.stringify([...new Set([...wanted].map(keyHash))]);
  for (const row of c.read.legacyIdsIn.iterate(hashes) as Iterable<SeqIdRow>) {
    if (wanted.has(row.id)) found.set(row.id, row.seq);
  }
  return found;
}

/** The stored legacy outputs at these places ([seq, cid]), keyed by placeKey. */
export function legacyOutputsAt(c: Connection, places: readonly Place[]): Map<string, LegacyOutputRow> {
  const rows = new Map<string, LegacyOutputRow>();
  if (places.length === 0) return rows;
  const found = c.read.legacyOutputsIn.iterate(JSON.stringify(places));
  for (const row of found as Iterable<LegacyOutputRow>) rows.set(placeKey(row.seq, row.cid), row);
  return rows;
}
