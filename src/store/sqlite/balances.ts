// The balances of a key (docs/http-api.md "Balances"), paged by asset. The outputs of a key are
// indexed in commit order only (key_index), not by asset, so the balances of all its assets are
// summed in passes: each pass reads the key's outputs once, a batch per turn, and keeps the sums
// of at most `balancesWindowMax` assets, the smallest ids after the last one given; it then gives
// them, whole, in asset id order, and the next pass starts after them. Memory is bounded by the
// window (never a sum per asset of the key), and a page never splits one asset's sum: a sum is
// given only once every output of the pass has been read. A read of more assets than a window
// (unpaged, of a key holding more) costs a pass per window; most keys hold far fewer.
//
// With an asset id, the sum of that asset is read through whichever of the two indexes holds
// fewer rows: the key's outputs (key_index) or the asset's transactions (its CREATE by id_index,
// its TRANSFERs by asset_index), so that neither a key holding many assets nor a busy asset makes
// one balance read long.

import type { Balance, PageOptions } from "../store.js";
import { encodeBalancePosition, notGiven, parseBalancePosition } from "../positions.js";
import { lastSeqOf, mergeSorted, waitingAfter, waitingInOrder, type BatchReader } from "./batchReaders.js";
import type { Connection } from "./connection.js";
import { keyHash } from "./keyHash.js";
import { balancesWindowMax, batchRowsMax } from "./limits.js";
import { seqsOf, spendersOf } from "./lookups.js";
import { placeKey, type Place } from "./places.js";

/** An unspent output's asset and amount. */
interface Holding {
  readonly assetId: string;
  readonly amount: string;
}

/** The balances of `publicKey` (with `assetId`: of that asset only), paged by asset id. */
export function balancesOfKey(
  c: Connection,
  publicKey: string,
  assetId: string | undefined,
  page: PageOptions = {},
): BatchReader<Balance> {
  const [snapshot, after] = page.after === undefined
    ? [lastSeqOf(c), ""]
    : parseBalancePosition(page.after, lastSeqOf(c));
  if (page.after !== undefined && !madeBy(c, after, snapshot)) throw notGiven();
  const limit = page.limit ?? Infinity;
  if (assetId === undefined) {
    return inWindows(snapshot, after, limit, () => holdingsOfKey(c, publicKey, snapshot));
  }
  // Asset ids are compared as the store orders them: a cursor at or past this asset ends it.
  if (assetId <= after || limit <= 0) return { next: () => null };
  const walk = throughAsset(c, publicKey, assetId, snapshot)
    ? () => holdingsOfAsset(c, publicKey, assetId, snapshot)
    : () => onlyAsset(holdingsOfKey(c, publicKey, snapshot), assetId);
  return inWindows(snapshot, after, 1, walk);
}

/** Whether asset `assetId` was made (its CREATE committed) by seq `snapshot`. */
function madeBy(c: Connection, assetId: string, snapshot: number): boolean {
  const seq = seqsOf(c, [assetId]).get(assetId);
  return seq !== undefined && seq <= snapshot && c.read.isCreateAt.get(seq, assetId) !== undefined;
}

/**
 * Sums the holdings a walk gives (`open` starts one, once per pass) per asset, for the assets
 * after `after`, up to `limit` of them, a window of sums per pass. Empty batches while a pass
 * reads; a window's sums, in asset id order, when it ends.
 */
function inWindows(snapshot: number, after: string, limit: number, open: () => BatchReader<Holding>): BatchReader<Balance> {
  const size = Math.min(limit, balancesWindowMax);
  let floor = after;
  let left = limit;
  let walk: BatchReader<Holding> | null = left > 0 ? open() : null;
  let window = new Window(Math.min(size, left));
  return {
    next: () => {
      if (walk === null) return null;
      const holdings = walk.next();
      if (holdings !== null) {
        for (const holding of holdings) if (holding.assetId > floor) window.add(holding);
        return [];
      }
      const { sums, more } = window.close();
      left -= sums.length;
      const last = sums[sums.length - 1];
      walk = more && left > 0 && last !== undefined ? open() : null;
      floor = last?.[0] ?? floor;
      window = new Window(Math.min(size, left));
      return sums.map(([id, sum]) => ({ assetId: id, amount: String(sum), position: encodeBalancePosition(snapshot, id) }));
    },
  };
}

/** The sums of the `size` smallest asset ids one pass sees, in at most twice that many entries. */
class Window {
  readonly #size: number;
  readonly #sums = new Map<string, bigint>();
  /** The smallest asset id let go of: it and every larger one wait for a later pass. */
  #ceiling: string | undefined;

  constructor(size: number) {
    this.#size = size;
  }

