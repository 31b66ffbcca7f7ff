// Positions of paged reads (PageOptions in store.ts), as the SQLite and PostgreSQL backends
// write them (both number transactions by `seq`, the commit order from 1, so a ledger gives the
// same positions on either): the walk's snapshot (the last seq committed when its first page was
// read) and the place of the last item given, as dot-separated decimal integers:
// `snapshot.seq.outputIndex` for an output of a key, `snapshot.seq` for a transaction of an
// asset or a hit of a query by field, `snapshot.rank` for a search hit (its place in the
// ranking, from 1), `snapshot.assetId` for a balance (balances are in asset id order),
// `snapshot.height.index` for evidence, whose snapshot is a block height (evidencePages.ts). Clients
// see them only inside the HTTP layer's opaque cursors.
import { LedgerError } from "../errors/ledgerError.js";

export function encodePosition(parts: readonly number[]): string {
  return parts.join(".");
}

/** The refusal of a position this store never gave. */
export function notGiven(): LedgerError {
  return new LedgerError("BadParameter", "cursor: not a cursor this node gave");
}

/**
 * The `count` integers of a position this store gave, as of a ledger whose last seq is
 * `lastSeq` now: a snapshot past it (another node's cursor, or a forged one) is refused, as is
 * a place past its snapshot when `placeIsSeq`.
 */
export function parsePosition(text: string, count: number, lastSeq: number, placeIsSeq: boolean): number[] {
  const parts = text.split(".");
  if (parts.length !== count || !parts.every((part) => /^(0|[1-9]\d{0,15})$/.test(part))) throw notGiven();
  const numbers = parts.map(Number);
  if (!numbers.every(Number.isSafeInteger)) throw notGiven();
  const [snapshot, place] = numbers as [number, number];
  if (snapshot > lastSeq || (placeIsSeq && place > snapshot)) throw notGiven();
  return numbers;
}

/**
 * Which ranks a search page after `rank` reads: from the rank itself, so that `pageAfterRank`
 * can tell a rank this store gave (there was a match there) from a forged one.
 */
export function ranksToRead(rank: number, count: number): { offset: number; count: number } {
  return rank === 0 ? { offset: 0, count } : { offset: rank - 1, count: count + 1 };
}

/**
 * The page after `rank`, from what `ranksToRead` read. A rank this store gave named a match, and
 * the matches ranked as of a snapshot are the same at every page (only their order may drift):
 * no match at the rank means it was never given.
 */
export function pageAfterRank<T>(rank: number, read: readonly T[]): readonly T[] {
  if (rank === 0) return read;
  if (read.length === 0) throw notGiven();
  return read.slice(1);
}

/** A balance's position: the walk's snapshot and the asset id (balances go in asset id order). */
export function encodeBalancePosition(snapshot: number, assetId: string): string {
  return `${snapshot}.${assetId}`;
}

/**
 * The snapshot and asset id of a balance's position this store gave (see parsePosition); the
 * store then checks that the asset was made by the snapshot (a balance is only of such).
 */
export function parseBalancePosition(text: string, lastSeq: number): [number, string] {
  const at = text.indexOf(".");
  const assetId = text.slice(at + 1);
  // An asset id is its CREATE's id: 64 lowercase hex digits, as the store holds it.
  if (at < 0 || !/^[0-9a-f]{64}$/.test(assetId)) throw notGiven();
  const [snapshot] = parsePosition(text.slice(0, at), 1, lastSeq, false) as [number];
  return [snapshot, assetId];
}
