// Positions of paged reads (PageOptions in store.ts), as the SQLite and PostgreSQL backends
// write them (both number transactions by `seq`, the commit order from 1, so a ledger gives the
// same positions on either): the walk's snapshot (the last seq committed when its first page was
// read) and the place of the last item given, as dot-separated decimal integers:
// `snapshot.seq.outputIndex` for an output of a key, `snapshot.seq` for a transaction of an
// asset or a hit of a query by field, `snapshot.rank` for a search hit (its place in the
// ranking, from 1). Clients see them only inside the HTTP layer's opaque cursors.
import { LedgerError } from "../errors/ledgerError.js";

export function encodePosition(parts: readonly number[]): string {
  return parts.join(".");
}

function notGiven(): LedgerError {
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
