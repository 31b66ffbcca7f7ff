import assert from "node:assert/strict";
import type { Worker } from "node:worker_threads";
import type { Rejection } from "../errors/ledgerError.js";
import { preparePoolOptionsDefault, type PreparePoolOptions } from "./options.js";
import { prepareBytes } from "./prepared.js";
import type { Door, PreparedBase } from "./txKind.js";
import { startWorkerThread } from "../workerThread.js";

// The options live in options.ts, where the settings read them without loading threads; whoever
// makes a pool finds them here too.
export { preparePoolOptionsDefault, type PreparePoolOptions };

/** Transactions in one shared job; a larger turn makes several (bounds the job's buffer). */
export const sharedJobTxsMax = 1024;

/** A worker posts a shared job's results every this many, so they are taken in as they come. */
export const sharedReportTxs = 16;

/** Transactions for one worker. */
export interface PrepareBatch {
  readonly batch: number;
  readonly items: readonly Uint8Array[];
  /** Per item: the door it was posted through, or null for any kind (`prepareBytes`). */
  readonly doors: readonly (Door | null)[];
}

/**
 * Transactions for every worker: item `i` is `data[ends[i - 1] ?? 0, ends[i])`, and a worker
 * takes the next item by adding 1 to `claims[0]` (atomically) until it passes the last.
 */
export interface PrepareJob {
  readonly job: number;
  readonly data: SharedArrayBuffer;
  readonly ends: readonly number[];
  readonly claims: Int32Array;
  readonly doors: readonly (Door | null)[];
}

export type PrepareRequest = PrepareBatch | PrepareJob;

export type PrepareResponse =
  | { readonly batch: number; readonly results: readonly (PreparedBase | Rejection)[] }
  | { readonly job: number; readonly indices: readonly number[]; readonly results: readonly (PreparedBase | Rejection)[] };

interface Waiter {
  readonly resolve: (value: PreparedBase | Rejection) => void;
  readonly reject: (error: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  outstanding: number;
  readonly batches: Map<number, Waiter[]>;
}

interface SharedJob {
  readonly waiters: readonly Waiter[];
  remaining: number;
}

interface Queued {
  readonly bytes: Uint8Array;
  readonly door: Door | null;
  readonly waiter: Waiter;
}

/**
 * Runs `prepareBytes` on a pool of worker threads. Requests made in the same turn of the event
 * loop are batched, and each batch goes to the worker with the least outstanding work; a turn
 * with many (a block) is shared by all workers instead.
 */
export class PreparePool {
  private readonly slots: WorkerSlot[] = [];
  private queue: Queued[] = [];
  private flushScheduled = false;
  private nextBatch = 0;
  private readonly jobs = new Map<number, SharedJob>();
  /** Jobs failed with a worker: another worker's results for them settle nothing. */
  private readonly failedJobs = new Set<number>();
  private closed = false;

  constructor(private readonly options: PreparePoolOptions = preparePoolOptionsDefault) {
    for (let i = 0; i < options.threads; i++) this.slots.push(this.startWorker());
  }

