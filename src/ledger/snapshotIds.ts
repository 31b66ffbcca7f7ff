// A restore's first pass (snapshotRestore.ts) reads a chunk's lines and hashes each
// transaction's id on both cores: the lines are cut into shares, the calling thread reads the
// first and worker threads (snapshotIdWorker.ts) the others at the same time. Only the fold of
// the ids into the history tree stays sequential, on the calling thread. An idle thread does
// not keep the process alive.
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { restoredIdOf } from "./kinds/registry.js";
import { readBlockLine } from "./snapshotFormat.js";
import { startWorkerThread } from "../workerThread.js";

/** A block's line as the first pass folds it: its height, the app hash it claims, its transactions' ids. */
export interface LineIds {
  readonly height: number;
  readonly app_hash: string;
  readonly ids: readonly string[];
}

/** A share's lines up to the first that is refused, and why it is (null: none is). */
export interface ShareIds {
  readonly lines: readonly LineIds[];
  readonly refused: string | null;
}

/** What a worker thread is asked and answers. */
export interface IdsRequest {
  readonly job: number;
  readonly texts: readonly string[];
}
export interface IdsResponse {
  readonly job: number;
  readonly share: ShareIds;
}

/** Threads hashing a restore's ids, the calling one among them: one a core (the node has nothing else to do until it is restored). */
export const snapshotIdThreadsDefault = availableParallelism();

/** Lines in a share below which the calling thread reads them alone (a thread's round trip costs more). */
const shareLinesMin = 16;

/** Each line read and its transactions' ids hashed, up to the first line refused. */
export function idsOfLines(texts: readonly string[]): ShareIds {
  const lines: LineIds[] = [];
  for (const text of texts) {
    const line = readBlockLine(text);
    if (typeof line === "string") return { lines, refused: line };
    const ids: string[] = [];
    for (const [i, json] of line.txs.entries()) {
      const id = restoredIdOf(json);
      if (id === null) return { lines, refused: `block ${line.height}: transaction ${i} hashes to no id` };
      ids.push(id);
    }
    lines.push({ height: line.height, app_hash: line.app_hash, ids });
  }
  return { lines, refused: null };
}

interface Slot {
  readonly worker: Worker;
  readonly waiting: Map<number, { resolve: (share: ShareIds) => void; reject: (error: Error) => void }>;
}

/** `threads` threads in all (the calling one among them) reading a chunk's lines. */
export class SnapshotIdThreads {
  private readonly slots: Slot[] = [];
  private jobs = 0;

  constructor(private readonly threads: number) {}

  /** The shares of `texts`, in order; together, every line's ids up to the first refused. */
  async ids(texts: readonly string[]): Promise<ShareIds[]> {
    const shares = Math.max(1, Math.min(this.threads, Math.floor(texts.length / shareLinesMin)));
    const size = Math.ceil(texts.length / shares);
    const others: Promise<ShareIds>[] = [];
    for (let s = 1; s < shares; s++) others.push(this.onThread(s - 1, texts.slice(s * size, (s + 1) * size)));
    // The calling thread's share meanwhile; a worker's failure is awaited below, not unhandled.
    for (const other of others) other.catch(() => undefined);
    const first = idsOfLines(texts.slice(0, size));
    return [first, ...(await Promise.all(others))];
  }

  /** Stops the worker threads (a later `ids` starts them again). */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private onThread(index: number, texts: readonly string[]): Promise<ShareIds> {
    const slot = this.slots[index] ?? this.startSlot();
    const job = ++this.jobs;
    return new Promise((resolve, reject) => {
      slot.waiting.set(job, { resolve, reject });
      slot.worker.ref();
      slot.worker.postMessage({ job, texts } satisfies IdsRequest);
    });
  }

  private startSlot(): Slot {
    const worker = startWorkerThread(import.meta.url, "snapshotIdWorker");
    const slot: Slot = { worker, waiting: new Map() };
    const settled = (): void => {
      if (slot.waiting.size === 0) worker.unref();
    };
    worker.on("message", (response: IdsResponse) => {
      slot.waiting.get(response.job)?.resolve(response.share);
      slot.waiting.delete(response.job);
      settled();
    });
    const fail = (error: Error): void => {
      for (const waiting of slot.waiting.values()) waiting.reject(error);
      slot.waiting.clear();
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`a restore's id thread exited (code ${code})`)));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}
