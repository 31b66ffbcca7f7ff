// The ledger as an ABCI 2.0 application for CometBFT v0.38: each Request becomes a call on the
// same LedgerApp the solo engine drives (docs/bigchaindb-behaviour.md §3 for what BigchainDB did
// with Tendermint 0.31; the differences are listed where they happen).
//
// App hash on the wire: the ledger's app hash is 64 hex characters ("" before the first valid
// transaction); CometBFT gets its 32 raw bytes (empty before). BigchainDB sent the 64 ASCII
// characters; raw bytes are what CometBFT shows as the hex hash, so `app_hash` in a block header
// reads as the same text ledgerd reports.
import { untilStoreReachable } from "../storeRetry.js";
import { systemClock, type Clock, type TimerHandle } from "../../clock/clock.js";
import assert from "node:assert/strict";
import {
  CheckTxType,
  ExecTxResult,
  ResponseApplySnapshotChunk_Result,
  ResponseCheckTx,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  ResponseQuery,
  ResponseVerifyVoteExtension_VerifyStatus,
  type Request,
  type RequestCheckTx,
  type RequestFinalizeBlock,
  type RequestInfo,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestQuery,
  type Response,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  ValidatorUpdate,
} from "cosmjs-types/tendermint/abci/types";
import type { Rejection } from "../../errors/ledgerError.js";
import type { LedgerApp } from "../../ledger/ledgerApp.js";
import type { Store, Validator } from "../../store/store.js";
import { afterAnswersWritten, type AbciConnection, type AbciHandler } from "./abciServer.js";
import { encodeUvarint, misbehaviorOf } from "./abciCodec.js";
import { genesisProtocolVersion, rulesOfAppState } from "./genesisAppState.js";
import { failpoint } from "../../failpoints.js";
import type { SignedHeaderKeeper } from "./signedHeaderKeeper.js";
import type { SnapshotSync } from "./snapshotSync.js";

/** ABCI result codes: BigchainDB's 0 and 1 (`core.py` CodeTypeOk / CodeTypeError). */
export const codeOk = 0;
export const codeRejected = 1;

/** The result of every valid transaction of a block, shared (encoders only read it). */
const executedOk: ExecTxResult = Object.freeze(ExecTxResult.fromPartial({ code: codeOk }));

/** The answer to every accepted CheckTx; frozen, so the server encodes it once (abciServer.ts). */
const acceptedCheckTx: Response = Object.freeze({ checkTx: Object.freeze(ResponseCheckTx.fromPartial({ code: codeOk })) });

/**
 * Commits after which a pending transaction CometBFT's mempool has not rechecked is taken to have
 * left it (`LedgerApp.releaseUnasked`). The config keeps `mempool.recheck` on, as CometBFT does.
 */
export const unaskedCommitsMax = 2;

/**
 * With no block for this long, CometBFT's mempool holds none of the pending transactions (it
 * proposes as soon as it holds one; `create_empty_blocks = false`), or the network has lost its
 * quorum. Each such spell counts as a commit for `releaseUnasked` (`LedgerApp.noteIdleSpell`),
 * so a transaction CometBFT dropped just before blocks stopped coming is released as well.
 * Releasing one that is still in a stalled network's mempool is harmless: FinalizeBlock checks
 * every transaction again, and a recheck after the next block takes it back.
 */
export const idleSpellMsDefault = 5_000;

/**
 * How long a committed block's store write waits for the next FinalizeBlock (see `commit`): in
 * a catch-up the next block follows within a few milliseconds; in consensus a round takes
 * longer, and a block's durability (what `mode=commit` answers on) is delayed by this at most.
 */
export const commitWriteWaitMs = 5;

