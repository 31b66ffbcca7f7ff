// Checkpoints beside the writer. In WAL mode each commit appends to the log, and SQLite's own
// automatic checkpoint copies the log back into the database inside the commit that crosses
// `walAutocheckpointPages`: that commit takes 20 to 30 ms longer, about once a second at 1,000
// transactions a second, and every transaction waiting for it waits as long (BENCHMARKS.md,
// issue #18, commit latency). So a store that lets other connections in (`access: "readers"`)
// checkpoints on a thread of its own connection (checkpointerThread.ts), a passive checkpoint
// every `checkpointIntervalMs`, which never blocks the writer; the writer's own automatic
// checkpoint stays as the fallback, at `fallbackFactor` times the mark, for a log that grows
// faster than the thread copies it, and at the mark itself again if the thread fails.
import type { Worker } from "node:worker_threads";
import { startWorkerThread } from "../../workerThread.js";
import type { SqliteStoreOptions } from "./options.js";

/** What the checkpoint thread is started with. */
export interface CheckpointerData {
  readonly path: string;
  readonly synchronous: SqliteStoreOptions["synchronous"];
  readonly intervalMs: number;
}

/** The writer's own checkpoint mark while the thread runs, as a multiple of the configured one. */
export const fallbackFactor = 4;

export class Checkpointer {
  #closed = false;
  readonly #exited: Promise<unknown>;

  private constructor(private readonly worker: Worker) {
    this.#exited = new Promise((resolve) => worker.once("exit", resolve));
  }

  /**
   * Starts the thread on the database at `path` (which must exist, in WAL mode). `failed` is
   * called once if the thread stops other than by `close`; the writer then checkpoints itself.
   */
  static start(data: CheckpointerData, failed: (error: Error) => void): Checkpointer {
    const worker = startWorkerThread(import.meta.url, "checkpointerThread", { workerData: data });
    const checkpointer = new Checkpointer(worker);
    let reported = false;
    const fail = (error: Error): void => {
      if (checkpointer.#closed || reported) return;
      reported = true;
      failed(error);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the SQLite checkpoint thread exited (${code})`)));
    // Never what keeps a process alive: a store left open must not hold its process.
    worker.unref();
    return checkpointer;
  }

  /** Stops the thread after its current checkpoint; its connection is closed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.worker.ref(); // the process waits for the thread's connection to close
    this.worker.postMessage("close");
    await this.#exited;
  }
}
