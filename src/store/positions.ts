// Positions of paged reads (PageOptions in store.ts), as the SQLite and PostgreSQL backends
// write them (both number transactions by `seq`, the commit order from 1, so a ledger gives the
// same positions on either): the walk's snapshot (the last seq committed when its first page was
// read) and the place of the last item given, as dot-separated decimal integers:
// `snapshot.seq.outputIndex` for an output of a key, `snapshot.seq` for a transaction of an
// asset, `snapshot.rank` for a search hit (its place in the ranking, from 1),
// `snapshot.assetId` for a balance (balances are in asset id order); a hit of a query by field
// is its seq alone. Clients see them only inside the HTTP layer's opaque cursors.
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

/** A position a FieldHit gave: the seq, as decimal digits. Anything else is the client's error. */
export function parseFieldPosition(position: string | undefined): number {
  if (position === undefined) return 0;
  if (!/^[1-9]\d{0,15}$/.test(position) || !Number.isSafeInteger(Number(position))) {
    throw notGiven();
  }
  return Number(position);
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
