// A worker thread of a restore's first pass (snapshotIds.ts): reads its share of a chunk's lines
// and hashes their transactions' ids.
import { parentPort } from "node:worker_threads";
import { idsOfLines, type IdsRequest, type IdsResponse } from "./snapshotIds.js";
import { nameThisThread } from "../workerThread.js";

if (parentPort === null) throw new Error("snapshotIdWorker must run as a worker thread");
const port = parentPort;
nameThisThread("ledgerd-restore");

port.on("message", (request: IdsRequest) => {
  port.postMessage({ job: request.job, share: idsOfLines(request.texts) } satisfies IdsResponse);
});
