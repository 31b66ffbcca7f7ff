// The SQLite store with its writes on a thread of their own. A block's commit (its statements,
// the deferred indexes' upkeep, the fsync) is most of what the node's main thread spends per
// transaction beside the HTTP work, and while it runs the main thread neither reads requests nor
// feeds the verify threads (BENCHMARKS.md, issue #18: without it on the main thread the node
// commits 40 % more). So the writing connection lives in a worker thread (writerThread.ts), and
// the main thread reads through a read-only store that follows the writer's commits, as the
// HTTP worker processes already do (follower.ts): each read is one snapshot. The writer hands
// each block's index rows back with its answer, so the main thread's connection follows the
// commit without reading the block back (IndexFollower.follow).
//
// Same answers as a SqliteStore, by the same conformance suite. A commit resolves once it is
// durable in the writer, so every read the caller makes after it sees the block. The file must
// be opened for readers; one ledgerd per file is the data directory's lock (node/dataDirLock.ts).
import assert, { AssertionError } from "node:assert";
import type { Worker } from "node:worker_threads";
import type { CommitmentVersion } from "../../proofs/commitment.js";
import type { BlockWrite, ChainRules, Store, StoredSignedHeader, Validator } from "../store.js";
import { sqliteStoreOptionsDefault, type SqliteStoreOptions } from "./options.js";
import type { BlockRows } from "./places.js";
import { SqliteStore } from "./sqliteStore.js";
import { startWorkerThread } from "../../workerThread.js";
import type { ErrorCode } from "../../errors/codes.js";
import { LedgerError } from "../../errors/ledgerError.js";
import { SchemaRefused } from "../schemaRefused.js";

/** What the writer thread is started with. */
export interface WriterThreadData {
  readonly options: SqliteStoreOptions;
}

/** What the writer is asked to do. */
type WriterAsk =
  | {
      readonly op: "initChain";
      readonly chainId: string;
      readonly validators: readonly Validator[];
      readonly commitment: CommitmentVersion | undefined;
      readonly rules: ChainRules | undefined;
    }
  | { readonly op: "commitBlock"; readonly block: BlockWrite }
  | { readonly op: "putSignedHeaders"; readonly headers: readonly StoredSignedHeader[] }
  | { readonly op: "recordAppVersion"; readonly appVersion: bigint }
  | { readonly op: "close" };

/** An ask as sent, numbered so that its reply finds it. */
export type WriterRequest = WriterAsk & { readonly id: number };

/** The answer to request `id`; id 0 says whether the writer opened the file. A commit's carries its block's index rows. */
export type WriterReply =
  | { readonly id: number; readonly ok: true; readonly rows?: BlockRows }
  | { readonly id: number; readonly ok: false; readonly error: PlainError };

/** An error as it crosses from the writer thread; a LedgerError's code comes with it. */
export interface PlainError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
  readonly code?: ErrorCode;
}

type Writes = Pick<Store, "initChain" | "commitBlock" | "putSignedHeaders" | "recordAppVersion" | "beginBulkLoad" | "endBulkLoad" | "close">;

/** Opens the file (creating it when missing) with its writer on a thread; resolves when both are open. */
export async function openThreadedSqliteStore(options: Partial<SqliteStoreOptions> = {}): Promise<Store> {
  const all: SqliteStoreOptions = { ...sqliteStoreOptionsDefault, ...options };
  const writer = await WriterThread.start(all);
  let reader: SqliteStore;
  try {
    reader = SqliteStore.open({ ...all, access: "reader" });
  } catch (error) {
    await writer.close();
    throw error;
  }
  // The writer thread is the file's one writer (one ledgerd per file), and each of its commits
  // is followed below before it resolves: the reader's filter answers a new id alone.
  reader.followsEveryCommit(true);
  const writes: Writes = {
    initChain: async (chainId, validators, commitment, rules) =>
      void (await writer.ask({ op: "initChain", chainId, validators, commitment, rules })),
    commitBlock: async (block) => {
      try {
        const rows = await writer.ask({ op: "commitBlock", block });
        assert.ok(rows !== undefined, "a commit's answer carries its block's rows");
        reader.followBlock(rows);
      } catch (error) {
        // The block may be durable all the same (the thread lost after its commit, or the
        // follow failed): from now on a check looks for commits this thread has not followed.
        reader.followsEveryCommit(false);
        throw error;
      }
    },
    putSignedHeaders: async (headers) => void (await writer.ask({ op: "putSignedHeaders", headers })),
    recordAppVersion: async (appVersion) => void (await writer.ask({ op: "recordAppVersion", appVersion })),
    // Each block durable as usual: the reader on this thread sees only committed blocks, and the
    // writer thread is the solo engine's, which restores no snapshot.
    beginBulkLoad: () => Promise.resolve(),
    endBulkLoad: () => Promise.resolve(),
    close: async () => {
      await reader.close();
      await writer.close();
    },
  };
  // Every read goes to the reader as it is; only the writing methods differ.
  return new Proxy(reader, {
    get(target, property) {
      if (property in writes) return writes[property as keyof Writes];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

class WriterThread {
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve: (rows: BlockRows | undefined) => void; reject: (error: Error) => void }>();
  #broken: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (reply: WriterReply) => this.#settle(reply));
    worker.on("error", (error) => this.#fail(error));
    worker.on("exit", (code) => this.#fail(new Error(`the SQLite writer thread exited (${code})`)));
  }

  static async start(options: SqliteStoreOptions): Promise<WriterThread> {
    const data: WriterThreadData = { options };
    const worker = startWorkerThread(import.meta.url, "writerThread", { workerData: data });
    const thread = new WriterThread(worker);
    await new Promise<void>((resolve, reject) => thread.#waiting.set(0, { resolve: () => resolve(), reject }));
    // A thread with nothing in flight does not keep the process alive (a store left open);
    // one with a request in flight does, or an awaited commit could end the process unanswered.
    worker.unref();
    return thread;
  }

  ask(request: WriterAsk): Promise<BlockRows | undefined> {
    if (this.#broken !== null) return Promise.reject(this.#broken);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.worker.ref();
      this.#waiting.set(id, { resolve, reject });
      const sent: WriterRequest = { ...request, id };
      this.worker.postMessage(sent);
    });
  }

  async close(): Promise<void> {
    if (this.#broken === null) await this.ask({ op: "close" });
    this.#broken ??= new Error("the store is closed");
    await this.worker.terminate();
  }

  #settle(reply: WriterReply): void {
    const waiting = this.#waiting.get(reply.id);
    if (waiting === undefined) return;
    this.#waiting.delete(reply.id);
    if (this.#waiting.size === 0) this.worker.unref();
    if (reply.ok) waiting.resolve(reply.rows);
    else waiting.reject(errorOf(reply.error));
  }

  #fail(error: Error): void {
    this.#broken ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

/** The writer's error on this thread, of the same kind: a broken invariant stays an assertion. */
function errorOf(error: PlainError): Error {
  if (error.code !== undefined) return new LedgerError(error.code, error.message);
  // A refused file is the operator's to settle, said in one line: no stack to carry.
  if (error.name === "SchemaRefused") return new SchemaRefused(error.message);
  const made = error.name === "AssertionError" ? new AssertionError({ message: error.message }) : new Error(error.message);
  if (error.name !== "AssertionError") made.name = error.name;
  made.stack = `${made.stack ?? ""}\n    in the SQLite writer thread:\n${error.stack}`;
  return made;
}
