// Long reads (the outputs of a key, the transactions of an asset, a block, a text search) are
// read from the store a batch at a time, and each batch waits for its turn here. Turns run in
// the event loop's check phase (setImmediate), for at most `turnsBudgetMs` per loop iteration:
// whatever the long reads in progress, the requests that arrived meanwhile (a GET by id) are
// served before the next turns, so cheap reads never queue behind expensive ones. And at most
// `expensiveReadsMax` long reads run at once per process; one more is answered 503 with
// `Retry-After`, which bounds the memory they hold (a batch and a socket buffer each).
import type { FastifyInstance, FastifyReply } from "fastify";
import { systemClock, type Clock } from "../clock/clock.js";
import { LedgerError } from "../errors/ledgerError.js";

/**
 * How long the turns of long reads may hold the event loop before it serves other requests.
 * A turn (one batch) is itself at most a few ms, so a cheap read waits for about this plus one.
 */
const turnsBudgetMs = 2;

/** What `Retry-After` says past the cap: long reads last a second or two at most. */
const retryAfterSeconds = 1;

export class LongReads {
  readonly #max: number;
  #running = 0;
  readonly #queue: (() => Promise<void>)[] = [];
  #scheduled = false;

  /** `clock`: the streamed answers' stall timers run on it (streamJson.ts). */
  constructor(
    expensiveReadsMax: number,
    readonly clock: Clock = systemClock,
  ) {
    this.#max = expensiveReadsMax;
  }

  /** Long reads in progress. */
  get running(): number {
    return this.#running;
  }

  /**
   * Admits one long read and gives the function that ends it (idempotent), or throws
   * TooManyReads (503) with `Retry-After` set on the reply.
   */
  admit(reply: FastifyReply): () => void {
    if (this.#running >= this.#max) {
      reply.header("retry-after", String(retryAfterSeconds));
      const message = `This node answers ${this.#max} long reads at once; try again later`;
      throw new LedgerError("TooManyReads", message);
    }
    this.#running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#running--;
    };
  }

  /** Runs `work` (one batch) in its turn. */
  turn<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push(() => work().then(resolve, reject));
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => void this.#runTurns());
  }

  async #runTurns(): Promise<void> {
    const start = performance.now();
    while (this.#queue.length > 0 && performance.now() - start < turnsBudgetMs) {
      await this.#queue.shift()!();
    }
    this.#scheduled = false;
    if (this.#queue.length > 0) this.#schedule();
  }
}

const perApp = new WeakMap<FastifyInstance, LongReads>();

/** Gives `app` its LongReads (buildHttpApp calls it once; the routes then find it). */
export function installLongReads(app: FastifyInstance, expensiveReadsMax: number, clock: Clock = systemClock): LongReads {
  const reads = new LongReads(expensiveReadsMax, clock);
  perApp.set(app, reads);
  return reads;
}

/** The LongReads of `app`. */
export function longReadsOf(app: FastifyInstance): LongReads {
  const reads = perApp.get(app);
  if (reads === undefined) throw new Error("installLongReads was not called on this app");
  return reads;
}