  add(holding: Holding): void {
    if (this.#ceiling !== undefined && holding.assetId >= this.#ceiling) return;
    this.#sums.set(holding.assetId, (this.#sums.get(holding.assetId) ?? 0n) + BigInt(holding.amount));
    if (this.#sums.size >= 2 * this.#size) this.#trim();
  }

  /** The window's sums in asset id order, and whether assets past it were seen. */
  close(): { sums: [string, bigint][]; more: boolean } {
    const more = this.#trim();
    return { sums: [...this.#sums].sort(([a], [b]) => (a < b ? -1 : 1)), more };
  }

  /** Keeps the `size` smallest ids; true when any other was seen (now or before). */
  #trim(): boolean {
    if (this.#sums.size > this.#size) {
      const ids = [...this.#sums.keys()].sort();
      for (const id of ids.slice(this.#size)) this.#sums.delete(id);
      this.#ceiling = ids[this.#size];
    }
    return this.#ceiling !== undefined;
  }
}

/**
 * Whether the sum of one asset reads fewer rows through the asset's transactions than through
 * the key's outputs. Counts of index rows only (integers): the asset's up to countRowsMax, the
 * key's only up to the asset's, so the count costs no more than the shorter walk.
 */
export function throughAsset(c: Connection, publicKey: string, assetId: string, snapshot: number): boolean {
  const assetHash = keyHash(assetId);
  const assetRows = 1 + (c.read.assetRowsUpTo.get(assetHash, snapshot, countRowsMax) as number) +
    c.index.assets.waitingRows(assetHash).length;
  const keyHashed = keyHash(publicKey);
  const keyRows = (c.read.keyRowsUpTo.get(keyHashed, snapshot, assetRows) as number) +
    c.index.keys.waitingRows(keyHashed).length;
  return assetRows <= keyRows;
}

/** Past this many rows of an asset, its count stops: the key's then decides alone. */
const countRowsMax = 100_000;

/**
 * The unspent outputs `publicKey` alone may spend: its plain Ed25519 condition (the only
 * condition one signature of that key fulfils; a threshold, even of one, is another condition
 * the validator would check as such), `public_keys` exactly `[publicKey]`. Lean, since a wallet
 * asks often: the key's places first, their spenders, and only the unspent outputs' rows.
 */
function holdingsOfKey(c: Connection, publicKey: string, snapshot: number): BatchReader<Holding> {
  const hash = keyHash(publicKey);
  const waiting = waitingInOrder(c.index.keys.waitingRows(hash));
  const only = JSON.stringify([publicKey]);
  let after: Place = [0, -1];
  let done = false;
  return {
    next: () => {
      if (done) return null;
      const table = c.read.keyPlacesAfter.all(hash, after[0], after[1], snapshot, batchRowsMax) as Place[];
      const more = waitingAfter(waiting, after, snapshot).map((row) => [row[1], row[2]] as Place);
      const places = mergeSorted(table, more, (x, y) => x[0] - y[0] || x[1] - y[1], batchRowsMax);
      done = places.length < batchRowsMax;
      if (places.length === 0) return null;
      after = places[places.length - 1]!;
      const unspent = unspentOf(c, places, snapshot);
      if (unspent.length === 0) return [];
      const rows = c.read.holdingsIn.all(JSON.stringify(unspent), only) as [string, string][];
      return rows.map(([asset, amount]) => ({ assetId: asset, amount }));
    },
  };
}

function onlyAsset(walk: BatchReader<Holding>, assetId: string): BatchReader<Holding> {
  return { next: () => walk.next()?.filter((holding) => holding.assetId === assetId) ?? null };
}

/** The same holdings of one asset, found through its CREATE and TRANSFERs, in commit order. */
function holdingsOfAsset(c: Connection, publicKey: string, assetId: string, snapshot: number): BatchReader<Holding> {
  const hash = keyHash(assetId);
  const waiting = waitingInOrder(c.index.assets.waitingRows(hash));
  const only = JSON.stringify([publicKey]);
  const create = seqsOf(c, [assetId]).get(assetId);
  let first = create !== undefined && create <= snapshot ? [create] : [];
  let after = 0;
  let done = false;
  return {
    next: () => {
      if (done) return null;
      const table = c.read.transferSeqsAfter.all(hash, after, snapshot, batchRowsMax) as number[];
      const more = waitingAfter(waiting, [after], snapshot).map((row) => row[1] as number);
      const seqs = first.concat(mergeSorted(table, more, (a, b) => a - b, batchRowsMax));
      first = [];
      done = seqs.length < batchRowsMax;
      if (seqs.length === 0) return null;
      after = seqs[seqs.length - 1]!;
      // The asset's id is checked on each transaction: another asset may share the keyHash.
      const rows = c.read.holdingsAtSeqs.all(JSON.stringify(seqs), assetId, only) as [number, number, string][];
      const unspent = new Set(unspentOf(c, rows.map(([seq, index]) => [seq, index]), snapshot).map(([s, i]) => placeKey(s, i)));
      return rows.filter(([seq, index]) => unspent.has(placeKey(seq, index))).map(([, , amount]) => ({ assetId, amount }));
    },
  };
}

/** Of these places, those not spent as of `snapshot`. */
function unspentOf(c: Connection, places: readonly Place[], snapshot: number): Place[] {
  const spenders = spendersOf(c, places);
  return places.filter(([seq, index]) => !((spenders.get(placeKey(seq, index)) ?? Infinity) <= snapshot));
}
