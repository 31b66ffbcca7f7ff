// The ledger is the state machine, in the shape of an ABCI application (info, initChain, checkTx,
// finalizeBlock, commit) so that the same code runs under the embedded solo engine and behind
// CometBFT. It owns: the prepared-transaction cache (signatures are verified once per
// transaction per node), the pending pool's view of spends, block execution against committed
// state plus the block's earlier transactions, the app-hash chain, and the committed-block event.
//
// It holds two kinds of transaction (DECISIONS #13-#16): v2.0 ones and the legacy variants A
// and B. They share the pending pool, the blocks, their order and the app hash; their ids,
// outputs and spends are separate namespaces (a v2.0 transaction cannot spend a legacy output,
// nor the reverse), and each kind is validated by its own rules (legacyState.ts).
import assert from "node:assert/strict";
import { reject, type Rejection } from "../errors/ledgerError.js";
import type { PreparedLegacyTx } from "../legacy/types.js";
import { validateLegacy } from "../legacy/validateLegacy.js";
import { type BlockWrite, type Store, type StoredLegacyOutput, type StoredOutput, type Validator } from "../store/store.js";
import { legacyOutputKey, type CommittedLegacyTx, type LegacyInvalidTx } from "../legacy/committed.js";
import { outputKey, type CommittedTx, type OutputRef } from "../transaction/committed.js";
import type { LedgerView, PreparedTx } from "../transaction/types.js";
import { validateTx } from "../transaction/validateTx.js";
import { nextAppHash } from "./appHash.js";
import { BlockOverlay, spendable, type CommittedState } from "./blockOverlay.js";
import {
  federationOf,
  LegacyBlockOverlay,
  legacyPendingView,
  legacySpendsOf,
  toCommittedLegacyTx,
  type LegacyCommittedState,
} from "./legacyState.js";
import { ledgerOptionsDefault, type LedgerOptions } from "./options.js";
import type { PreparePool } from "./preparePool.js";
import { isLegacy, kindOf, type Prepared, type PreparedOf, type TxKind } from "./prepared.js";
import { PreparedCache, preparedKey, type PreparedKey } from "./preparedCache.js";

export type CheckTxResult<T extends Prepared = Prepared> =
  | { readonly ok: true; readonly tx: T }
  | { readonly ok: false; readonly rejection: Rejection };

export interface FinalizedBlock {
  readonly height: number;
  readonly appHash: string;
  /** One per transaction of the block, in order: null when valid, else why it was rejected. */
  readonly results: readonly (Rejection | null)[];
}

export interface CommittedBlock {
  readonly height: number;
  readonly appHash: string;
  /** The valid v2.0 transactions, in block order (what the event stream sends). */
  readonly txs: readonly PreparedTx[];
  /** The valid legacy transactions, in block order; never sent on the v2.0 stream. */
  readonly legacyTxs: readonly PreparedLegacyTx[];
}

export interface LedgerDeps {
  readonly store: Store;
  readonly pool: PreparePool;
}

interface StagedBlock {
  readonly write: BlockWrite;
  readonly txs: readonly PreparedTx[];
  readonly legacyTxs: readonly PreparedLegacyTx[];
  /** Every transaction id the block carried, valid or not, to release from the pending pool. */
  readonly carriedIds: readonly string[];
  /** The block's transactions as PreparedCache keys, to drop once the block is committed. */
  readonly cacheKeys: readonly PreparedKey[];
}

export class LedgerApp {
  private height: number;
  private appHash: string;
  private chainId: string | null;
  private staged: StagedBlock | null = null;
  /** Incremented when a commit changes state; checkTx re-reads if it moved under it. */
  private commitGeneration = 0;
  private readonly cache: PreparedCache;
  private readonly pending = new Map<string, PreparedTx>();
  /** Outputs spent by pending transactions, by `outputKey`. */
  private readonly pendingSpends = new Set<string>();
  /** Pending legacy transactions (status `backlog`), and their spends by `legacyOutputKey`. */
  private readonly pendingLegacy = new Map<string, PreparedLegacyTx>();
  private readonly pendingLegacySpends = new Set<string>();
  /**
   * Pending v2.0 transactions whose inputs are all committed outputs, by id: the commit
   * generation they were last found valid at. A recheck one generation later only has to ask
   * whether that block spent one of their inputs (see `stillValid`).
   */
  private readonly validatedAt = new Map<string, number>();
  /**
   * Every pending transaction (both kinds), by id: the `askEpoch` at which the engine's mempool
   * last asked about it (checkTx or recheckTx). See `releaseUnasked`.
   */
  private readonly askedAt = new Map<string, number>();
  /** Counts commits, and the idle spells an engine reports in place of them (`noteIdleSpell`). */
  private askEpoch = 0;
  /** What the last commit changed for v2.0 transactions: the outputs its valid ones spent. */
  private lastCommit: { readonly generation: number; readonly spent: ReadonlySet<string> } | null = null;
  private readonly listeners: ((block: CommittedBlock) => void)[] = [];
  private readonly finalizingListeners: ((height: number) => void)[] = [];

