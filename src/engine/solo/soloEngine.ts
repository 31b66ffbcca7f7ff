// The embedded engine: one in-process validator (the node's own key) that cuts blocks from its
// pending pool every `blockIntervalMs`, or at once when `txsPerBlockMax` wait, and never makes
// empty blocks. It drives the ledger exactly as CometBFT would (checkTx, finalizeBlock, commit).
// Transactions of every kind share its queue and its blocks, in arrival order.
import { untilStoreReachable } from "../storeRetry.js";
import { systemClock, type Clock, type TimerHandle } from "../../clock/clock.js";
import { LedgerError, toLedgerError } from "../../errors/ledgerError.js";
import type { LedgerApp } from "../../ledger/ledgerApp.js";
import type { Door, PreparedBase } from "../../ledger/txKind.js";
import type { Validator } from "../../store/store.js";
import type { BroadcastMode, Broadcaster } from "../broadcaster.js";
import type { EngineReadiness } from "../readiness.js";
import { soloEngineOptionsDefault, type SoloEngineOptions } from "./options.js";

export interface SoloEngineDeps {
  readonly ledger: LedgerApp;
  /** This node's validator key; the whole validator set in solo mode. */
  readonly validator: Validator;
  /** Called once if block production fails: a broken invariant or a failed disk. */
  readonly onFatal?: (error: unknown) => void;
  /** The block interval, the commit timeout and the store retry run on it; Node's timers by default. */
  readonly clock?: Clock;
}

interface Waiting {
  readonly bytes: Uint8Array;
  readonly tx: PreparedBase;
  readonly committed: ((error: LedgerError | null) => void)[];
}

export class SoloEngine implements Broadcaster, EngineReadiness {
  private readonly options: SoloEngineOptions;
  private queue: Waiting[] = [];
  /** The batch of the block being produced, so a failure can answer its waiters. */
  private inFlight: Waiting[] = [];
  private readonly clock: Clock;
  private timer: TimerHandle | null = null;
  private producing: Promise<void> | null = null;
  private stopping = false;
  /** Broadcasts between their call and their place in the queue (checkTx is async). */
  private admitting = 0;
  private admitted: (() => void) | null = null;
  private fatal: unknown = null;

  private constructor(options: Partial<SoloEngineOptions>, private readonly deps: SoloEngineDeps) {
    this.options = { ...soloEngineOptionsDefault, ...options };
    this.clock = deps.clock ?? systemClock;
  }

  /** Starts on the store's last committed height; a new store gets its chain and validator. */
  static async start(options: Partial<SoloEngineOptions>, deps: SoloEngineDeps): Promise<SoloEngine> {
    const engine = new SoloEngine(options, deps);
    if (deps.ledger.chain === null) await deps.ledger.initChain(engine.options.chainId, [deps.validator]);
    return engine;
  }

  async broadcast(bytes: Uint8Array, mode: BroadcastMode, door?: Door): Promise<PreparedBase> {
    if (this.stopping || this.fatal !== null) throw new LedgerError("ShuttingDown", "The node is shutting down");
    this.admitting++;
    let checked;
    try {
      checked = await this.deps.ledger.checkTx(bytes, door);
    } finally {
      this.admitting--;
      if (this.admitting === 0) this.admitted?.();
    }
    // Block production may have failed while checkTx ran: nothing would ever cut this block,
    // and a `mode=commit` caller would wait out the whole commit timeout for nothing.
    if (this.fatal !== null) throw engineStopped(this.fatal);
    if (!checked.ok) throw toLedgerError(checked.rejection);
    const waiting: Waiting = { bytes, tx: checked.tx, committed: [] };
    const done = mode === "commit" ? this.waitForCommit(waiting) : null;
    this.queue.push(waiting);
    this.schedule();
    if (done !== null) await done;
    return checked.tx;
  }

  /** In-process: ready unless block production failed or the node is stopping. */
  async notReadyReason(): Promise<string | null> {
    if (this.fatal !== null) return "the embedded engine stopped after an internal error";
    if (this.stopping) return "the engine is stopping";
    return null;
  }

  /** Stop taking transactions, finish the block in progress and those already waiting. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.admitting > 0) await new Promise<void>((resolve) => (this.admitted = resolve));
    this.admitted = null;
    while (this.producing !== null || (this.queue.length > 0 && this.fatal === null)) {
      await (this.producing ?? this.produce());
    }
  }

  private waitForCommit(waiting: Waiting): Promise<void> {
    return new Promise((resolve, reject) => {
      const timeout = this.clock.setTimeout(() => {
        reject(new LedgerError("CommitTimeout", `Transaction \`${waiting.tx.id}\` was not committed within ${this.options.commitTimeoutMs} ms; it may still commit`));
      }, this.options.commitTimeoutMs);
      waiting.committed.push((error) => {
        this.clock.clearTimeout(timeout);
        if (error === null) resolve();
        else reject(error);
      });
    });
  }

  private schedule(): void {
    // Once stopping, `stop` cuts what waits: a timer set now, for a broadcast admitted while
    // `stop` waited, would only hold the process open for a block interval.
    if (this.producing !== null || this.fatal !== null || this.stopping) return;
    if (this.queue.length >= this.options.txsPerBlockMax) {
      if (this.timer !== null) this.clock.clearTimeout(this.timer);
      this.timer = null;
      void this.produce();
      return;
    }
    if (this.timer === null && this.queue.length > 0) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = null;
        void this.produce();
      }, this.options.blockIntervalMs);
    }
  }

  private produce(): Promise<void> {
    if (this.producing !== null) return this.producing;
    this.producing = this.produceBlock()
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.producing = null;
        if (!this.stopping) this.schedule();
      });
    return this.producing;
  }

  private async produceBlock(): Promise<void> {
    const batch = this.queue.splice(0, this.options.txsPerBlockMax);
    if (batch.length === 0) return;
    this.inFlight = batch;
    const ledger = this.deps.ledger;
    const height = ledger.info().height + 1;
    // A store that cannot be reached holds the block until it returns (storeRetry.ts).
    let finalized: Awaited<ReturnType<typeof ledger.finalizeBlock>> | null = null;
    await untilStoreReachable(async () => {
      finalized ??= await ledger.finalizeBlock(height, batch.map((w) => w.bytes));
      await ledger.commit();
    }, () => this.stopping, this.clock);
    this.inFlight = [];
    batch.forEach((waiting, i) => {
      const rejection = finalized!.results[i] ?? null;
      const error = rejection === null ? null : toLedgerError(rejection);
      for (const notify of waiting.committed) notify(error);
    });
  }

  private fail(error: unknown): void {
    this.fatal = error;
    const failure = engineStopped(error);
    for (const waiting of [...this.inFlight, ...this.queue]) for (const notify of waiting.committed) notify(failure);
    this.inFlight = [];
    this.queue = [];
    this.deps.onFatal?.(error);
  }
}

function engineStopped(cause: unknown): LedgerError {
  return new LedgerError("EngineUnavailable", "The embedded engine stopped after an internal error", { cause });
}
