// The paged read of evidence (Store.streamEvidence), one loop for every backend: the backend
// gives its chain height and a query of the rows after a place; this walks them in batches.
// A position is `snapshot.height.index` (../positions.ts): the height committed when the walk's
// first page was read, then the last evidence given. Evidence is in commit order, so a walk
// leaves out what blocks after its snapshot carried and sees each earlier one exactly once.
import { encodePosition, parsePosition } from "./positions.js";
import type { Batches, Evidence, EvidenceEntry, PageOptions } from "./store.js";

/** Most evidence one batch reads (a block carries a few at most; a batch is one short read). */
export const evidenceBatchMax = 500;

export interface EvidenceRows {
  /** The height of the last committed block. */
  lastHeight(): Promise<number>;
  /**
   * At most `count` evidence after `(height, index)` of blocks up to `snapshot` (only of the
   * block at `only` when not null), in order.
   */
  after(place: readonly [number, number], snapshot: number, only: number | null, count: number): Promise<Evidence[]>;
}

export async function* evidencePages(rows: EvidenceRows, only: number | undefined, page: PageOptions = {}): Batches<EvidenceEntry> {
  const lastHeight = await rows.lastHeight();
  const [snapshot, height0, index0] = page.after === undefined
    ? [lastHeight, 0, -1]
    : (parsePosition(page.after, 3, lastHeight, true) as [number, number, number]);
  let place: [number, number] = [height0, index0];
  let left = page.limit ?? Infinity;
  while (left > 0) {
    const count = Math.min(evidenceBatchMax, left);
    const batch = await rows.after(place, snapshot, only ?? null, count);
    if (batch.length === 0) return;
    left -= batch.length;
    const last = batch.at(-1)!;
    place = [last.height, last.index];
    yield batch.map((e) => ({ ...e, position: encodePosition([snapshot, e.height, e.index]) }));
    if (batch.length < count) return;
  }
}
