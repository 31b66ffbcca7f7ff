// The entry point of an HTTP worker process, forked by HttpCluster in the primary. It says it is
// ready, runs with the settings the primary sends, and leaves when the primary says so or goes.
import cluster from "node:cluster";
import { createLogger } from "./logger.js";
import { runHttpWorker, type HttpWorkerHandle } from "./httpWorker.js";
import { ipcTag, isIpcMessage, type PrimaryMessage, type WorkerMessage } from "./ipc/ipcMessages.js";
import type { IpcChannel } from "./ipc/ipcRequester.js";
import type { OpsWorkerMessage } from "./ipc/opsIpc.js";

if (process.send === undefined) throw new Error("httpWorkerMain runs as a node:cluster worker");

function send(message: WorkerMessage | OpsWorkerMessage, then?: () => void): void {
  if (process.connected) process.send!(message, undefined, {}, () => then?.());
  else then?.();
}

const channel: IpcChannel<WorkerMessage | OpsWorkerMessage> = {
  send,
  onMessage: (listener) => process.on("message", listener),
  onDisconnect: (listener) => process.once("disconnect", listener),
};

// Ctrl-C reaches every process of the terminal's group; the primary decides when workers stop
// (after the block in progress), so the workers wait for its "close" or for it to go away.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

let logger = createLogger("info");
let handle: HttpWorkerHandle | null = null;
let closing: Promise<void> | null = null;

function stop(code: number): Promise<void> {
  closing ??= (handle?.close() ?? Promise.resolve()).then(
    () => process.exit(code),
    () => process.exit(1),
  );
  return closing;
}

process.on("message", (message: unknown) => {
  if (!isIpcMessage(message)) return;
  const typed = message as PrimaryMessage;
  if (typed.type === "start") {
    logger = createLogger(typed.config.log.level).child({ worker: cluster.worker?.id ?? 0 });
    runHttpWorker(typed, { channel, logger }).then(
      (started) => {
        handle = started;
        send({ tag: ipcTag, type: "listening", host: started.address.host, port: started.address.port });
      },
      (error: unknown) => {
        logger.error({ err: error }, "HTTP worker failed to start");
        const text = error instanceof Error ? error.message : String(error);
        // Exit once the message is out, or the primary only learns that the worker exited.
        send({ tag: ipcTag, type: "failed", message: text }, () => process.exit(1));
      },
    );
  } else if (typed.type === "close") {
    void stop(0);
  }
});
// A bug that escaped every handler: one structured line, then out; the primary starts another.
process.on("uncaughtException", (error, origin) => {
  logger.fatal({ err: error, origin }, "uncaught error in an HTTP worker");
  process.exit(1);
});
// Without the primary there is no ledger to serve: leave.
process.once("disconnect", () => void stop(0));
send({ tag: ipcTag, type: "ready" });
