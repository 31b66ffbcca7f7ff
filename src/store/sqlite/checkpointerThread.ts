// The checkpoint thread of a SQLite store (checkpointer.ts): its own connection to the file,
// which copies the write-ahead log back into the database every `intervalMs`, beside the writer.
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { busyTimeoutMs } from "./connection.js";
import type { CheckpointerData } from "./checkpointer.js";
import { nameThisThread } from "../../workerThread.js";

if (parentPort === null) throw new Error("checkpointerThread must run as a worker thread");
const port = parentPort;
nameThisThread("ledgerd-ckpt");
const { path, synchronous, intervalMs } = workerData as CheckpointerData;

const db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
// The checkpoint syncs the log before and the database after copying, as the writer's would.
db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
// PASSIVE: copies what no reader still needs and never waits for the writer or the readers; a
// log frame it could not copy yet is copied by a later round.
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const timer = setInterval(() => checkpoint.run(), intervalMs);

port.on("message", (message: "close") => {
  if (message !== "close") return;
  clearInterval(timer);
  db.close();
  port.close();
});