  private constructor(
    private readonly options: LedgerOptions,
    private readonly deps: LedgerDeps,
    state: { height: number; appHash: string; chainId: string | null },
  ) {
    this.height = state.height;
    this.appHash = state.appHash;
    this.chainId = state.chainId;
    this.cache = new PreparedCache(options.preparedCacheEntriesMax);
  }

  static async open(options: Partial<LedgerOptions>, deps: LedgerDeps): Promise<LedgerApp> {
    const state = await deps.store.getChainState();
    return new LedgerApp({ ...ledgerOptionsDefault, ...options }, deps, state);
  }

  /** ABCI Info: where the committed chain stands, so an engine can resume or replay. */
  info(): { readonly height: number; readonly appHash: string } {
    return { height: this.height, appHash: this.appHash };
  }

  get pendingCount(): number {
    return this.pending.size + this.pendingLegacy.size;
  }

  /** Whether this legacy transaction is pending: accepted, not in a committed block yet. */
  isPendingLegacy(id: string): boolean {
    return this.pendingLegacy.has(id);
  }

  /** The chain id recorded by initChain, or null on a new store. */
  get chain(): string | null {
    return this.chainId;
  }

  async initChain(chainId: string, validators: readonly Validator[]): Promise<void> {
    await this.deps.store.initChain(chainId, validators);
    this.chainId = chainId;
  }

  /** Subscribe to blocks once they are durable. */
  onCommitted(listener: (block: CommittedBlock) => void): void {
    this.listeners.push(listener);
  }

  /** Subscribe to the start of each block's execution (the node's metrics time commits from it). */
  onFinalizing(listener: (height: number) => void): void {
    this.finalizingListeners.push(listener);
  }

  /**
   * Parse and verify (cached by exact bytes, on the worker pool when missing). Without `kind`
   * the body's shape tells the kind (a block carries both); with it, bytes of the other kind
   * get the rejection that kind's rules give (see `prepareBytes`).
   */
  async prepare(bytes: Uint8Array, kind?: TxKind): Promise<Prepared | Rejection> {
    return this.prepareKeyed(preparedKey(bytes), bytes, kind);
  }

  private async prepareKeyed(key: PreparedKey, bytes: Uint8Array, kind?: TxKind): Promise<Prepared | Rejection> {
    const cached = this.cache.get(key);
    if (cached !== undefined && (kind === undefined || kindOf(cached) === kind)) return cached;
    // A successful result is the same whatever the kind asked (the shapes exclude each other),
    // so the cache holds one per bytes; a mismatch is read again, as the kind asked, for its rejection.
    const result = await this.deps.pool.prepare(bytes, kind);
    if (!("code" in result)) this.cache.put(key, result);
    return result;
  }

  /**
   * Take a transaction prepared elsewhere in this node (an HTTP worker process) as if this
   * process had prepared it: the bytes and result come from a trusted sibling, not the network.
   */
  remember(bytes: Uint8Array, tx: Prepared): void {
    this.cache.put(preparedKey(bytes), tx);
  }

