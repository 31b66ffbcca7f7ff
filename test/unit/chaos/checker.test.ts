// The chaos checker (chaos/checker.ts) is shown to fail: each anomaly planted in an otherwise
// clean history, with real signed transactions, is reported as its kind, and the clean one passes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkRun, formatReport, type AnomalyKind, type CheckReport } from "../../../chaos/checker.js";
import type {
  BlockSnapshot, FaultEvent, HistoryEvent, NodeSnapshot, PostEvent, PostMode, RunRecord,
  StreamConnectionEvent, StreamEvent,
} from "../../../chaos/history.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";

const alice = keypairOf("alice");
const bob = keypairOf("bob");
const carol = keypairOf("carol");

/** A CREATE, a TRANSFER of its output, and a rival TRANSFER of the same output. */
const c1 = create(alice);
const t1 = transfer([{ tx: c1, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
const rival = transfer([{ tx: c1, outputIndex: 0 }], [alice], [{ publicKeys: [carol.publicKey], amount: 1n }]);
const c2 = create(bob);

const idOf = (tx: JsonObject): string => tx["id"] as string;
const textOf = (tx: JsonObject): string => JSON.stringify(tx);

function post(tx: JsonObject, status: number | null, options: { mode?: PostMode; node?: number; atMs?: number; endMs?: number } = {}): PostEvent {
  const spends = (tx["inputs"] as JsonObject[]).flatMap((input) => {
    const fulfills = input["fulfills"] as JsonObject | null;
    return fulfills === null ? [] : [`${String(fulfills["transaction_id"])}:${String(fulfills["output_index"])}`];
  });
  const atMs = options.atMs ?? 10;
  return { type: "post", client: 0, node: options.node ?? 0, mode: options.mode ?? "commit", txId: idOf(tx), body: textOf(tx), spends, atMs, endMs: options.endMs ?? atMs + 5, status };
}

const block = (height: number, txs: readonly JsonObject[], appHash = `AA0${height}`): BlockSnapshot =>
  ({ height, txIds: txs.map(idOf), appHash });

/** The clean ledger: c1 at height 1, t1 and c2 at height 2, an empty block at 3. */
const cleanBlocks = (): BlockSnapshot[] => [block(1, [c1]), block(2, [t1, c2]), block(3, [])];

function node(n: number, blocks: readonly BlockSnapshot[] = cleanBlocks(), extra: Partial<NodeSnapshot> = {}): NodeSnapshot {
  const txs = [c1, t1, rival, c2].filter((tx) => blocks.some((b) => b.txIds.includes(idOf(tx))));
  return { node: n, blocks, transactions: new Map(txs.map((tx) => [idOf(tx), textOf(tx)])), proofsVerified: true, verifyChainPassed: true, ...extra };
}

const opened = (atMs: number, subscriber = 0): StreamConnectionEvent => ({ type: "stream-connection", subscriber, node: 2, state: "opened", atMs });
const closed = (atMs: number, subscriber = 0): StreamConnectionEvent => ({ type: "stream-connection", subscriber, node: 2, state: "closed", atMs });
const streamed = (tx: JsonObject, height: number, atMs: number, subscriber = 0): StreamEvent => ({ type: "stream", subscriber, node: 2, txId: idOf(tx), height, atMs });

const fault: FaultEvent = { type: "fault", kind: "partition-isolate", nodes: [3], atMs: 100, healedMs: 200, recoveredMs: 250 };

/** The clean history: every post answered as it should, one lost double-spend race, a stream. */
function cleanEvents(): HistoryEvent[] {
  return [
    opened(1),
    post(c1, 202),
    post(t1, 202, { node: 1, atMs: 20 }),
    post(rival, 400, { node: 2, atMs: 20 }),
    post(c2, 202, { mode: "async", atMs: 21 }),
    streamed(c1, 1, 16),
    streamed(t1, 2, 27),
    streamed(c2, 2, 27),
    fault,
  ];
}

function run(events: readonly HistoryEvent[] = cleanEvents(), nodes: readonly NodeSnapshot[] = [0, 1, 2, 3].map((n) => node(n))): CheckReport {
  return checkRun({ seed: 7, events, nodes } satisfies RunRecord);
}

const kinds = (report: CheckReport): AnomalyKind[] => [...new Set(report.anomalies.map((a) => a.kind))].sort();

describe("chaos checker", () => {
  test("a clean history passes, with its figures counted", () => {
    const report = run();
    assert.deepEqual(report.anomalies, []);
    assert.equal(report.ok, true);
    assert.equal(report.counts.committed, 3);
    assert.equal(report.counts.acknowledgedCommits, 2);
    assert.equal(report.counts.acceptedThenCommitted, 1);
    assert.deepEqual(report.counts.doubleSpends, { attempted: 1, oneWinner: 1, noWinner: 0, severalWinners: 0 });
    assert.equal(report.counts.streamEvents, 3);
    assert.deepEqual(report.recoveryMs, { "partition-isolate": [50] });
    assert.match(formatReport(report), /^seed 7: valid\n/);
  });

  test("a lost write: acknowledged in mode=commit, in no node's blocks", () => {
    const lost = create(carol);
    const report = run([...cleanEvents(), post(lost, 202, { atMs: 30 })]);
    assert.deepEqual(kinds(report), ["lost-write"]);
    assert.deepEqual(report.anomalies[0]?.txIds, [idOf(lost)]);
    assert.deepEqual(report.anomalies[0]?.nodes, [0, 1, 2, 3]);
    assert.match(formatReport(report), /INVALID, 1 anomaly\n[^]*lost-write \(1\):/);
  });
});
