// The pending pool: transactions checkTx admitted that no committed block carries yet, of every
// kind. While pending, a transaction's spends count as spent for every other check of its kind
// (a second spend of the same output is refused before any block), and its outputs can be
// spent (a chained spend; the block checks it again). It also keeps what lets a mempool's
// rechecks stay cheap (`stillValid`) and what tells which transactions a mempool dropped
// (`releaseUnasked`). Kinds are separate namespaces: each has its own ids and spends here.
import type { AnyTxKind, PendingTxs, PreparedBase } from "./txKind.js";

interface KindPending {
  readonly kind: AnyTxKind;
  readonly txs: Map<string, PreparedBase>;
  readonly spends: Set<string>;
  /** What a check of a transaction that is not pending sees (made once). */
  readonly view: PendingTxs<PreparedBase>;
  // The visitors `forEachSpend` is called with, made once (admit and release run per transaction).
  readonly addSpend: (key: string) => void;
  readonly deleteSpend: (key: string) => void;
}

export class PendingPool {
  private readonly byKind = new Map<AnyTxKind, KindPending>();
  /** The same, in registration order, for the loops over every kind. */
  private readonly pendings: KindPending[] = [];
  /** Counts commits; a check that read committed state re-reads if it moved under it. */
  private commits = 0;
  /**
   * Every pending transaction, by id: the `askEpoch` at which the engine's mempool last asked
   * about it (checkTx or recheckTx). See `releaseUnasked`.
   */
  private readonly askedAt = new Map<string, number>();
  /** Counts commits, and the idle spells an engine reports in place of them (`noteIdleSpell`). */
  private askEpoch = 0;
  /**
   * Pending transactions of a `recheckBySpends` kind whose spends are all of committed outputs,
   * by id: the commit count they were last found valid at (see `stillValid`).
   */
  private readonly validatedAt = new Map<string, number>();
  /** What the last commit spent, per `recheckBySpends` kind, by output key. */
  private lastCommit: { readonly commits: number; readonly spent: ReadonlyMap<AnyTxKind, ReadonlySet<string>> } | null =
    null;

  constructor(kinds: readonly AnyTxKind[]) {
    for (const kind of kinds) {
      const txs = new Map<string, PreparedBase>();
      const spends = new Set<string>();
      const view: PendingTxs<PreparedBase> = {
        has: (id) => txs.has(id),
        get: (id) => txs.get(id),
        isSpent: (key) => spends.has(key),
      };
      const pending: KindPending = {
        kind,
        txs,
        spends,
        view,
        addSpend: (key) => void spends.add(key),
        deleteSpend: (key) => void spends.delete(key),
      };
      this.byKind.set(kind, pending);
      this.pendings.push(pending);
    }
  }

  get size(): number {
    let size = 0;
    for (const pending of this.pendings) size += pending.txs.size;
    return size;
  }

  /** The number of commits so far: what a check compares before and after its read. */
  get generation(): number {
    return this.commits;
  }

  /** The pending transactions of one kind, as a check of `self` (or of one not pending) sees them. */
  viewFor(kind: AnyTxKind, self: PreparedBase | null): PendingTxs<PreparedBase> {
    const { txs, spends, view } = this.pendingOf(kind);
    if (self === null) return view;
    // No other pending transaction spends what `self` spends (checkTx admits no conflict), so
    // leaving out `self`'s spend keys leaves out only its own.
    const own = new Set<string>();
    kind.forEachSpend(self, (key) => own.add(key));
    return {
      has: (id) => txs.has(id) && id !== self.id,
      get: (id) => txs.get(id),
      isSpent: (key) => spends.has(key) && !own.has(key),
    };
  }

  has(kind: AnyTxKind, id: string): boolean {
    return this.pendingOf(kind).txs.has(id);
  }

  /** Joins the pool: checkTx found it valid against committed state and the pool. */
  admit(kind: AnyTxKind, tx: PreparedBase): void {
    this.askedAt.set(tx.id, this.askEpoch);
    const pending = this.pendingOf(kind);
    if (kind.recheckBySpends) this.noteValidated(kind, tx);
    pending.txs.set(tx.id, tx);
    kind.forEachSpend(tx, pending.addSpend);
  }

  /** The mempool asked about a pending transaction again, and a full check says it holds. */
  noteAsked(kind: AnyTxKind, tx: PreparedBase): void {
    if (kind.recheckBySpends) this.noteValidated(kind, tx);
    this.askedAt.set(tx.id, this.askEpoch);
  }

