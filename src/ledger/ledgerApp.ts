// The ledger is the state machine, in the shape of an ABCI application (info, initChain, checkTx,
// finalizeBlock, commit) so that the same code runs under the embedded solo engine and behind
// CometBFT. It owns: the prepared-transaction cache (signatures are verified once per
// transaction per node), the pending pool (pendingPool.ts), block execution against committed
// state plus the block's earlier transactions, the app-hash chain, and the committed-block event.
//
// It holds every registered kind of transaction (txKind.ts, kinds/registry.ts): v2.0 ones and
// the legacy variants A and B (docs/compatibility.md #13-#16). They share the pending pool, the
// blocks, their order and the app hash; their ids, outputs and spends are separate namespaces,
// and each kind is validated by its own rules. Nothing here knows which kinds there are.
import assert from "node:assert/strict";
import { reject, type Rejection } from "../errors/ledgerError.js";
import type { BlockWrite, ChainRules, ChainState, Evidence, LedgerStore, Validator } from "../store/store.js";
import type { CommitmentVersion } from "../proofs/commitment.js";
import { CheckReads } from "./checkReads.js";
import { ChainCommitment, type StagedCommitment } from "./commitment.js";
import { kindOf, txKinds } from "./kinds/registry.js";
import { ledgerOptionsDefault, type LedgerOptions } from "./options.js";
import { PendingPool } from "./pendingPool.js";
import {
  noRuleHeights,
  protocolVersion,
  protocolVersionAt,
  ruleHeightsFor,
  ruleHeightsOf,
  rulesAt,
  type RuleHeights,
} from "./protocol.js";
import type { PreparePool } from "./preparePool.js";
import { PreparedCache, preparedKey, type PreparedKey } from "./preparedCache.js";
import { RivalWatch } from "./rivalWatch.js";
import type { AnyTxKind, Door, KindBlock, PreparedBase, StreamEvent } from "./txKind.js";
import { failpoint } from "../failpoints.js";
import { systemClock, type Clock } from "../clock/clock.js";
import { restoredDoor } from "./doors.js";
import { prepareBytes } from "./prepared.js";

export type CheckTxResult =
  | { readonly ok: true; readonly tx: PreparedBase }
  | { readonly ok: false; readonly rejection: Rejection };

export interface FinalizedBlock {
  readonly height: number;
  readonly appHash: string;
  /** One per transaction of the block, in order: null when valid, else why it was rejected. */
  readonly results: readonly (Rejection | null)[];
  /** Validators whose power the block changed (an election concluded), for the engine. */
  readonly validatorUpdates: readonly Validator[];
}

/**
 * Misbehavior the engine reports with a block (ABCI 2.0 FinalizeBlock's `misbehavior`, which
 * CometBFT has proved and committed): recorded with the block, numbered in its order. It is not
 * in the app hash: it changes no ledger state, and the block header's evidence hash covers it.
 */
export type Misbehavior = Omit<Evidence, "height" | "index">;

export interface CommittedBlock {
  readonly height: number;
  readonly appHash: string;
  /** The evidence the block carried, in its order. */
  readonly evidence: readonly Evidence[];
  /** What the event stream sends for the block, in block order (a kind may send nothing). */
  readonly txs: readonly StreamEvent[];
  /** Every valid transaction of every kind, in block order. */
  readonly committed: readonly PreparedBase[];
  /** When the block changed the validator set: the whole new set, in force from `height + 1`. */
  readonly validators?: readonly Validator[];
}

export interface LedgerDeps {
  readonly store: LedgerStore;
  readonly pool: PreparePool;
  /**
   * What the engine refuses whatever the ledger says, checked before the pending pool is
   * (the solo engine: elections, docs/compatibility.md #11). None by default.
   */
  readonly refuse?: (tx: PreparedBase) => Rejection | null;
  /** What a replay batch's age is read on (`replayBatchMsMax`); Node's by default. */
  readonly clock?: Pick<Clock, "now">;
}