/**
 * The same wait while the last block's write was started by its next FinalizeBlock (a catch-up):
 * between a Commit and the next block CometBFT saves its state and that block (fsyncs of its
 * own), measured under load at 2.6 ms p50, 4.9 ms p90 and up to 39 ms, so one block in ten
 * missed 5 ms and its write ended the replay batch and held the next block's hand-over to the
 * verify threads (BENCHMARKS.md, issue #42, the catch-up pipeline). A wait that ends without a
 * next block goes back to `commitWriteWaitMs`, as does every wait while a transaction is pending
 * on this node (its client waits for the block to be durable).
 */
export const replayWriteWaitMs = 50;

/** A Query for a committed transaction's JSON: `/transactions/<id>`. */
const queryTransactionPath = /^\/transactions\/([0-9a-f]{64})$/;

export interface LedgerAbciAppOptions {
  /** The chain id CometBFT's genesis must carry (engine.chain_id); null accepts any. */
  readonly chainId: string | null;
  /** See `idleSpellMsDefault`. */
  readonly idleSpellMs?: number;
  /** `version` of the Info answer: ledgerd's package version. */
  readonly version: string;
}

export interface LedgerAbciAppDeps {
  readonly ledger: LedgerApp;
  /** For Query: the committed transactions. */
  readonly store: Pick<Store, "getTransaction">;
  /** A block's store write failed after Commit was answered: the node must stop. */
  readonly onFatal?: (error: unknown) => void;
  /** The idle spells, the commit write's wait and the store retry run on it; Node's timers by default. */
  readonly clock?: Clock;
  /** Stores the signed headers after each commit and sets Commit's retain_height; none: retain 0. */
  readonly signedHeaders?: Pick<SignedHeaderKeeper, "committed" | "retainHeight">;
  /** Takes, serves and restores state-sync snapshots; none: none listed, every offer refused. */
  readonly snapshots?: Pick<SnapshotSync, "committed" | "list" | "load" | "offer" | "apply">;
}

export class LedgerAbciApp implements AbciHandler {
  /** The connection CometBFT's mempool sends CheckTx on; when it closes the mempool is gone. */
  private mempoolConnection: number | null = null;
  /**
   * The connection of the last FinalizeBlock asked, until its Commit: the block it stages is
   * that connection's. Set when asked, so that a FinalizeBlock of the old connection ending
   * after the new one's began (the same height, from the same block store) is not taken for
   * the new one's when the old connection's close drops what is staged.
   */
  private finalizedOn: number | null = null;
  /** Fires every idle spell without a Commit (restarted at each Commit); made at the first CheckTx or Commit. */
  private idleTimer: TimerHandle | null = null;
  /** The last Commit's store write (see `commit`). */
  private committing: Promise<void> = Promise.resolve();
  /** The same, settled either way (its failure went to onFatal): what waiters await. */
  private written: Promise<void> = Promise.resolve();
  /** Starts that write now, while it waits for the next FinalizeBlock; null once it started. */
  private startWrite: ((followed?: boolean) => void) | null = null;
  /** The height of the last FinalizeBlock: the one the next Commit commits. */
  private finalizedHeight = 0;
  /** Whether the last block's write was started by the next FinalizeBlock (see `replayWriteWaitMs`). */
  private replaying = false;

  private readonly clock: Clock;

  constructor(
    private readonly options: LedgerAbciAppOptions,
    private readonly deps: LedgerAbciAppDeps,
  ) {
    this.clock = deps.clock ?? systemClock;
  }

