// The writer thread of a `ThreadedSqliteStore` (threadedStore.ts): it owns the database file's
// one writing connection and commits each block on it, so that a block's statements, its index
// upkeep and its fsync take none of the main thread's time (BENCHMARKS.md, issue #18). It is a
// plain SqliteStore opened with `access: "readers"`; the main thread reads through a read-only
// store that follows these commits.
import { parentPort, workerData } from "node:worker_threads";
import type { SqliteStoreOptions } from "./options.js";
import { SqliteStore } from "./sqliteStore.js";
import type { WriterReply, WriterRequest, WriterThreadData } from "./threadedStore.js";

if (parentPort === null) throw new Error("writerThread must run as a worker thread");
const port = parentPort;
const { options } = workerData as WriterThreadData;

let store: SqliteStore;
try {
  store = SqliteStore.open({ ...options, access: "readers" } satisfies Partial<SqliteStoreOptions>);
  port.postMessage({ id: 0, ok: true } satisfies WriterReply);
} catch (error) {
  port.postMessage({ id: 0, ok: false, error: plainError(error) } satisfies WriterReply);
  process.exit(1);
}

port.on("message", (request: WriterRequest) => {
  void run(request).then(
    () => port.postMessage({ id: request.id, ok: true } satisfies WriterReply),
    (error: unknown) => port.postMessage({ id: request.id, ok: false, error: plainError(error) } satisfies WriterReply),
  );
});

async function run(request: WriterRequest): Promise<void> {
  switch (request.op) {
    case "initChain":
      return store.initChain(request.chainId, request.validators, request.commitment);
    case "commitBlock":
      return store.commitBlock(request.block);
    case "close":
      return store.close();
  }
}

/** An error as data that crosses the thread boundary with its kind (AssertionError stays one). */
function plainError(error: unknown): { name: string; message: string; stack: string } {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack ?? "" };
  return { name: "Error", message: String(error), stack: "" };
}
