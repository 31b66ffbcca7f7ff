// The writer thread of a `ThreadedSqliteStore` (threadedStore.ts): it owns the database file's
// one writing connection and commits each block on it, so that a block's statements, its index
// upkeep and its fsync take none of the main thread's time (BENCHMARKS.md, issue #18). It is a
// plain SqliteStore opened with `access: "readers"`; the main thread reads through a read-only
// store that follows these commits.
import { parentPort, workerData } from "node:worker_threads";
import type { SqliteStoreOptions } from "./options.js";
import type { BlockRows } from "./places.js";
import { SqliteStore } from "./sqliteStore.js";
import type { PlainError, WriterReply, WriterRequest, WriterThreadData } from "./threadedStore.js";
import { LedgerError } from "../../errors/ledgerError.js";
import { nameThisThread } from "../../workerThread.js";

if (parentPort === null) throw new Error("writerThread must run as a worker thread");
const port = parentPort;
nameThisThread("ledgerd-writer");
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
    (rows) => {
      if (rows === undefined) return port.postMessage({ id: request.id, ok: true } satisfies WriterReply);
      // The block's index rows go to the main thread's follower (moved, not copied).
      const { ids, assets, keys, spent } = rows.rows;
      port.postMessage({ id: request.id, ok: true, rows } satisfies WriterReply, [ids, assets, keys, spent].map((rowsOf) => rowsOf.buffer as ArrayBuffer));
    },
    (error: unknown) => port.postMessage({ id: request.id, ok: false, error: plainError(error) } satisfies WriterReply),
  );
});

async function run(request: WriterRequest): Promise<BlockRows | undefined> {
  switch (request.op) {
    case "initChain":
      await store.initChain(request.chainId, request.validators, request.commitment, request.rules);
      return undefined;
    case "commitBlock":
      return store.commitBlockRows(request.block);
    case "putSignedHeaders":
      await store.putSignedHeaders(request.headers);
      return undefined;
    case "recordAppVersion":
      await store.recordAppVersion(request.appVersion);
      return undefined;
    case "close":
      await store.close();
      return undefined;
  }
}

/**
 * An error as data that crosses the thread boundary with its kind: an AssertionError stays one,
 * a LedgerError keeps its code (StoreDamaged).
 */
function plainError(error: unknown): PlainError {
  if (error instanceof LedgerError) return { name: error.name, message: error.message, stack: error.stack ?? "", code: error.code };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack ?? "" };
  return { name: "Error", message: String(error), stack: "" };
}