  async handle(request: Request, connection: AbciConnection): Promise<Response> {
    if (request.checkTx !== undefined) {
      this.mempoolConnection = connection.id;
      // From the first transaction on, even if no block ever comes (a network without quorum).
      if (this.idleTimer === null) this.startIdleTimer();
      return this.checkTx(request.checkTx);
    }
    if (request.finalizeBlock !== undefined) {
      this.finalizedOn = connection.id;
      return { finalizeBlock: await this.finalizeBlock(request.finalizeBlock) };
    }
    if (request.commit !== undefined) {
      this.finalizedOn = null;
      const height = this.finalizedHeight;
      // Asked before this block's write joins a replay batch: blocks of an open one (each
      // before this) may be lost in a crash, and CometBFT must keep them to replay them.
      const retainHeight = this.deps.ledger.replayBatchOpen ? 0 : this.deps.signedHeaders?.retainHeight(height) ?? 0;
      this.commit(height);
      // Every block (0) unless engine.retain_blocks says otherwise (signedHeaderKeeper.ts).
      return { commit: { retainHeight: BigInt(retainHeight) } };
    }
    if (request.prepareProposal !== undefined) return { prepareProposal: prepareProposal(request.prepareProposal) };
    // Every validator runs the same checks at FinalizeBlock, where a conflicting transaction
    // gets a non-zero code and is not stored (as BigchainDB's deliver_tx): nothing to refuse here.
    if (request.processProposal !== undefined) {
      return { processProposal: { status: ResponseProcessProposal_ProposalStatus.ACCEPT } };
    }
    if (request.info !== undefined) {
      // A Commit answered just before CometBFT stopped may still be writing: the handshake must
      // see it, or CometBFT would replay a block the ledger is about to hold (see `commit`).
      // And the height told is one the store holds durably: a replay batch ends first.
      await this.durable();
      await untilStoreReachable(() => this.deps.ledger.endReplayBatch(), undefined, this.clock);
      return { info: this.info(request.info) };
    }
    if (request.initChain !== undefined) {
      const app = await this.initChain(request.initChain);
      // No validator changes and no app hash of our own at genesis: CometBFT's genesis stands.
      // The protocol version is the genesis's, given back so that CometBFT's state takes it and
      // not Info's (v0.38 `consensus/replay.go`): every node, of any release, starts the chain's
      // block headers with the same `version.app` (docs/upgrades.md).
      return { initChain: { validators: [], appHash: new Uint8Array(0), consensusParams: { version: { app } } } };
    }
    if (request.query !== undefined) return { query: await this.query(request.query) };
    if (request.echo !== undefined) return { echo: { message: request.echo.message } };
    // Vote extensions are off (genesis `vote_extensions_enable_height` 0); answer as a no-op.
    if (request.extendVote !== undefined) return { extendVote: { voteExtension: new Uint8Array(0) } };
    if (request.verifyVoteExtension !== undefined) {
      return { verifyVoteExtension: { status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT } };
    }
    const snapshots = await this.snapshotRequest(request);
    if (snapshots !== null) return snapshots;
    return { exception: { error: "unknown request" } };
  }

  /**
   * State sync's four requests (snapshotSync.ts); without snapshots, none listed, every offer
   * refused. Null for any other request.
   */
  private async snapshotRequest(request: Request): Promise<Response | null> {
    const snapshots = this.deps.snapshots;
    if (request.listSnapshots !== undefined) return { listSnapshots: (await snapshots?.list()) ?? { snapshots: [] } };
    if (request.loadSnapshotChunk !== undefined) {
      return { loadSnapshotChunk: (await snapshots?.load(request.loadSnapshotChunk)) ?? { chunk: new Uint8Array(0) } };
    }
    if (request.offerSnapshot !== undefined) {
      return { offerSnapshot: (await snapshots?.offer(request.offerSnapshot)) ?? { result: ResponseOfferSnapshot_Result.REJECT } };
    }
    if (request.applySnapshotChunk !== undefined) {
      const refused = { result: ResponseApplySnapshotChunk_Result.ABORT, refetchChunks: [], rejectSenders: [] };
      return { applySnapshotChunk: (await snapshots?.apply(request.applySnapshotChunk)) ?? refused };
    }
    return null;
  }

  /**
   * Resolves once the last committed block is written (a failed write went to onFatal): durable,
   * unless it joined a replay batch (LedgerApp.commit), which a block holding a transaction
   * pending here never does.
   */
  durable(): Promise<void> {
    this.startWrite?.();
    return this.written;
  }

  /** Stops the idle timer (the engine is stopping) once the last committed block is durable. */
  async close(): Promise<void> {
    await this.durable();
    await this.deps.ledger.endReplayBatch();
    this.stopIdleTimer();
  }

