// A worker thread of the prepare pool: runs the stateless half of validation (parse, id, schema,
// fulfillments, Ed25519) so that both cores verify signatures (issue #3), for transactions of
// every kind alike (`prepareBytes` tells them apart).
import { parentPort } from "node:worker_threads";
import type { PrepareRequest, PrepareResponse } from "./preparePool.js";
import { prepareBytes } from "./prepared.js";
import { nameThisThread } from "../workerThread.js";

if (parentPort === null) throw new Error("prepareWorker must run as a worker thread");
const port = parentPort;
nameThisThread("ledgerd-verify");

port.on("message", (request: PrepareRequest) => {
  const results = request.items.map((bytes, i) => {
    try {
      return prepareBytes(bytes, request.doors[i] ?? undefined);
    } catch (error) {
      // A bug, not bad input: report it so the pool can fail loudly.
      return { code: "Internal" as const, message: error instanceof Error ? error.stack ?? error.message : String(error) };
    }
  });
  const response: PrepareResponse = { batch: request.batch, results };
  port.postMessage(response);
});
