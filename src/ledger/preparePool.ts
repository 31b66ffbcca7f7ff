import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { Rejection } from "../errors/ledgerError.js";
import { prepareBytes } from "./prepared.js";
import type { Door, PreparedBase } from "./txKind.js";
import { startWorkerThread } from "../workerThread.js";

export interface PreparePoolOptions {
  /** Worker threads; 0 prepares on the calling thread (tests, tools). */
  readonly threads: number;
  /** Transactions sent to a worker in one message (fewer messages, less overhead). */
  readonly batchTxsMax: number;
}

export const preparePoolOptionsDefault: PreparePoolOptions = {
  threads: availableParallelism(),
  batchTxsMax: 64,
};

export interface PrepareRequest {
  readonly batch: number;
  readonly items: readonly Uint8Array[];
  /** Per item: the door it was posted through, or null for any kind (`prepareBytes`). */
  readonly doors: readonly (Door | null)[];
}

export interface PrepareResponse {
  readonly batch: number;
  readonly results: readonly (PreparedBase | Rejection)[];
}

interface Waiter {
  readonly resolve: (value: PreparedBase | Rejection) => void;
  readonly reject: (error: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  outstanding: number;
  readonly batches: Map<number, Waiter[]>;
}

/**
 * Runs `prepareBytes` on a pool of worker threads. Requests made in the same turn of the event
 * loop are batched, and each batch goes to the worker with the least outstanding work.
 */
export class PreparePool {
  private readonly slots: WorkerSlot[] = [];
  private queue: { bytes: Uint8Array; door: Door | null; waiter: Waiter }[] = [];
  private flushScheduled = false;
  private nextBatch = 0;
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
    // Spread the queue evenly over the workers, in batches of at most batchTxsMax.
    const per = Math.min(this.options.batchTxsMax, Math.ceil(queue.length / this.slots.length));
    for (let start = 0; start < queue.length; start += per) {
      const part = queue.slice(start, start + per);
      const slot = this.slots.reduce((a, b) => (b.outstanding < a.outstanding ? b : a));
      const batch = this.nextBatch++;
      slot.batches.set(batch, part.map((item) => item.waiter));
      slot.outstanding += part.length;
      const request: PrepareRequest = {
        batch,
        items: part.map((item) => item.bytes),
        doors: part.map((item) => item.door),
      };
      slot.worker.postMessage(request);
    }
  }

  private startWorker(): WorkerSlot {
    const worker = newPrepareWorker();
    worker.unref();
    const slot: WorkerSlot = { worker, outstanding: 0, batches: new Map() };
    worker.on("message", (response: PrepareResponse) => {
      const waiters = slot.batches.get(response.batch);
      assert(waiters !== undefined && waiters.length === response.results.length, "prepare batch mismatch");
      slot.batches.delete(response.batch);
      slot.outstanding -= waiters.length;
      response.results.forEach((result, i) => {
        if ("code" in result && result.code === "Internal") waiters[i]!.reject(new Error(result.message));
        else waiters[i]!.resolve(result);
      });
    });
    worker.on("error", (error) => {
      for (const waiters of slot.batches.values()) for (const waiter of waiters) waiter.reject(error);
      slot.batches.clear();
    });
    return slot;
  }
}

function newPrepareWorker(): Worker {
  return startWorkerThread(import.meta.url, "prepareWorker");
}
