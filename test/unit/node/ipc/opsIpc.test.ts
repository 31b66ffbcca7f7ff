// The operators' IPC (issue #13): a worker's readiness asks the node's process, and says why
// not when it is gone; the node's process gathers its workers' metrics. Both sides are the real
// classes, joined by fake channels that pass the messages through JSON, as node:cluster does.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NodeMetrics } from "../../../../src/metrics/nodeMetrics.js";
import { PrimaryOps, WorkerOps, type OpsPrimaryMessage, type OpsWorkerMessage } from "../../../../src/node/ipc/opsIpc.js";
import { workerReadiness } from "../../../../src/node/readiness.js";
import { fakeChannel } from "../../../helpers/fakeChannel.js";

const readyStore = { getChainState: async () => ({}) };

/** A worker joined to a primary: what the worker sends reaches `primary.handle`, and back. */
function joined(primary: PrimaryOps, snapshot: () => Promise<readonly object[]>) {
  const fake = fakeChannel<OpsWorkerMessage>();
  const toWorker = { send: (message: OpsPrimaryMessage) => fake.answer(JSON.parse(JSON.stringify(message))) };
  const channel = {
    ...fake.channel,
    send: (message: OpsWorkerMessage) => primary.handle(JSON.parse(JSON.stringify(message)) as OpsWorkerMessage, toWorker),
  };
  return { worker: new WorkerOps(channel, snapshot), toWorker, disconnect: fake.disconnect };
}

describe("operators' IPC", () => {
  it("a worker's /readyz reports the node's checks and its own store's", async () => {
    const primary = new PrimaryOps({ check: async () => ({ checks: { store: "ok", engine: "CometBFT is catching up" } }) });
    const { worker } = joined(primary, async () => []);
    const readiness = await workerReadiness(readyStore, worker).check();
    assert.deepEqual(readiness.checks, { store: "ok", engine: "CometBFT is catching up", worker_store: "ok" });
  });

  it("without the node's process, a worker is not ready and says why", async () => {
    const primary = new PrimaryOps({ check: async () => ({ checks: { store: "ok" } }) });
    const { worker, disconnect } = joined(primary, async () => []);
    disconnect();
    const readiness = await workerReadiness(readyStore, worker).check();
    assert.equal(readiness.checks["node"], "the node's process cannot be reached");
  });

  it("a check that throws in the node's process is a reason, not a crash", async () => {
    const primary = new PrimaryOps({ check: async () => Promise.reject(new Error("boom")) });
    const { worker } = joined(primary, async () => []);
    assert.match((await worker.nodeChecks())["node"] ?? "", /the readiness check failed \(Error: boom\)/);
  });

  it("the node's process sums its workers' figures with its own", async () => {
    const primary = new PrimaryOps({ check: async () => ({ checks: {} }) });
    const workers = [new NodeMetrics(), new NodeMetrics()];
    const ports = workers.map((metrics) => joined(primary, () => metrics.snapshot()).toWorker);
    workers[0]!.observeRequest("GET", "/api/v1", 200, 0.001);
    workers[1]!.observeRequest("GET", "/api/v1", 200, 0.002);
    workers[1]!.transactionRefused("v2", "DoubleSpend");
    const node = new NodeMetrics();
    node.transactionRefused("v2", "DoubleSpend");
    const text = await node.text(await primary.gatherMetrics(ports));
    assert.match(text, /^ledgerd_http_request_duration_seconds_count\{method="GET",route="\/api\/v1",status="200"\} 2$/m);
    assert.match(text, /^ledgerd_transactions_refused_total\{interface="v2",code="DoubleSpend"\} 2$/m);
  });
});
