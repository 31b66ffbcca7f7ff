// The transactions an engine waits to see committed (`mode=commit`), indexed by the outputs they
// spend, so that a block that spends one of those outputs under another id finds the waiters it
// defeated at once: such a transaction can never commit, and behind CometBFT nothing would say
// so (its mempool drops it at the recheck without a word). A block's commit looks up only its
// own spends. Kinds are separate namespaces (txKind.ts): the index is per kind.
import type { AnyTxKind, PreparedBase } from "./txKind.js";

/** One waiting transaction and what to call when a committed block defeats it. */
export interface Rival {
  readonly kind: AnyTxKind;
  readonly tx: PreparedBase;
  readonly defeated: () => void;
}

export class RivalWatch {
  private readonly byKind = new Map<AnyTxKind, Map<string, Set<Rival>>>();
  /** Every watched transaction, with the keys it is indexed under. */
  private readonly watched = new Map<Rival, readonly string[]>();

  /** `watchesMax`: most transactions watched at once; past it, `watch` declines. */
  constructor(private readonly watchesMax: number) {}

  get size(): number {
    return this.watched.size;
  }

  /**
   * Watches `tx` until the returned stop is called or a block defeats it (`defeated` is then
   * called by the ledger, once, and the watch has ended). A transaction that spends nothing (a
   * CREATE) has no rival and is not watched. Null, and no watch, when `watchesMax` are watched.
   */
  watch(kind: AnyTxKind, tx: PreparedBase, defeated: () => void): (() => void) | null {
    const keys: string[] = [];
    kind.forEachSpend(tx, (key) => keys.push(key));
    if (keys.length === 0) return () => undefined;
    if (this.watched.size >= this.watchesMax) return null;
    const rival: Rival = { kind, tx, defeated };
    let index = this.byKind.get(kind);
    if (index === undefined) this.byKind.set(kind, (index = new Map()));
    for (const key of keys) {
      const rivals = index.get(key);
      if (rivals === undefined) index.set(key, new Set([rival]));
      else rivals.add(rival);
    }
    this.watched.set(rival, keys);
    return () => this.forget(rival);
  }

  /**
   * A block is committed: ends the watch of every transaction that spends an output one of its
   * valid transactions (`valid[i]` of kind `kinds[i]`) spent under another id, and returns them.
   */
  defeatedBy(valid: readonly PreparedBase[], kinds: readonly AnyTxKind[]): Rival[] {
    if (this.watched.size === 0) return [];
    const defeated = new Set<Rival>();
    valid.forEach((tx, i) => {
      const kind = kinds[i]!;
      const index = this.byKind.get(kind);
      if (index === undefined) return;
      kind.forEachSpend(tx, (key) => {
        for (const rival of index.get(key) ?? []) if (rival.tx.id !== tx.id) defeated.add(rival);
      });
    });
    for (const rival of defeated) this.forget(rival);
    return [...defeated];
  }

  private forget(rival: Rival): void {
    const keys = this.watched.get(rival);
    if (keys === undefined) return;
    this.watched.delete(rival);
    const index = this.byKind.get(rival.kind)!;
    for (const key of keys) {
      const rivals = index.get(key)!;
      rivals.delete(rival);
      if (rivals.size === 0) index.delete(key);
    }
  }
}
