// NodeMetrics' counts of what committed blocks carry: the evidence of misbehavior by type,
// summed over the node's processes as a scrape sums them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NodeMetrics } from "../../../src/metrics/nodeMetrics.js";

describe("node metrics", () => {
  test("counts each evidence of a committed block by its type, from 0 before any", async () => {
    const metrics = new NodeMetrics();
    const worker = new NodeMetrics();
    assert.match(await metrics.text(), /^ledgerd_evidence_total\{type="duplicate_vote"\} 0$/m);
    assert.match(await metrics.text(), /^ledgerd_evidence_total\{type="light_client_attack"\} 0$/m);
    metrics.blockCommitted({ height: 1, txs: {} });
    metrics.blockCommitted({ height: 2, txs: { v2: 1 }, evidence: ["duplicate_vote", "duplicate_vote"] });
    metrics.blockCommitted({ height: 3, txs: {}, evidence: ["light_client_attack"] });
    const text = await metrics.text([await worker.snapshot()]);
    assert.match(text, /^ledgerd_evidence_total\{type="duplicate_vote"\} 2$/m);
    assert.match(text, /^ledgerd_evidence_total\{type="light_client_attack"\} 1$/m);
    assert.match(text, /^ledgerd_blocks_committed_total 3$/m);
  });

  test("ledgerd_ready reads the readiness at each scrape: 1 ready, 0 not or failing, 0 in a worker", async () => {
    const metrics = new NodeMetrics();
    const worker = new NodeMetrics();
    let answer: boolean | Error = true;
    metrics.watchReadiness({ ready: async () => (answer instanceof Error ? Promise.reject(answer) : answer) });
    assert.match(await metrics.text([await worker.snapshot()]), /^ledgerd_ready 1$/m);
    answer = false;
    assert.match(await metrics.text(), /^ledgerd_ready 0$/m);
    answer = new Error("IPC closed");
    assert.match(await metrics.text(), /^ledgerd_ready 0$/m);
    assert.match(await worker.text(), /^ledgerd_ready 0$/m);
  });
});