  /**
   * ABCI CheckTx: valid against committed state and the pending pool? If so, the transaction
   * joins the pending pool (its spends count as spent for later checks) until a block carries it
   * or `release` drops it. With `kind`, only a transaction of that kind (the HTTP routes of each
   * interface); without, either (CometBFT's mempool).
   */
  async checkTx(bytes: Uint8Array): Promise<CheckTxResult>;
  async checkTx<K extends TxKind>(bytes: Uint8Array, kind: K): Promise<CheckTxResult<PreparedOf<K>>>;
  async checkTx(bytes: Uint8Array, kind?: TxKind): Promise<CheckTxResult> {
    const prepared = await this.prepare(bytes, kind);
    if ("code" in prepared) return { ok: false, rejection: prepared };
    if (this.isPending(prepared)) return { ok: false, rejection: pendingRejection(prepared) };
    if (this.pendingCount >= this.options.pendingTxsMax) {
      return { ok: false, rejection: reject("MempoolFull", "The pending pool is full; try again later") };
    }
    for (;;) {
      const generation = this.commitGeneration;
      const read = await this.readFor(prepared);
      if (generation !== this.commitGeneration) continue;
      // From here to the end: synchronous, so the pending pool cannot change under the check.
      const rejection = this.validatePending(read, null);
      if (rejection !== null) return { ok: false, rejection };
      if (this.isPending(prepared)) return { ok: false, rejection: pendingRejection(prepared) };
      this.admit(prepared);
      return { ok: true, tx: prepared };
    }
  }

  /**
   * ABCI CheckTx of type Recheck: after each block CometBFT asks again about every transaction
   * still in its mempool. Such a transaction is already in the pending pool, so it is checked
   * against committed state plus the *other* pending transactions: its own spends and its own id
   * must not count against it (a plain checkTx would call it a double spend of itself). One that
   * no longer holds (a block spent its input) leaves the pool. One that is not pending (this
   * node's pool was emptied while CometBFT kept its mempool) is checked as new.
   */
  async recheckTx(bytes: Uint8Array): Promise<CheckTxResult> {
    const prepared = await this.prepare(bytes);
    if ("code" in prepared) return { ok: false, rejection: prepared };
    for (;;) {
      if (!this.isPending(prepared)) return this.checkTx(bytes);
      if (!isLegacy(prepared) && this.stillValid(prepared)) {
        this.validatedAt.set(prepared.id, this.commitGeneration);
        this.askedAt.set(prepared.id, this.askEpoch);
        return { ok: true, tx: prepared };
      }
      const generation = this.commitGeneration;
      const read = await this.readFor(prepared);
      if (generation !== this.commitGeneration || !this.isPending(prepared)) continue;
      // Synchronous from here, as in checkTx.
      const rejection = this.validatePending(read, prepared);
      if (rejection === null) {
        if (!isLegacy(prepared)) this.noteValidated(prepared);
        this.askedAt.set(prepared.id, this.askEpoch);
        return { ok: true, tx: prepared };
      }
      this.release(prepared.id);
      return { ok: false, rejection };
    }
  }

  /**
   * checkTx without joining the pending pool: valid against committed state and the pending
   * pool? An engine whose own CheckTx admits transactions (CometBFT's mempool calls checkTx)
   * uses this to refuse, before broadcasting, what its CheckTx would refuse anyway, so that even
   * an `async` POST gets its 400 (BigchainDB validated before posting to Tendermint,
   * bigchaindb-v2-behaviour.md §3). The pending pool counts as in checkTx, so a transaction may
   * spend an output of a pending one. A pending transaction posted again is checked as a recheck
   * is (its own spends and id left out): the engine knows whether it still holds it (CometBFT's
   * cache answers "already pending") or lost it and takes it again.
   */
  async dryCheckTx(bytes: Uint8Array): Promise<CheckTxResult>;
  async dryCheckTx<K extends TxKind>(bytes: Uint8Array, kind: K): Promise<CheckTxResult<PreparedOf<K>>>;
  async dryCheckTx(bytes: Uint8Array, kind?: TxKind): Promise<CheckTxResult> {
    const prepared = await this.prepare(bytes, kind);
    if ("code" in prepared) return { ok: false, rejection: prepared };
    for (;;) {
      const generation = this.commitGeneration;
      const read = await this.readFor(prepared);
      if (generation !== this.commitGeneration) continue;
      const rejection = this.validatePending(read, this.isPending(prepared) ? prepared : null);
      return rejection === null ? { ok: true, tx: prepared } : { ok: false, rejection };
    }
  }

  /**
   * Empty the pending pool: the engine's mempool that held these transactions is gone (CometBFT
   * restarted while this process ran), so no block will carry them and their spends must not
   * block new transactions.
   */
  releaseAll(): void {
    this.pending.clear();
    this.pendingSpends.clear();
    this.pendingLegacy.clear();
    this.pendingLegacySpends.clear();
    this.validatedAt.clear();
    this.askedAt.clear();
  }