interface StagedBlock {
  readonly write: BlockWrite;
  readonly commitment: StagedCommitment;
  readonly events: readonly StreamEvent[];
  /** The valid transactions, in block order, and the kind of each. */
  readonly valid: readonly PreparedBase[];
  readonly validKinds: readonly AnyTxKind[];
  /** Every transaction id the block carried, valid or not, to release from the pending pool. */
  readonly carriedIds: readonly string[];
  /** The block's transactions as PreparedCache keys, to drop once the block is committed. */
  readonly cacheKeys: readonly PreparedKey[];
}

/**
 * How long a replay batch stays open at most (`LedgerApp.commit`), besides its blocks
 * (`LedgerOptions.replayBatchBlocksMax`): what another connection to the store (an HTTP worker)
 * lags behind the writer at most, however slow the blocks come.
 */
export const replayBatchMsMax = 1_000;

export class LedgerApp {
  private height: number;
  private chainId: string | null;
  private commitment: ChainCommitment;
  private staged: StagedBlock | null = null;
  /** The last block handed to the store (the staged one's write may have failed after it). */
  private storedHeight: number;
  /** The blocks written since the replay batch began and when it began, while one is open (see `commit`). */
  private replayBatch: { blocks: number; readonly since: number } | null = null;
  private readonly cache: PreparedCache;
  private readonly pending = new PendingPool(txKinds);
  /** The transactions engines wait to see committed, by what they spend (`watchRivals`). */
  private readonly rivals: RivalWatch;
  /** The checks' reads of committed state, batched while one is in flight (checkReads.ts). */
  private readonly checkReads: CheckReads;
  private readonly listeners: ((block: CommittedBlock) => void)[] = [];
  private readonly finalizingListeners: ((height: number) => void)[] = [];

  /**
   * The protocol version the chain's genesis starts with; null if not begun or not recorded (a
   * chain begun before schema 7, until the engine reads it).
   */
  private genesisVersion: bigint | null;
  private ruleHeights: RuleHeights;

  private constructor(
    private readonly options: LedgerOptions,
    private readonly deps: LedgerDeps,
    state: ChainState,
    commitment: ChainCommitment,
  ) {
    this.height = state.height;
    this.storedHeight = state.height;
    this.chainId = state.chainId;
    this.genesisVersion = state.appVersion;
    this.ruleHeights = ruleHeightsFor(state.chainId, knownRuleHeights(state.ruleHeights));
    this.commitment = commitment;
    this.cache = new PreparedCache(options.preparedCacheEntriesMax);
    // A watched transaction is one its engine is handing over, which the pending pool would hold:
    // no more are watched than the pool holds.
    this.rivals = new RivalWatch(options.pendingTxsMax);
    this.checkReads = new CheckReads(deps.store, () => this.pending.generation);
  }

  static async open(options: Partial<LedgerOptions>, deps: LedgerDeps): Promise<LedgerApp> {
    const state = await deps.store.getChainState();
    const commitment = await ChainCommitment.open(deps.store, state);
    return new LedgerApp({ ...ledgerOptionsDefault, ...options }, deps, state, commitment);
  }

  /**
   * ABCI Info: where the committed chain stands, so an engine can resume or replay, and the
   * protocol version of the next block (what CometBFT's state holds after the last one).
   */
  info(): { readonly height: number; readonly appHash: string; readonly appVersion: bigint } {
    const appVersion = this.protocolVersionAt(this.height + 1);
    return { height: this.height, appHash: this.commitment.appHash, appVersion };
  }

  /** Whether the chain has begun and the store does not know its genesis's protocol version (begun before schema 7). */
  get genesisVersionUnknown(): boolean {
    return this.chainId !== null && this.genesisVersion === null;
  }

