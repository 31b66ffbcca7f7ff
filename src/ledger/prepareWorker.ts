// A worker thread of the prepare pool: runs the stateless half of validation (parse, id, schema,
// fulfillments, Ed25519) so that both cores verify signatures (issue #3), for transactions of
// every kind alike (`prepareBytes` tells them apart).
import { parentPort } from "node:worker_threads";
import type { Rejection } from "../errors/ledgerError.js";
import { sharedReportTxs, type PrepareBatch, type PrepareJob, type PrepareRequest, type PrepareResponse } from "./preparePool.js";
import { prepareBytes } from "./prepared.js";
import type { Door, PreparedBase } from "./txKind.js";
import { nameThisThread } from "../workerThread.js";

if (parentPort === null) throw new Error("prepareWorker must run as a worker thread");
const port = parentPort;
nameThisThread("ledgerd-verify");

function prepareOne(bytes: Uint8Array, door: Door | null | undefined): PreparedBase | Rejection {
  try {
    return prepareBytes(bytes, door ?? undefined);
  } catch (error) {
    // A bug, not bad input: report it so the pool can fail loudly.
    return { code: "Internal" as const, message: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
}

function prepareBatch(request: PrepareBatch): void {
  const results = request.items.map((bytes, i) => prepareOne(bytes, request.doors[i]));
  port.postMessage({ batch: request.batch, results } satisfies PrepareResponse);
}

/** Takes the job's items one at a time, with the other workers, until none is left. */
function prepareShared(request: PrepareJob): void {
  const data = new Uint8Array(request.data);
  let indices: number[] = [];
  let results: (PreparedBase | Rejection)[] = [];
  for (;;) {
    const i = Atomics.add(request.claims, 0, 1);
    if (i >= request.ends.length) break;
    // A copy of its own: a result may keep the bytes, and shared memory is not to leave here.
    const bytes = data.slice(request.ends[i - 1] ?? 0, request.ends[i]);
    indices.push(i);
    results.push(prepareOne(bytes, request.doors[i]));
    if (indices.length === sharedReportTxs) {
      port.postMessage({ job: request.job, indices, results } satisfies PrepareResponse);
      [indices, results] = [[], []];
    }
  }
  if (indices.length > 0) port.postMessage({ job: request.job, indices, results } satisfies PrepareResponse);
}

port.on("message", (request: PrepareRequest) => {
  if ("job" in request) prepareShared(request);
  else prepareBatch(request);
});