  /**
   * ABCI Commit, answered before the block is durable. CometBFT saves its state and goes on to
   * the next block (in a catch-up: takes it from its pool, checks it, calls FinalizeBlock) while
   * this node writes this one. The write waits for that FinalizeBlock, up to `commitWriteWaitMs`
   * (`replayWriteWaitMs` in a catch-up),
   * so that it runs on this thread while the verify threads check the next block's signatures
   * (measured in a catch-up: the threads sat idle during the write, ~3 of every ~12 ms). The
   * next FinalizeBlock reads committed state only once the write has settled
   * (LedgerApp.finalizeBlock's `previousCommit`); a recheck, which asks about this block, waits
   * for it too.
   *
   * Until then the ledger stays at the previous height: checks see this block's transactions as
   * pending, consistently, and Info waits for the write (a CometBFT restarted alone in between
   * must be told the height the store is about to hold, not replay that block). A node that
   * stops in between has a block CometBFT has committed but its store lacks: at the restart's
   * handshake Info says so, and CometBFT replays it from its own block store (v0.38
   * `consensus/replay.go`, the app behind the store). A store that cannot be reached holds the
   * next block until it returns (storeRetry.ts), which is what a validator must do; any other
   * failure stops the node.
   */
  private commit(height: number): void {
    const ledger = this.deps.ledger;
    const start = new Promise<boolean>((resolve) => {
      // A transaction pending here has a client waiting for its block's durability: never longer then.
      const wait = this.replaying && ledger.pendingCount === 0 ? replayWriteWaitMs : commitWriteWaitMs;
      const timer = this.clock.setTimeout(() => this.startWrite?.(), wait);
      this.startWrite = (followed = false) => {
        this.startWrite = null;
        this.replaying = followed;
        this.clock.clearTimeout(timer);
        // Not before this turn's answers are out: Commit's answer must not wait for the write.
        void afterAnswersWritten().then(() => resolve(followed));
      };
    });
    this.committing = start.then((followed) => {
      failpoint("commit.answered-before-durable");
      // Followed: the next block is here already (a catch-up), so this one need not be durable
      // on its own (LedgerApp.commit); CometBFT replays any block a crash takes.
      return untilStoreReachable(() => ledger.commit(followed), undefined, this.clock);
    }).then(() => {
      ledger.releaseUnasked(unaskedCommitsMax);
      this.restartIdleTimer();
      this.deps.signedHeaders?.committed(height);
      this.deps.snapshots?.committed(height);
    });
    this.written = this.committing.catch((error: unknown) => this.deps.onFatal?.(error));
  }

  private restartIdleTimer(): void {
    this.stopIdleTimer();
    this.startIdleTimer();
  }