  /** Without `door`, the body's shape tells its kind (`prepareBytes`). */
  prepare(bytes: Uint8Array, door?: Door): Promise<PreparedBase | Rejection> {
    if (this.closed) return Promise.reject(new Error("prepare pool is closed"));
    if (this.slots.length === 0) return Promise.resolve(prepareBytes(bytes, door));
    return new Promise((resolve, reject) => {
      this.queue.push({ bytes, door: door ?? null, waiter: { resolve, reject } });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Transactions waiting for a thread or being verified (the node's metrics read it). */
  get queuedCount(): number {
    let count = this.queue.length;
    for (const slot of this.slots) count += slot.outstanding;
    for (const job of this.jobs.values()) count += job.remaining;
    return count;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private flush(): void {
    this.flushScheduled = false;
    const queue = this.queue;
    this.queue = [];
    if (queue.length >= this.options.sharedTxsMin && this.slots.length > 1) {
      for (let start = 0; start < queue.length; start += sharedJobTxsMax) this.share(queue.slice(start, start + sharedJobTxsMax));
      return;
    }
    // Spread the queue evenly over the workers, in batches of at most batchTxsMax.
    const per = Math.min(this.options.batchTxsMax, Math.ceil(queue.length / this.slots.length));
    for (let start = 0; start < queue.length; start += per) {
      const part = queue.slice(start, start + per);
      const slot = this.slots.reduce((a, b) => (b.outstanding < a.outstanding ? b : a));
      const batch = this.nextBatch++;
      slot.batches.set(batch, part.map((item) => item.waiter));
      slot.outstanding += part.length;
      const request: PrepareBatch = {
        batch,
        items: part.map((item) => item.bytes),
        doors: part.map((item) => item.door),
      };
      slot.worker.postMessage(request);
    }
  }

  /**
   * One job for all workers. An even split leaves one worker idle while the other finishes: the
   * thread that shares its core with this one's work (a block's store write runs beside the
   * next block's verification, abciApp.ts) fell ~2 ms behind in a catch-up's 12 ms blocks. The
   * bytes go once into shared memory, and each worker takes one transaction at a time.
   */
  private share(part: readonly Queued[]): void {
    const ends: number[] = [];
    let size = 0;
    for (const { bytes } of part) ends.push((size += bytes.byteLength));
    const data = new SharedArrayBuffer(size);
    const view = new Uint8Array(data);
    part.forEach(({ bytes }, i) => view.set(bytes, ends[i - 1] ?? 0));
    const job = this.nextBatch++;
    this.jobs.set(job, { waiters: part.map((item) => item.waiter), remaining: part.length });
    const request: PrepareJob = { job, data, ends, claims: new Int32Array(new SharedArrayBuffer(4)), doors: part.map((item) => item.door) };
    for (const slot of this.slots) slot.worker.postMessage(request);
  }

  private settleShared(response: Extract<PrepareResponse, { job: number }>): void {
    if (this.failedJobs.has(response.job)) return;
    const job = this.jobs.get(response.job);
    assert(job !== undefined && response.indices.length === response.results.length, "prepare job mismatch");
    response.results.forEach((result, i) => settle(job.waiters[response.indices[i]!]!, result));
    job.remaining -= response.results.length;
    assert(job.remaining >= 0, "a shared job's item prepared twice");
    if (job.remaining === 0) this.jobs.delete(response.job);
  }

  private startWorker(): WorkerSlot {
    const worker = newPrepareWorker();
    worker.unref();
    const slot: WorkerSlot = { worker, outstanding: 0, batches: new Map() };
    worker.on("message", (response: PrepareResponse) => {
      if ("job" in response) return this.settleShared(response);
      const waiters = slot.batches.get(response.batch);
      assert(waiters !== undefined && waiters.length === response.results.length, "prepare batch mismatch");
      slot.batches.delete(response.batch);
      slot.outstanding -= waiters.length;
      response.results.forEach((result, i) => settle(waiters[i]!, result));
    });
    worker.on("error", (error) => {
      for (const waiters of slot.batches.values()) for (const waiter of waiters) waiter.reject(error);
      slot.batches.clear();
      // Which of a shared job's items the worker had taken is not known here: fail them all
      // (a result that comes later from another worker settles nothing).
      for (const [id, job] of this.jobs) {
        for (const waiter of job.waiters) waiter.reject(error);
        this.failedJobs.add(id);
      }
      this.jobs.clear();
    });
    return slot;
  }
}

function settle(waiter: Waiter, result: PreparedBase | Rejection): void {
  if ("code" in result && result.code === "Internal") waiter.reject(new Error(result.message));
  else waiter.resolve(result);
}

function newPrepareWorker(): Worker {
  return startWorkerThread(import.meta.url, "prepareWorker");
}
