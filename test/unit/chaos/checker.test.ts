// The chaos checker (chaos/checker.ts) is shown to fail: each anomaly planted in an otherwise
// clean history, with real signed transactions, is reported as its kind, and the clean one passes;
// so are evidence that nodes serve differently and evidence naming a validator no fault twinned.
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

  test("a lost write on one node: the others hold it, that node's block does not", () => {
    const nodes = [0, 1, 2].map((n) => node(n)).concat(node(3, [block(1, [c1]), block(2, [c2]), block(3, [])]));
    const report = run(cleanEvents(), nodes);
    assert.deepEqual(kinds(report), ["diverged-blocks", "lost-write"]);
    const lost = report.anomalies.find((a) => a.kind === "lost-write");
    assert.deepEqual([lost?.txIds, lost?.nodes], [[idOf(t1)], [3]]);
  });

  test("a write in a node's block that the node does not serve is lost there", () => {
    const bare = node(1);
    const served = new Map(bare.transactions);
    served.delete(idOf(t1));
    const report = run(cleanEvents(), [node(0), { ...bare, transactions: served }, node(2), node(3)]);
    assert.deepEqual(kinds(report), ["lost-write"]);
    assert.match(report.anomalies[0]?.detail ?? "", /not served/);
  });

  test("a write its nodes serve as an empty text (the runner's mark for a 404) is lost", () => {
    const nodes = [0, 1, 2, 3].map((n) => {
      const bare = node(n);
      return { ...bare, transactions: new Map(bare.transactions).set(idOf(t1), "") };
    });
    const report = run(cleanEvents().filter((e) => e.type !== "stream"), nodes);
    assert.deepEqual(kinds(report), ["lost-write"]);
    assert.deepEqual(report.anomalies[0]?.nodes, [0, 1, 2, 3]);
    assert.equal(report.counts.refusedInBlocks, 1);
  });

  test("a rival in CometBFT's block that every node refused is no double spend", () => {
    const blocks = [...cleanBlocks().slice(0, 2), block(3, [rival])];
    const nodes = [0, 1, 2, 3].map((n) => {
      const bare = node(n, blocks);
      const served = new Map(bare.transactions);
      served.delete(idOf(rival));
      return { ...bare, transactions: served };
    });
    const report = run(cleanEvents(), nodes);
    assert.deepEqual(report.anomalies, []);
    assert.equal(report.counts.committed, 3);
    assert.equal(report.counts.refusedInBlocks, 1);
    assert.deepEqual(report.counts.doubleSpends, { attempted: 1, oneWinner: 1, noWinner: 0, severalWinners: 0 });
  });

  test("a double spend: both rivals committed, one block apart", () => {
    const blocks = [...cleanBlocks().slice(0, 2), block(3, [rival])];
    const report = run(cleanEvents(), [0, 1, 2, 3].map((n) => node(n, blocks)));
    assert.deepEqual(kinds(report), ["double-spend"]);
    assert.equal(report.anomalies[0]?.output, `${idOf(c1)}:0`);
    assert.deepEqual(report.anomalies[0]?.txIds, [idOf(t1), idOf(rival)]);
    assert.deepEqual(report.counts.doubleSpends, { attempted: 1, oneWinner: 0, noWinner: 0, severalWinners: 1 });
  });

  test("a double spend across a fork: each side spends the output once", () => {
    const forked = [block(1, [c1]), block(2, [rival, c2]), block(3, [])];
    const report = run(cleanEvents(), [node(0), node(1), node(2, forked), node(3, forked)]);
    // t1, acknowledged, is missing from the side that spent the output with its rival.
    assert.deepEqual(kinds(report), ["diverged-blocks", "double-spend", "lost-write"]);
    assert.deepEqual(report.anomalies.find((a) => a.kind === "diverged-blocks")?.height, 2);
  });

  test("a diverging node: a different block at a height", () => {
    const other = [block(1, [c1]), block(2, [c2, t1]), block(3, [])];
    const report = run(cleanEvents(), [node(0), node(1), node(2), node(3, other)]);
    assert.deepEqual(kinds(report), ["diverged-blocks"]);
    assert.match(report.anomalies[0]?.detail ?? "", /^height 2: node 0, 1, 2 hold .*; node 3 holds/);
  });

  test("a diverging node: a block missing below its top", () => {
    const holed = [block(1, [c1]), block(3, [])];
    const report = run([...cleanEvents()].filter((e) => e.type === "fault"), [node(0), node(1), node(2, holed), node(3)]);
    assert.deepEqual(kinds(report), ["diverged-blocks"]);
    assert.deepEqual([report.anomalies[0]?.height, report.anomalies[0]?.nodes], [2, [2]]);
  });

  test("a diverging node: a different app hash at a height (hex compared without case)", () => {
    const other = [block(1, [c1], "aa01"), block(2, [t1, c2], "BB02"), block(3, [])];
    const report = run(cleanEvents(), [node(0), node(1, other), node(2), node(3)]);
    assert.deepEqual(kinds(report), ["diverged-app-hash"]);
    assert.equal(report.anomalies[0]?.height, 2);
  });

  test("a diverging node: different bytes for one transaction", () => {
    const bare = node(2);
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(t1).reverse()));
    const report = run(cleanEvents(), [node(0), node(1), { ...bare, transactions: new Map(bare.transactions).set(idOf(t1), reordered) }, node(3)]);
    assert.deepEqual(kinds(report), ["diverged-bytes"]);
    assert.deepEqual(report.anomalies[0]?.nodes, [0, 1, 2, 3]);
    assert.match(report.anomalies[0]?.detail ?? "", /2 different texts \(node 0, 1, 3; node 2\)/);
  });

  test("every node serving a transaction other than the one posted diverges from the post", () => {
    const tampered = JSON.stringify({ ...t1, metadata: { changed: true } });
    const nodes = [0, 1, 2, 3].map((n) => {
      const bare = node(n);
      return { ...bare, transactions: new Map(bare.transactions).set(idOf(t1), tampered) };
    });
    const report = run(cleanEvents(), nodes);
    assert.deepEqual(kinds(report), ["diverged-bytes"]);
    assert.match(report.anomalies[0]?.detail ?? "", /other than the one posted/);
  });

  test("a body posted with whitespace is the same transaction as its compact form", () => {
    const spaced = { ...post(t1, 202, { node: 1, atMs: 20 }), body: JSON.stringify(t1, null, 2) };
    const events = cleanEvents().map((e) => (e.type === "post" && e.txId === idOf(t1) ? spaced : e));
    assert.deepEqual(run(events).anomalies, []);
  });

  test("a stream duplicate, gap and disorder on one socket are each reported", () => {
    const withStream = (stream: readonly HistoryEvent[]): CheckReport =>
      run([...cleanEvents().filter((e) => e.type !== "stream" && e.type !== "stream-connection"), opened(1), ...stream]);
    const duplicate = withStream([streamed(c1, 1, 16), streamed(t1, 2, 27), streamed(t1, 2, 27), streamed(c2, 2, 27)]);
    assert.deepEqual(kinds(duplicate), ["stream-duplicate"]);
    const gap = withStream([streamed(c1, 1, 16), streamed(c2, 2, 27)]);
    assert.deepEqual(kinds(gap), ["stream-missing"]);
    assert.deepEqual(gap.anomalies[0]?.txIds, [idOf(t1)]);
    const disorder = withStream([streamed(c1, 1, 16), streamed(c2, 2, 27), streamed(t1, 2, 27)]);
    assert.deepEqual(kinds(disorder), ["stream-order"]);
    const uncommitted = withStream([streamed(c1, 1, 16), streamed(rival, 2, 27), streamed(t1, 2, 27), streamed(c2, 2, 27)]);
    assert.deepEqual(kinds(uncommitted), ["stream-unknown"]);
    // At the wrong height, t1 is unknown there and missing where it belongs.
    const misplaced = withStream([streamed(c1, 1, 16), streamed(t1, 3, 27), streamed(c2, 2, 27)]);
    assert.deepEqual(kinds(misplaced), ["stream-missing", "stream-unknown"]);
  });

  test("a stream that misses the first block after it opened is reported; one opened later is not", () => {
    const streams = (openedAtMs: number): CheckReport =>
      run([...cleanEvents().filter((e) => e.type !== "stream" && e.type !== "stream-connection"), opened(openedAtMs), streamed(t1, 2, 27), streamed(c2, 2, 27)]);
    const missed = streams(1);
    assert.deepEqual(kinds(missed), ["stream-missing"]);
    assert.deepEqual(missed.anomalies[0]?.txIds, [idOf(c1)]);
    assert.deepEqual(streams(15).anomalies, []);
  });

  test("a gap while the socket was closed is counted as missed while disconnected, not an anomaly", () => {
    const events = [...cleanEvents().filter((e) => e.type !== "stream" && e.type !== "stream-connection"),
      opened(1), streamed(c1, 1, 16), closed(17), opened(26), streamed(c2, 2, 27)];
    const report = run(events);
    assert.deepEqual(report.anomalies, []);
    assert.equal(report.counts.streamMissedWhileDisconnected, 1);
    assert.equal(report.counts.streamReconnects, 1);
    const again = run([...events, streamed(c1, 1, 28)]);
    assert.deepEqual(kinds(again), ["stream-duplicate"]);
  });

  test("an unexpected 500 anywhere, and a 503 with no fault running, are reported; a 503 in a fault is not", () => {
    const extra = create(carol);
    const inFault = run([...cleanEvents(), post(extra, 503, { atMs: 205 })]);
    assert.deepEqual(inFault.anomalies, []);
    assert.equal(inFault.counts.faultWindow5xx, 1);
    const afterGrace = run([...cleanEvents(), post(extra, 503, { atMs: 200 + 10_001 })]);
    assert.deepEqual(kinds(afterGrace), ["unexpected-5xx"]);
    assert.match(afterGrace.anomalies[0]?.detail ?? "", /no fault running/);
    const internal = run([...cleanEvents(), { type: "read", client: 1, node: 2, path: "/api/v1/outputs", atMs: 150, endMs: 151, status: 500 }]);
    assert.deepEqual(kinds(internal), ["unexpected-5xx"]);
  });

  test("a healed fault with no commit after it, and a node left behind, did not recover", () => {
    const report = run(cleanEvents().map((e) => (e.type === "fault" ? { ...e, recoveredMs: null } : e)));
    assert.deepEqual(kinds(report), ["not-recovered"]);
    const short = cleanBlocks().slice(0, 2);
    const behind = run(cleanEvents(), [node(0), node(1), node(2), node(3, short)]);
    assert.deepEqual(kinds(behind), ["not-recovered"]);
    assert.deepEqual(behind.counts.nodesBehind, [{ node: 3, height: 2, top: 3 }]);
    const caughtUp = run(cleanEvents(), [node(0), node(1), node(2), node(3, short, { caughtUp: true })]);
    assert.deepEqual(caughtUp.anomalies, []);
  });

  test("a node behind the height of an acknowledged write has not lost it", () => {
    const report = run(cleanEvents(), [node(0), node(1), node(2), node(3, [block(1, [c1])], { caughtUp: true })]);
    assert.deepEqual(report.anomalies, []);
  });

  test("failed proofs and a failed verify-chain are reported per node", () => {
    const report = run(cleanEvents(), [node(0), node(1, undefined, { proofsVerified: false }), node(2, undefined, { verifyChainPassed: false }), node(3)]);
    assert.deepEqual(kinds(report), ["proofs-failed", "verify-chain-failed"]);
  });

  test("evidence naming the twinned validator, the same on every node, passes and is counted", () => {
    const address = "5F1C0E7A9B3D2C4E6F8091A2B3C4D5E6F7081920";
    const twinned: FaultEvent = { ...fault, kind: "double-sign", nodes: [0], detail: address };
    const evidence = [{ height: 3, type: "duplicate_vote", address, infractionHeight: 2 }];
    const report = run([...cleanEvents(), twinned], [0, 1, 2, 3].map((n) => node(n, undefined, { evidence })));
    assert.deepEqual(report.anomalies, []);
    assert.equal(report.counts.evidence, 1);
    assert.equal(report.counts.doubleSignFaultsWithEvidence, 1);
    assert.match(formatReport(report), /evidence: 1 records committed; 1 double-sign faults, 1 of them with evidence/);
    // A node behind the evidence's block does not diverge; one that lacks it at its height does.
    const behind = node(3, cleanBlocks().slice(0, 2), { evidence: [], caughtUp: true });
    assert.deepEqual(run([...cleanEvents(), twinned], [...[0, 1, 2].map((n) => node(n, undefined, { evidence })), behind]).anomalies, []);
    const lacking = run([...cleanEvents(), twinned], [...[0, 1, 2].map((n) => node(n, undefined, { evidence })), node(3, undefined, { evidence: [] })]);
    assert.deepEqual(kinds(lacking), ["diverged-evidence"]);
    // Evidence against a validator no double-sign fault twinned accuses an honest one.
    const accused = run(cleanEvents(), [0, 1, 2, 3].map((n) => node(n, undefined, { evidence })));
    assert.deepEqual(kinds(accused), ["unexplained-evidence"]);
  });

  test("what was not acknowledged is counted, not hidden", () => {
    const dropped = create(carol);
    const late = create(alice);
    const lateBlocks = [...cleanBlocks(), block(4, [late])];
    const lateNodes = [0, 1, 2, 3].map((n) => {
      const bare = node(n, lateBlocks);
      return { ...bare, transactions: new Map(bare.transactions).set(idOf(late), textOf(late)) };
    });
    const report = run([...cleanEvents(), post(dropped, 202, { mode: "sync", atMs: 40 }), post(late, 504, { atMs: 150, endMs: 180 }), post(late, null, { atMs: 181 })], lateNodes);
    assert.deepEqual(report.anomalies, []);
    assert.equal(report.counts.acceptedNeverCommitted, 1);
    assert.equal(report.counts.unavailableButCommitted, 1);
    assert.equal(report.counts.unansweredButCommitted, 1);
    assert.equal(report.counts.postsUnanswered, 1);
    assert.match(formatReport(report), /1 answered 503\/504 and committed all the same\n  1 posts unanswered, 1 of their/);
  });
});