  /**
   * Releases the pending transactions the mempool has not asked about (checkTx or recheckTx)
   * since more than `commitsMax` commits (or idle spells, `noteIdleSpell`) ago, and returns
   * their ids. CometBFT rechecks every
   * transaction of its mempool after each block, so one it stopped asking about has left its
   * mempool without a block: it dropped it after this node's checkTx said yes (a mempool that
   * filled up in between). Kept, its spends would refuse every other spend of those outputs
   * until a restart. Lagging rechecks (another connection than the commits') are why the
   * margin is more than one commit; one released too early still commits if proposed.
   */
  releaseUnasked(commitsMax: number): string[] {
    const released: string[] = [];
    for (const [id, epoch] of this.askedAt) {
      if (this.askEpoch - epoch > commitsMax) released.push(id);
    }
    for (const id of released) this.release(id);
    return released;
  }

  /**
   * An engine saw no block for a while: counted as a commit by `releaseUnasked`. A mempool that
   * held a transaction would have made a block of it, so those it dropped after blocks stopped
   * coming are released too (else only the next block, whenever it comes, would release them).
   */
  noteIdleSpell(): void {
    this.askEpoch++;
  }

  /** Drop a pending transaction that no block will carry (e.g. the engine refused it). */
  release(id: string): void {
    this.askedAt.delete(id);
    const legacy = this.pendingLegacy.get(id);
    if (legacy !== undefined) {
      this.pendingLegacy.delete(id);
      for (const ref of legacy.spends) this.pendingLegacySpends.delete(legacyOutputKey(ref));
    }
    const tx = this.pending.get(id);
    if (tx === undefined) return;
    this.pending.delete(id);
    this.validatedAt.delete(id);
    for (const input of tx.inputs) if (input.fulfills !== null) this.pendingSpends.delete(outputKey(input.fulfills));
  }

  /**
   * ABCI FinalizeBlock: execute the block's transactions in order, each against committed state
   * plus the earlier valid ones of the block, v2.0 and legacy alike (one overlay, two
   * namespaces). A later conflicting one is rejected and not stored; a rejected legacy one is
   * recorded as `invalid` (DECISIONS #16). The app hash covers the valid ids of both kinds in
   * block order. Nothing is written until `commit`.
   */
  async finalizeBlock(height: number, txs: readonly Uint8Array[]): Promise<FinalizedBlock> {
    assert.equal(this.staged, null, "finalizeBlock twice without commit");
    assert.equal(height, this.height + 1, "block heights are contiguous");
    for (const listener of this.finalizingListeners) listener(height);
    const cacheKeys = txs.map(preparedKey);
    const prepared = await Promise.all(txs.map((bytes, i) => this.prepareKeyed(cacheKeys[i]!, bytes)));
    const current: PreparedTx[] = [];
    const legacy: PreparedLegacyTx[] = [];
    for (const p of prepared) {
      if ("code" in p) continue;
      if (isLegacy(p)) legacy.push(p);
      else current.push(p);
    }
    // A block without legacy transactions reads nothing legacy (the hot path stays as it was).
    const [committed, legacyCommitted] = await Promise.all([
      this.readCommitted(current),
      legacy.length === 0 ? null : this.readLegacyCommitted(legacy, height),
    ]);
    const block = new BlockOverlay(committed);
    const legacyBlock = legacyCommitted === null ? null : new LegacyBlockOverlay(legacyCommitted);
    const results: (Rejection | null)[] = [];
    const validIds: string[] = [];
    const valid: PreparedTx[] = [];
    const validLegacy: PreparedLegacyTx[] = [];
    const committedLegacy: CommittedLegacyTx[] = [];
    const refused: LegacyInvalidTx[] = [];
    for (const tx of prepared) {
      if ("code" in tx) {
        results.push(tx);
        continue;
      }
      if (isLegacy(tx)) {
        assert(legacyBlock !== null, "a legacy transaction in a block read as without any");
        const rejection = validateLegacy(tx, legacyBlock);
        results.push(rejection);
        if (rejection === null) {
          legacyBlock.apply(tx);
          committedLegacy.push(toCommittedLegacyTx(tx, validIds.length));
          validLegacy.push(tx);
          validIds.push(tx.id);
        } else if (!legacyBlock.hasTransaction(tx.id)) {
          // Refused at execution: status `invalid`. A copy of a transaction already committed
          // (or valid earlier in this block) is not recorded: that transaction is valid.
          refused.push({ id: tx.id, code: rejection.code, message: rejection.message });
        }
        continue;
      }
      const rejection = validateTx(tx, block);
      results.push(rejection);
      if (rejection === null) {
        block.apply(tx);
        valid.push(tx);
        validIds.push(tx.id);
      }
    }
    const appHash = nextAppHash(this.appHash, validIds);
    const committedTxs = valid.map(toCommittedTx);
    const write: BlockWrite =
      legacy.length === 0
        ? { height, appHash, txs: committedTxs }
        : { height, appHash, txs: committedTxs, legacy: { txs: committedLegacy, invalid: refused } };
    this.staged = {
      write,
      txs: valid,
      legacyTxs: validLegacy,
      carriedIds: [...current.map((tx) => tx.id), ...legacy.map((tx) => tx.id)],
      cacheKeys,
    };
    return { height, appHash, results };
  }