  private stopIdleTimer(): void {
    if (this.idleTimer !== null) this.clock.clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Every idle spell, re-armed; in the background: never what keeps the process alive. */
  private startIdleTimer(): void {
    this.idleTimer = this.clock.setTimeout(() => {
      this.deps.ledger.noteIdleSpell();
      this.deps.ledger.releaseUnasked(unaskedCommitsMax);
      this.startIdleTimer();
    }, this.options.idleSpellMs ?? idleSpellMsDefault, true);
  }

  closed(connection: AbciConnection): void {
    // CometBFT stopped between FinalizeBlock and Commit: the block is not committed anywhere, and
    // its next run executes that height again (the handshake replays it, on a new connection).
    if (connection.id === this.finalizedOn) {
      this.finalizedOn = null;
      this.deps.ledger.abandonBlock();
    }
    // CometBFT's mempool lives in its process: with the connection, it is gone, and so is any
    // reason to keep its transactions' spends reserved.
    if (connection.id !== this.mempoolConnection) return;
    this.mempoolConnection = null;
    this.deps.ledger.releaseAll();
  }

  /**
   * The handshake: CometBFT replays the blocks after `last_block_height` from its own store, so
   * this must be exactly what the ledger's store holds.
   */
  private info(_request: RequestInfo): ResponseInfo {
    const { height, appHash, appVersion } = this.deps.ledger.info();
    return {
      data: "ledgerd",
      version: this.options.version,
      // The chain's own, for the next block (its genesis's, moved by its rule heights): CometBFT
      // takes it for a chain with no state yet (and InitChain's answer then overrides it) and
      // checks a state-synced app against the block header's version.
      appVersion,
      lastBlockHeight: BigInt(height),
      lastBlockAppHash: appHashBytes(appHash),
    };
  }

  /** Starts the chain, once; the protocol version of its first block. */
  private async initChain(request: RequestInitChain): Promise<bigint> {
    const ledger = this.deps.ledger;
    const expected = this.options.chainId;
    assert(
      expected === null || request.chainId === expected,
      `CometBFT's genesis chain id is ${request.chainId}, but engine.chain_id is ${expected}`,
    );
    // The ledger's heights start at 1 and are contiguous (asserted at every block).
    assert(request.initialHeight <= 1n, `genesis initial_height ${request.initialHeight} is not supported (must be 1)`);
    // CometBFT sends InitChain whenever the app reports height 0, so a node restarted before
    // its first block gets it twice: the same chain again is a no-op.
    const app = genesisProtocolVersion(request.consensusParams?.version?.app ?? 0n);
    const rules = rulesOfAppState(request.appStateBytes);
    if (ledger.chain !== null) {
      assert.equal(request.chainId, ledger.chain, "InitChain for another chain than the database's");
      // A store begun before it kept the version learns it here, from the genesis itself.
      if (ledger.genesisVersionUnknown) await ledger.recordGenesisVersion(app);
    } else {
      const chainRules = { appVersion: app, ruleHeights: rules.ruleHeights };
      await ledger.initChain(request.chainId, request.validators.map(validatorOf), rules.commitment, chainRules);
    }
    // Block 1's: the genesis's, or a rule change's named for height 1.
    return ledger.protocolVersionAt(1);
  }

  /**
   * Both kinds go to `recheckTx`, which checks a transaction that is not pending as checkTx does.
   * A new CheckTx of one already pending here is not a repeat (CometBFT's cache stops those):
   * CometBFT lost it after this node said yes (its mempool counted as full: a block came in
   * during a recheck) and takes it again. Refused as "already pending", it would be lost.
   * A recheck follows a Commit and asks about the block just committed: it waits for that block
   * to be durable (see `commit`), else a transaction the block made invalid would be kept.
   * A store that cannot be reached holds the check until it returns, as it holds a block
   * (storeRetry.ts): an exception would stop CometBFT and the node (chaos seed 3, kill-postgres).
   */
  private async checkTx(request: RequestCheckTx): Promise<Response> {
    const ledger = this.deps.ledger;
    if (request.type === CheckTxType.RECHECK) await this.durable();
    const result = await untilStoreReachable(() => ledger.recheckTx(request.tx), undefined, this.clock);
    if (result.ok) return acceptedCheckTx;
    return { checkTx: ResponseCheckTx.fromPartial(rejected(result.rejection)) };
  }

  private async finalizeBlock(request: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    const height = Number(request.height);
    assert(Number.isSafeInteger(height), `block height ${request.height} is out of range`);
    this.finalizedHeight = height;
    const misbehavior = misbehaviorOf(request.misbehavior);
    const finalizing = untilStoreReachable(
      () => this.deps.ledger.finalizeBlock(height, request.txs, this.committing, misbehavior),
      undefined,
      this.clock,
    );
    // This block's transactions go to the verify threads at the end of this turn; the previous
    // block's write runs after that, beside them (see `commit`).
    this.startWrite?.(true);
    const finalized = await finalizing;
    const txResults = finalized.results.map((rejection) =>
      rejection === null ? executedOk : ExecTxResult.fromPartial(rejected(rejection)),
    );
    // A concluded election's change: CometBFT applies it from height + 2 (its own pipeline); the
    // ledger's rules use the new set from height + 1, as BigchainDB did (docs/compatibility.md #11).
    const validatorUpdates = finalized.validatorUpdates.map(validatorUpdateOf);
    const answer = { events: [], txResults, validatorUpdates, appHash: appHashBytes(finalized.appHash) };
    // A rule change that switches on at the next height moves the protocol version there: the
    // next header carries it (CometBFT applies params from the next height; docs/upgrades.md).
    // This height's first: the previous block computed it (the ledger keeps the last answer).
    const current = this.deps.ledger.protocolVersionAt(height);
    const next = this.deps.ledger.protocolVersionAt(height + 1);
    if (next === current) return answer;
    return { ...answer, consensusParamUpdates: { version: { app: next } } };
  }

  /**
   * Minimal: `/transactions/<id>` answers the committed transaction's JSON, code 1 if none; a
   * store that cannot be reached is waited for, as in CheckTx.
   */
  private async query(request: RequestQuery): Promise<ResponseQuery> {
    const height = BigInt(this.deps.ledger.info().height);
    const match = queryTransactionPath.exec(request.path);
    if (match === null) {
      return ResponseQuery.fromPartial({ code: codeRejected, codespace: "NotFound", log: `unknown query path ${request.path}`, height });
    }
    const id = match[1]!;
    const json = await untilStoreReachable(() => this.deps.store.getTransaction(id), undefined, this.clock);
    if (json === null) return ResponseQuery.fromPartial({ code: codeRejected, codespace: "NotFound", log: "Not found", height });
    return ResponseQuery.fromPartial({ code: codeOk, value: Buffer.from(json, "utf8"), height });
  }
}

/** A rejection as ABCI reports it: code 1, our error code as the codespace, the message as log. */
function rejected(rejection: Rejection): { code: number; codespace: string; log: string } {
  return { code: codeRejected, codespace: rejection.code, log: rejection.message };
}

/**
 * PrepareProposal: CometBFT's mempool order, cut at `max_tx_bytes` as CometBFT measures it (each
 * transaction's protobuf size inside `Data`: tag, uvarint length, bytes; `types.ComputeProtoSizeForTxs`).
 * Conflicts are left to FinalizeBlock, which every validator runs the same way.
 */
export function prepareProposal(request: RequestPrepareProposal): { txs: Uint8Array[] } {
  const txs: Uint8Array[] = [];
  let bytes = 0n;
  for (const tx of request.txs) {
    const size = BigInt(1 + encodeUvarint(tx.length).length + tx.length);
    if (bytes + size > request.maxTxBytes) break;
    bytes += size;
    txs.push(tx);
  }
  return { txs };
}

/** The ledger's hex app hash as the 32 bytes CometBFT stores (empty before the first). */
export function appHashBytes(appHash: string): Uint8Array {
  assert(appHash === "" || /^[0-9a-f]{64}$/.test(appHash), `app hash ${appHash} is not 64 hex digits`);
  return Buffer.from(appHash, "hex");
}

/** A validator change as CometBFT takes it: the raw Ed25519 key and the new power (0 removes). */
function validatorUpdateOf(validator: Validator): ValidatorUpdate {
  return ValidatorUpdate.fromPartial({ pubKey: { ed25519: Buffer.from(validator.publicKey, "hex") }, power: BigInt(validator.power) });
}

/** A genesis validator in the store's shape: the Ed25519 key as lowercase hex, the power. */
function validatorOf(update: ValidatorUpdate): Validator {
  const key = update.pubKey.ed25519;
  assert(key !== undefined && key.length === 32, "only Ed25519 validator keys are supported");
  const power = Number(update.power);
  assert(Number.isSafeInteger(power) && power > 0, `validator power ${update.power} is out of range`);
  return { publicKey: Buffer.from(key).toString("hex"), power };
}