  /** The mempool asked about a pending transaction again, and `stillValid` says it holds. */
  noteStillValid(tx: PreparedBase): void {
    this.validatedAt.set(tx.id, this.commits);
    this.askedAt.set(tx.id, this.askEpoch);
  }

  /**
   * Whether a pending transaction valid at the previous commit still is, without a read. What
   * it was checked against: its id not committed (a block carrying that id released it, so it
   * would not be pending), committed outputs as inputs (immutable but for being spent), and the
   * other pending transactions' spends (checkTx admits none that conflicts with a pending one).
   * So only the last block's spends can have made it invalid. Only for `recheckBySpends` kinds.
   */
  stillValid(kind: AnyTxKind, tx: PreparedBase): boolean {
    const last = this.lastCommit;
    if (!kind.recheckBySpends || last === null || last.commits !== this.commits) return false;
    if (this.validatedAt.get(tx.id) !== this.commits - 1) return false;
    const spent = last.spent.get(kind);
    let valid = true;
    if (spent !== undefined) kind.forEachSpend(tx, (key) => (valid &&= !spent.has(key)));
    return valid;
  }

  /** Drop a pending transaction that no block will carry (e.g. the engine refused it). */
  release(id: string): void {
    this.askedAt.delete(id);
    for (const pending of this.pendings) {
      const tx = pending.txs.get(id);
      if (tx === undefined) continue;
      pending.txs.delete(id);
      this.validatedAt.delete(id);
      pending.kind.forEachSpend(tx, pending.deleteSpend);
    }
  }

  /** Empty the pool (the engine's mempool that held these transactions is gone). */
  releaseAll(): void {
    for (const pending of this.pendings) {
      pending.txs.clear();
      pending.spends.clear();
    }
    this.validatedAt.clear();
    this.askedAt.clear();
  }

  /**
   * Releases the pending transactions the mempool has not asked about since more than
   * `commitsMax` commits (or idle spells) ago, and returns their ids (LedgerApp.releaseUnasked).
   */
  releaseUnasked(commitsMax: number): string[] {
    const released: string[] = [];
    for (const [id, epoch] of this.askedAt) {
      if (this.askEpoch - epoch > commitsMax) released.push(id);
    }
    for (const id of released) this.release(id);
    return released;
  }

  /** An engine saw no block for a while: counted as a commit by `releaseUnasked`. */
  noteIdleSpell(): void {
    this.askEpoch++;
  }

  /**
   * A block is durable: remember what its valid transactions spent (`stillValid`), then release
   * every transaction it carried, valid or not (`kinds[i]` is `valid[i]`'s kind).
   */
  noteCommit(valid: readonly PreparedBase[], kinds: readonly AnyTxKind[], carriedIds: readonly string[]): void {
    this.commits++;
    this.askEpoch++;
    const spent = new Map<AnyTxKind, Set<string>>();
    const adders = new Map<AnyTxKind, (key: string) => void>();
    for (const { kind } of this.pendings) {
      if (!kind.recheckBySpends) continue;
      const keys = new Set<string>();
      spent.set(kind, keys);
      adders.set(kind, (key) => void keys.add(key));
    }
    for (let i = 0; i < valid.length; i++) {
      const kind = kinds[i]!;
      const add = adders.get(kind);
      if (add !== undefined) kind.forEachSpend(valid[i]!, add);
    }
    this.lastCommit = { commits: this.commits, spent };
    for (const id of carriedIds) this.release(id);
  }

  /**
   * Records that a pending (or about to be) transaction was just found valid, if it spends only
   * committed outputs: an output of a pending transaction can vanish without any block (its
   * maker released), so a transaction spending one is always checked in full.
   */
  private noteValidated(kind: AnyTxKind, tx: PreparedBase): void {
    const pending = this.pendingOf(kind).txs;
    if (kind.recheckInFull?.(tx) === true) {
      this.validatedAt.delete(tx.id);
      return;
    }
    let committedInputs = true;
    kind.forEachSpend(tx, (_key, makerId) => (committedInputs &&= !pending.has(makerId)));
    if (committedInputs) this.validatedAt.set(tx.id, this.commits);
    else this.validatedAt.delete(tx.id);
  }

  private pendingOf(kind: AnyTxKind): KindPending {
    const pending = this.byKind.get(kind);
    if (pending === undefined) throw new Error(`transaction kind ${kind.name} is not registered`);
    return pending;
  }
}