  /** ABCI Commit: make the finalized block durable, then tell the listeners. */
  async commit(): Promise<CommittedBlock> {
    const staged = this.staged;
    assert(staged !== null, "commit without finalizeBlock");
    await this.deps.store.commitBlock(staged.write);
    this.staged = null;
    this.height = staged.write.height;
    this.appHash = staged.write.appHash;
    this.commitGeneration++;
    this.askEpoch++;
    const spent = new Set<string>();
    for (const tx of staged.write.txs) for (const ref of tx.spends) spent.add(outputKey(ref));
    this.lastCommit = { generation: this.commitGeneration, spent };
    for (const id of staged.carriedIds) this.release(id);
    // Verified once, used: a committed transaction's bytes come back only as a duplicate, which
    // is refused either way. Dropped now, its objects mostly die young instead of being copied
    // into the old generation by the scavenger (measured: ~13% of a CometBFT node's CPU in GC).
    for (const key of staged.cacheKeys) this.cache.delete(key);
    const block: CommittedBlock = {
      height: this.height,
      appHash: this.appHash,
      txs: staged.txs,
      legacyTxs: staged.legacyTxs,
    };
    for (const listener of this.listeners) listener(block);
    return block;
  }

  private isPending(tx: Prepared): boolean {
    return isLegacy(tx) ? this.pendingLegacy.has(tx.id) : this.pending.has(tx.id);
  }

  private admit(tx: Prepared): void {
    this.askedAt.set(tx.id, this.askEpoch);
    if (isLegacy(tx)) {
      this.pendingLegacy.set(tx.id, tx);
      for (const ref of tx.spends) this.pendingLegacySpends.add(legacyOutputKey(ref));
      return;
    }
    this.noteValidated(tx);
    this.pending.set(tx.id, tx);
    for (const input of tx.inputs) if (input.fulfills !== null) this.pendingSpends.add(outputKey(input.fulfills));
  }

  /**
   * Records that a pending (or about to be) v2.0 transaction was just found valid, if it spends
   * only committed outputs: an input from a pending transaction can vanish without any block
   * (its maker released), so such a transaction is always checked in full.
   */
  private noteValidated(tx: PreparedTx): void {
    const committedInputs = tx.inputs.every((input) => input.fulfills === null || !this.pending.has(input.fulfills.transactionId));
    if (committedInputs) this.validatedAt.set(tx.id, this.commitGeneration);
    else this.validatedAt.delete(tx.id);
  }

  /**
   * Whether a pending v2.0 transaction valid at the previous generation still is, without a
   * read. What it was checked against: its id not committed (a block carrying that id released
   * it, so it would not be pending), committed outputs as inputs (immutable but for being
   * spent), and the other pending transactions' spends (checkTx admits none that conflicts with
   * a pending one). So only the last block's spends can have made it invalid.
   */
  private stillValid(tx: PreparedTx): boolean {
    const last = this.lastCommit;
    if (last === null || last.generation !== this.commitGeneration) return false;
    if (this.validatedAt.get(tx.id) !== this.commitGeneration - 1) return false;
    for (const input of tx.inputs) if (input.fulfills !== null && last.spent.has(outputKey(input.fulfills))) return false;
    return true;
  }

  /** What checking one transaction against committed state needs, read for its kind. */
  private async readFor(tx: Prepared): Promise<ReadFor> {
    if (isLegacy(tx)) return { tx, legacy: await this.readLegacyCommitted([tx], null) };
    return { tx, committed: await this.readCommitted([tx]) };
  }