  /**
   * The protocol version the chain's genesis starts with, when the store did not record it at
   * InitChain (a chain begun before schema 7): the engine reads it from the genesis later.
   */
  async recordGenesisVersion(appVersion: bigint): Promise<void> {
    if (!this.genesisVersionUnknown) return;
    await this.deps.store.recordAppVersion(appVersion);
    this.genesisVersion = appVersion;
  }

  /** The rule changes in force at `height` (protocol.ts): what a height-gated check asks. */
  rulesAt(height: number): ReadonlySet<string> {
    return rulesAt(height, this.ruleHeights);
  }

  /**
   * The protocol version of the block at `height`: the genesis's, moved by the rule changes on
   * by then. A chain that did not record its genesis's (begun before the store kept it, or not
   * begun) counts from this release's, as Info reported before.
   */
  protocolVersionAt(height: number): bigint {
    return protocolVersionAt(height, this.genesisVersion ?? protocolVersion, this.ruleHeights);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Whether a transaction of a kind posted through `door` with this id is pending: accepted,
   * not in a committed block yet (the legacy status `backlog`).
   */
  isPending(id: string, door: Door): boolean {
    for (const kind of txKinds) if (kind.door === door && this.pending.has(kind, id)) return true;
    return false;
  }

  /**
   * Whether the chain's recorded rules are these: its genesis's protocol version and its rule
   * heights as the ledger holds them (a state-sync resume continues only under the same ones).
   */
  rulesAre(appVersion: bigint, ruleHeights: RuleHeights): boolean {
    if (this.genesisVersion !== appVersion) return false;
    const theirs = ruleHeightsFor(this.chainId, ruleHeights);
    return theirs.size === this.ruleHeights.size && [...theirs].every(([name, at]) => this.ruleHeights.get(name) === at);
  }

  /** The chain id recorded by initChain, or null on a new store. */
  get chain(): string | null {
    return this.chainId;
  }

  /** The app hash's rule this chain uses (docs/proofs.md). */
  get commitmentVersion(): CommitmentVersion {
    return this.commitment.version;
  }

  /**
   * Starts the chain; `commitment` is its app hash's rule, `v1` unless it must match an older
   * chain; `rules` the genesis's protocol version and rule heights (default: this release's
   * version, none; a null version: not known, as in a copy of a chain that did not record it),
   * kept in the store so that every start reads them back.
   */
  async initChain(
    chainId: string,
    validators: readonly Validator[],
    commitment: CommitmentVersion = "v1",
    rules: ChainRules = { appVersion: protocolVersion, ruleHeights: noRuleHeights },
  ): Promise<void> {
    const ruleHeights = ruleHeightsFor(chainId, knownRuleHeights(rules.ruleHeights));
    await this.deps.store.initChain(chainId, validators, commitment, rules);
    this.chainId = chainId;
    this.genesisVersion = rules.appVersion;
    this.ruleHeights = ruleHeights;
    this.commitment = await ChainCommitment.open(this.deps.store, await this.deps.store.getChainState());
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
   * Parse and verify (cached by exact bytes, on the worker pool when missing). Without `door`
   * the body's shape tells the kind (a block carries every kind); with it, bytes of a kind
   * posted elsewhere get the rejection the door's own kinds give (see `prepareBytes`).
   */
  async prepare(bytes: Uint8Array, door?: Door): Promise<PreparedBase | Rejection> {
    return this.prepareKeyed(preparedKey(bytes), bytes, door);
  }

  private async prepareKeyed(key: PreparedKey, bytes: Uint8Array, door?: Door): Promise<PreparedBase | Rejection> {
    const cached = this.cache.get(key);
    if (cached !== undefined && (door === undefined || kindOf(cached).door === door)) return cached;
    // A successful result is the same whatever the door asked (the kinds' shapes exclude each
    // other), so the cache holds one per bytes; a mismatch is read again, as the door asked,
    // for its rejection.
    const result = await this.deps.pool.prepare(bytes, door);
    if (!("code" in result)) this.cache.put(key, result);
    return result;
  }

  /**
   * Take a transaction prepared elsewhere in this node (an HTTP worker process) as if this
   * process had prepared it: the bytes and result come from a trusted sibling, not the network.
   */
  remember(bytes: Uint8Array, tx: PreparedBase): void {
    this.cache.put(preparedKey(bytes), tx);
  }

  /**
   * ABCI CheckTx: valid against committed state and the pending pool? If so, the transaction
   * joins the pending pool (its spends count as spent for later checks) until a block carries it
   * or `release` drops it. With `door`, only a transaction of the kinds posted there (the HTTP
   * routes of each interface); without, any kind (CometBFT's mempool).
   */
  async checkTx(bytes: Uint8Array, door?: Door): Promise<CheckTxResult> {
    const prepared = await this.prepare(bytes, door);
    if ("code" in prepared) return { ok: false, rejection: prepared };
    return this.checkPrepared(prepared);
  }

  /**
   * checkTx's checks of a transaction prepared already: recheckTx's of one not pending (every
   * new CheckTx from CometBFT's mempool) would otherwise make its cache key and look it up again.
   */
  private async checkPrepared(prepared: PreparedBase): Promise<CheckTxResult> {
    const refused = this.deps.refuse?.(prepared) ?? null;
    if (refused !== null) return { ok: false, rejection: refused };
    const kind = kindOf(prepared);
    if (this.pending.has(kind, prepared.id)) return { ok: false, rejection: pendingRejection(prepared) };
    if (this.pending.size >= this.options.pendingTxsMax) {
      return { ok: false, rejection: reject("MempoolFull", "The pending pool is full; try again later") };
    }
    for (;;) {
      const { state: committed, generation } = await this.checkReads.read(kind, prepared);
      if (generation !== this.pending.generation) continue;
      // From here to the end: synchronous, so the pending pool cannot change under the check.
      const rejection = kind.validatePending(prepared, committed, this.pending.viewFor(kind, null), null);
      if (rejection !== null) return { ok: false, rejection };
      if (this.pending.has(kind, prepared.id)) return { ok: false, rejection: pendingRejection(prepared) };
      this.pending.admit(kind, prepared);
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
    const kind = kindOf(prepared);
    for (;;) {
      if (!this.pending.has(kind, prepared.id)) return this.checkPrepared(prepared);
      if (this.pending.stillValid(kind, prepared)) {
        this.pending.noteStillValid(prepared);
        return { ok: true, tx: prepared };
      }
      const { state: committed, generation } = await this.checkReads.read(kind, prepared);
      if (generation !== this.pending.generation || !this.pending.has(kind, prepared.id)) continue;
      // Synchronous from here, as in checkTx.
      const rejection = kind.validatePending(prepared, committed, this.pending.viewFor(kind, prepared), prepared);
      if (rejection === null) {
        this.pending.noteAsked(kind, prepared);
        return { ok: true, tx: prepared };
      }
      this.pending.release(prepared.id);
      return { ok: false, rejection };
    }
  }

  /**
   * checkTx without joining the pending pool: valid against committed state and the pending
   * pool? An engine whose own CheckTx admits transactions (CometBFT's mempool calls checkTx)
   * uses this to refuse, before broadcasting, what its CheckTx would refuse anyway, so that even
   * an `async` POST gets its 400 (BigchainDB validated before posting to Tendermint,
   * docs/bigchaindb-behaviour.md §3). The pending pool counts as in checkTx, so a transaction may
   * spend an output of a pending one. A pending transaction posted again is checked as a recheck
   * is (its own spends and id left out): the engine knows whether it still holds it (CometBFT's
   * cache answers "already pending") or lost it and takes it again.
   */
  async dryCheckTx(bytes: Uint8Array, door?: Door): Promise<CheckTxResult> {
    const prepared = await this.prepare(bytes, door);
    if ("code" in prepared) return { ok: false, rejection: prepared };
    const refused = this.deps.refuse?.(prepared) ?? null;
    if (refused !== null) return { ok: false, rejection: refused };
    const rejection = await this.validateNow(kindOf(prepared), prepared);
    return rejection === null ? { ok: true, tx: prepared } : { ok: false, rejection };
  }

  /**
   * `tx` against committed state and the pending pool as they are now, joining nothing; a
   * pending `tx` is checked as a recheck is (its own spends and id left out).
   */
  private async validateNow(kind: AnyTxKind, tx: PreparedBase): Promise<Rejection | null> {
    for (;;) {
      const { state: committed, generation } = await this.checkReads.read(kind, tx);
      if (generation !== this.pending.generation) continue;
      const self = this.pending.has(kind, tx.id) ? tx : null;
      return kind.validatePending(tx, committed, this.pending.viewFor(kind, self), self);
    }
  }

  /**
   * Calls `onDefeat` with the transaction's rejection, as a POST of it would now get it, once a
   * committed block spends an output `tx` spends under another id: `tx` can never commit. For an
   * engine whose `mode=commit` caller waits: behind CometBFT the loser of a double spend leaves
   * the mempool at its recheck without a word, and would wait out the whole commit timeout.
   * Returns what stops the watch (call it once the wait is over), or null when `pendingTxsMax`
   * transactions are watched already (the caller then waits as before).
   */
  watchRivals(tx: PreparedBase, onDefeat: (rejection: Rejection) => void): (() => void) | null {
    const kind = kindOf(tx);
    return this.rivals.watch(kind, tx, () => void this.answerDefeated(kind, tx, onDefeat));
  }

  /**
   * The defeated transaction checked again against the committed block: the rules phrase its
   * refusal (a DoubleSpend, "input `<id>` was already spent"). A check that fails (the store
   * cannot be read) answers nothing: the caller's own timeout still will.
   */
  private async answerDefeated(
    kind: AnyTxKind,
    tx: PreparedBase,
    onDefeat: (rejection: Rejection) => void,
  ): Promise<void> {
    const rejection = await this.validateNow(kind, tx).catch(() => null);
    if (rejection !== null) onDefeat(rejection);
  }

  /**
   * Empty the pending pool: the engine's mempool that held these transactions is gone (CometBFT
   * restarted while this process ran), so no block will carry them and their spends must not
   * block new transactions.
   */
  releaseAll(): void {
    this.pending.releaseAll();
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
    return this.pending.releaseUnasked(commitsMax);
  }

  /**
   * An engine saw no block for a while: counted as a commit by `releaseUnasked`. A mempool that
   * held a transaction would have made a block of it, so those it dropped after blocks stopped
   * coming are released too (else only the next block, whenever it comes, would release them).
   */
  noteIdleSpell(): void {
    this.pending.noteIdleSpell();
  }

  /** Drop a pending transaction that no block will carry (e.g. the engine refused it). */
  release(id: string): void {
    this.pending.release(id);
  }

  /**
   * ABCI FinalizeBlock: execute the block's transactions in order, each against committed state
   * plus the earlier valid ones of its kind in the block (one overlay per kind). A later
   * conflicting one is rejected and not stored (a kind may record it: legacy ones are `invalid`,
   * docs/compatibility.md #16). The app hash covers the valid ids of every kind in block order.
   * Nothing is written until `commit`.
   *
   * `previousCommit`: the previous block's `commit`, when the engine does not wait for it to be
   * durable before the next block (CometBFT's, abciApp.ts). The transactions are prepared (their
   * signatures verified) while it is written; nothing reads committed state before it settles.
   * `misbehavior`: what the engine reports the block carried (see Misbehavior).
   */
  async finalizeBlock(
    height: number,
    txs: readonly Uint8Array[],
    previousCommit?: Promise<unknown>,
    misbehavior: readonly Misbehavior[] = [],
  ): Promise<FinalizedBlock> {
    const cacheKeys = txs.map(preparedKey);
    const preparing = Promise.all(txs.map((bytes, i) => this.prepareKeyed(cacheKeys[i]!, bytes)));
    if (previousCommit !== undefined) {
      preparing.catch(() => undefined); // awaited below; its failure meanwhile is not unhandled
      await previousCommit;
    }
    // ABCI executes a block again after a crash between FinalizeBlock and Commit (CometBFT's
    // handshake replays that height): the new execution replaces the one staged. A block of
    // another height with one staged is a broken invariant.
    if (this.staged !== null) {
      assert.equal(height, this.staged.write.height, "finalizeBlock of another height than the uncommitted block's");
      this.abandonBlock();
    }
    assert.equal(height, this.height + 1, "block heights are contiguous");
    for (const listener of this.finalizingListeners) listener(height);
    return this.execute(height, await preparing, cacheKeys, misbehavior);
  }

  /**
   * A transaction of a state-sync snapshot whose chain was checked against a trusted app hash
   * (docs/state-sync.md), prepared without checking its signatures or hashing its id again (the
   * restore's first pass hashed these bytes) and kept out of the prepared
   * cache (whose entries a CheckTx would take as verified). On this thread: without signatures
   * the pool's threads gained nothing over the cost of sending the results back (measured in
   * paired runs, docs/state-sync.md "Figures").
   */
  prepareRestored(json: string): PreparedBase | Rejection {
    return prepareBytes(json, restoredDoor);
  }

  /**
   * A transaction a state-sync snapshot says its block carried and execution refused: outside
   * the app hash, so prepared with every check a replay makes (any kind, signatures, id hashed).
   * On this thread and not cached: they are rare.
   */
  prepareRefused(json: string): PreparedBase | Rejection {
    return prepareBytes(json);
  }

  /**
   * Commits a block of a state-sync snapshot whose chain was checked against a trusted app hash
   * first (docs/state-sync.md): its transactions (prepareRestored, and prepareRefused at the
   * places `refused` names) executed in order and written as finalizeBlock and commit do, so a
   * refusal is the rules' own, recorded as a replay records it. Every other one must be valid,
   * as the chain committed them: a refused one throws (this node's rules are not the chain's).
   * A transaction at a `refused` place that the rules let pass would change the app hash: the
   * block is restored without it (`leftOut`, their ids).
   */
  async restoreBlock(
    height: number,
    prepared: readonly (PreparedBase | Rejection)[],
    misbehavior: readonly Misbehavior[],
    refused: readonly number[] = [],
  ): Promise<CommittedBlock & { readonly leftOut: readonly string[] }> {
    assert(this.staged === null, "a restored block while another is staged");
    assert.equal(height, this.height + 1, "block heights are contiguous");
    const finalized = await this.execute(height, prepared, [], misbehavior);
    const passed = refused.filter((i) => finalized.results[i] === null);
    if (passed.length > 0) {
      this.abandonBlock();
      const kept = prepared.flatMap((_, i) => (passed.includes(i) ? [] : [i]));
      const block = await this.restoreBlock(height, kept.map((i) => prepared[i]!), misbehavior, kept.flatMap((i, at) => (refused.includes(i) ? [at] : [])));
      return { ...block, leftOut: [...passed.map((i) => (prepared[i] as PreparedBase).id), ...block.leftOut] };
    }
    const wrong = finalized.results.findIndex((result, i) => result !== null && !refused.includes(i));
    if (wrong >= 0) {
      this.abandonBlock();
      throw new Error(`restored block ${height}: transaction ${wrong} is refused: ${finalized.results[wrong]!.message}`);
    }
    return { ...(await this.commit()), leftOut: [] };
  }

  /** finalizeBlock once the block's transactions are prepared. */
  private async execute(
    height: number,
    prepared: readonly (PreparedBase | Rejection)[],
    cacheKeys: readonly PreparedKey[],
    misbehavior: readonly Misbehavior[],
  ): Promise<FinalizedBlock> {
    const kinds = prepared.map((p) => ("code" in p ? null : kindOf(p)));
    // Only the kinds the block carries read anything: a block of one kind costs what it did alone.
    const blocks = await this.openBlocks(prepared, kinds, height);
    const results: (Rejection | null)[] = [];
    const validIds: string[] = [];
    const valid: PreparedBase[] = [];
    const validKinds: AnyTxKind[] = [];
    const events: StreamEvent[] = [];
    const carriedIds: string[] = [];
    for (let i = 0; i < prepared.length; i++) {
      const tx = prepared[i]!;
      const kind = kinds[i]!;
      if ("code" in tx || kind === null) {
        results.push("code" in tx ? tx : null);
        continue;
      }
      carriedIds.push(tx.id);
      const rejection = blocks.get(kind)!.execute(tx, validIds.length);
      results.push(rejection);
      if (rejection !== null) continue;
      validIds.push(tx.id);
      valid.push(tx);
      validKinds.push(kind);
      const event = kind.event(tx);
      if (event !== null) events.push(event);
      if (i < prepared.length - 1) failpoint("finalize.mid");
    }
    const commitment = this.commitment.next(height, validIds);
    const appHash = commitment.appHash;
    const write: BlockWrite = { height, appHash, txs: [], ...(commitment.history === undefined ? {} : { history: commitment.history }) };
    if (misbehavior.length > 0) Object.assign(write, { evidence: misbehavior.map((m, index) => ({ height, index, ...m })) });
    const validatorUpdates: Validator[] = [];
    for (const block of blocks.values()) {
      const { validatorUpdates: updates, ...contribution } = block.write();
      Object.assign(write, contribution);
      validatorUpdates.push(...(updates ?? []));
    }
    this.staged = { write, commitment, events, valid, validKinds, carriedIds, cacheKeys };
    return { height, appHash, results, validatorUpdates };
  }

  /**
   * Drops the block finalized and not committed, if any: the engine that finalized it is gone
   * (CometBFT's consensus connection closed) and will execute that height again. Only `staged`
   * holds it: finalizeBlock writes nothing and leaves the pending pool as it was, and the
   * block's entries in the prepared cache stay, for the block's next execution. Returns its
   * height, or null when none was staged.
   */
  abandonBlock(): number | null {
    const height = this.staged?.write.height ?? null;
    this.staged = null;
    return height;
  }

  /**
   * ABCI Commit: write the finalized block, then tell the listeners. Durable when it resolves,
   * unless `followed`: the engine holds the next block already (a catch-up replaying blocks one
   * after another) and no transaction is pending here, and then it is written in a replay batch
   * (Store.beginBulkLoad: one fsync for up to `replayBatchBlocksMax` blocks, not one each), made
   * durable with the first block written without a next one waiting, once the batch holds its
   * most blocks or is `replayBatchMsMax` old, or by `endReplayBatch`. A crash before then loses
   * those blocks from the store, and the engine gives them again: CometBFT's handshake replays
   * what the ledger lacks, from the height the store holds, as long as it kept those blocks
   * (the engine asks for no pruning while a batch is open: `replayBatchOpen`). Until then
   * another connection to the store (an HTTP worker) does not see them.
   */
  async commit(followed = false): Promise<CommittedBlock> {
    const staged = this.staged;
    assert(staged !== null, "commit without finalizeBlock");
    await this.writeBlock(staged.write, followed);
    this.staged = null;
    this.height = staged.write.height;
    this.commitment.advance(staged.commitment);
    this.pending.noteCommit(staged.valid, staged.validKinds, staged.carriedIds);
    for (const rival of this.rivals.defeatedBy(staged.valid, staged.validKinds)) rival.defeated();
    // Verified once, used: a committed transaction's bytes come back only as a duplicate, which
    // is refused either way. Dropped now, its objects mostly die young instead of being copied
    // into the old generation by the scavenger (measured: ~13% of a CometBFT node's CPU in GC).
    for (const key of staged.cacheKeys) this.cache.delete(key);
    const block: CommittedBlock = {
      height: this.height,
      appHash: this.commitment.appHash,
      evidence: staged.write.evidence ?? [],
      txs: staged.events,
      committed: staged.valid,
      ...(staged.write.validators === undefined ? {} : { validators: staged.write.validators }),
    };
    for (const listener of this.listeners) listener(block);
    return block;
  }

  /** Makes every block of the replay batch durable, if one is open (see `commit`). */
  async endReplayBatch(): Promise<void> {
    if (this.replayBatch === null) return;
    await this.deps.store.endBulkLoad();
    this.replayBatch = null;
  }

  /** Whether blocks written are waiting to be made durable together (see `commit`): the store may lose them in a crash. */
  get replayBatchOpen(): boolean {
    return this.replayBatch !== null;
  }

  /**
   * The store write of `commit`: a retry after a failure (an unreachable store) writes the block
   * once, and ends the batch it was to end.
   */
  private async writeBlock(write: BlockWrite, followedByNext: boolean): Promise<void> {
    // A node holding transactions of its own to commit is serving clients, and a client told
    // "committed" may read from another connection next: never a batch then.
    const followed = followedByNext && this.pending.size === 0 && this.options.replayBatchBlocksMax > 0;
    if (followed && this.replayBatch === null) {
      await this.deps.store.beginBulkLoad();
      this.replayBatch = { blocks: 0, since: this.clock.now() };
    }
    if (this.storedHeight < write.height) {
      await this.deps.store.commitBlock(write);
      this.storedHeight = write.height;
      if (this.replayBatch !== null) this.replayBatch.blocks++;
    }
    if (this.replayBatch !== null && (!followed || this.replayBatchFull(this.replayBatch))) await this.endReplayBatch();
  }

  /** A batch that holds its most blocks, or has been open its longest (see `commit`). */
  private replayBatchFull(batch: { blocks: number; readonly since: number }): boolean {
    return batch.blocks >= this.options.replayBatchBlocksMax || this.clock.now() - batch.since >= replayBatchMsMax;
  }

  private get clock(): Pick<Clock, "now"> {
    return this.deps.clock ?? systemClock;
  }

  /**
   * Each kind the block carries, with what it read of committed state in one batch (all kinds'
   * reads at once), in registration order (so their store writes merge in a fixed order).
   */
  private async openBlocks(
    prepared: readonly (PreparedBase | Rejection)[],
    kinds: readonly (AnyTxKind | null)[],
    height: number,
  ): Promise<Map<AnyTxKind, KindBlock<PreparedBase>>> {
    const byKind = new Map<AnyTxKind, PreparedBase[]>();
    for (const kind of txKinds) if (kinds.includes(kind)) byKind.set(kind, []);
    prepared.forEach((tx, i) => {
      const kind = kinds[i]!;
      if (kind !== null) byKind.get(kind)!.push(tx as PreparedBase);
    });
    const entries = [...byKind];
    const states = await Promise.all(entries.map(([kind, txs]) => kind.read(this.deps.store, txs, height)));
    return new Map(entries.map(([kind], i) => [kind, kind.openBlock(states[i])]));
  }
}

function pendingRejection(tx: PreparedBase): Rejection {
  return reject("PendingTransaction", `Transaction \`${tx.id}\` is already pending`);
}

/**
 * A chain's rule heights, each a rule this release knows: a store written by a newer ledgerd
 * may name one this release would not switch on, and then it would decide blocks differently.
 */
function knownRuleHeights(heights: ReadonlyMap<string, number>): RuleHeights {
  return heights.size === 0 ? noRuleHeights : ruleHeightsOf(Object.fromEntries(heights));
}