  /** Synchronous: `read.tx` against what was read plus the pending pool (`self` left out). */
  private validatePending(read: ReadFor, self: Prepared | null): Rejection | null {
    if ("legacy" in read) {
      const own = self !== null && isLegacy(self) ? self : null;
      const view = legacyPendingView(read.legacy, this.pendingLegacy, this.pendingLegacySpends, own);
      return validateLegacy(read.tx, view);
    }
    const own = self !== null && !isLegacy(self) ? self : null;
    return validateTx(read.tx, this.pendingView(read.committed, own));
  }

  /**
   * One batched read of what legacy validation needs from committed state: which of the ids
   * exist, the spent outputs, and the federation = the validator set in force at `height` (a
   * block's own height, so every node decides alike) or the latest (checkTx).
   */
  private async readLegacyCommitted(
    txs: readonly PreparedLegacyTx[],
    height: number | null,
  ): Promise<LegacyCommittedState> {
    const store = this.deps.store;
    const refs = legacySpendsOf(txs);
    const [ids, outputs, validators] = await Promise.all([
      store.findLegacyTransactions(txs.map((tx) => tx.id)),
      refs.length === 0 ? new Map<string, StoredLegacyOutput>() : store.getLegacyOutputs(refs),
      height === null ? store.getValidators() : store.getValidators(height),
    ]);
    return { ids, outputs, federation: federationOf(validators) };
  }

  /** One batched read of what the validator needs from committed state for these transactions. */
  private async readCommitted(txs: readonly PreparedTx[]): Promise<CommittedState> {
    const refs: OutputRef[] = [];
    const creates: string[] = [];
    for (const tx of txs) {
      if (tx.operation === "CREATE") creates.push(tx.id);
      for (const input of tx.inputs) if (input.fulfills !== null) refs.push(input.fulfills);
    }
    const [ids, outputs] = await Promise.all([
      creates.length === 0 ? new Set<string>() : this.deps.store.findTransactions(creates),
      refs.length === 0 ? new Map<string, StoredOutput>() : this.deps.store.getOutputs(refs),
    ]);
    return { ids, outputs };
  }

  // Committed state, plus pending transactions: their spends count as spent, and their outputs
  // can be spent (chained spends in the pool are checked again when a block executes them).
  // `self` (a recheck) is left out: its id and its spends are its own, not a conflict. No other
  // pending transaction spends the same outputs (checkTx admits no conflict), so leaving out
  // `self`'s spend keys removes only its own.
  private pendingView(committed: CommittedState, self: PreparedTx | null = null): LedgerView {
    const pending = this.pending;
    const pendingSpends = this.pendingSpends;
    const own = new Set<string>();
    if (self !== null) for (const input of self.inputs) if (input.fulfills !== null) own.add(outputKey(input.fulfills));
    const spentPending = (key: string): boolean => pendingSpends.has(key) && !own.has(key);
    return {
      hasTransaction: (id) => committed.ids.has(id) || (pending.has(id) && id !== self?.id),
      getOutput: (ref) => {
        const key = outputKey(ref);
        const stored = committed.outputs.get(key);
        if (stored !== undefined) {
          return { ...spendable(stored), spent: stored.spentBy !== null || spentPending(key) };
        }
        const maker = pending.get(ref.transactionId);
        const output = maker?.outputs[ref.outputIndex];
        if (maker === undefined || output === undefined) return undefined;
        return { amount: output.amount, conditionUri: output.conditionUri, assetId: maker.assetId, spent: spentPending(key) };
      },
    };
  }
}


/** A transaction with the committed state read for it, by kind. */
type ReadFor =
  | { readonly tx: PreparedTx; readonly committed: CommittedState }
  | { readonly tx: PreparedLegacyTx; readonly legacy: LegacyCommittedState };

function pendingRejection(tx: Prepared): Rejection {
  return reject("PendingTransaction", `Transaction \`${tx.id}\` is already pending`);
}


/** Committed state plus the valid transactions applied so far in the block being executed. */

function toCommittedTx(tx: PreparedTx): CommittedTx {
  const spends = tx.inputs.flatMap((input) => (input.fulfills === null ? [] : [input.fulfills]));
  return {
    id: tx.id,
    operation: tx.operation,
    assetId: tx.assetId,
    json: tx.json,
    assetData: tx.assetData,
    metadata: tx.metadata,
    outputs: tx.outputs,
    spends,
  };
}
