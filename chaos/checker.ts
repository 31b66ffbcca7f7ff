// The checker of a chaos run (issue 38): reads a run's record (chaos/history.ts) and says what
// went wrong, in the style of Jepsen's set and bank checks. Pure: no IO, no clock. What each
// check holds and why is in docs/faults.md, "The checker".
import { readJsonOrNull } from "../src/json/readJson.js";
import { serializeCanonical } from "../src/json/serializeCanonical.js";
import type {
  FaultEvent, HistoryEvent, NodeSnapshot, OutputRef, PostEvent, ReadEvent, RunRecord,
  StreamConnectionEvent, StreamEvent,
} from "./history.js";
import { checkEvidence, type EvidenceCounts } from "./evidenceCheck.js";
import { ledgerView, servedText, spendsOf, type LedgerView } from "./ledgerView.js";
import { streamCoverage, type StreamCoverage } from "./streamCoverage.js";

/**
 * How long after a fault's heal a 503 or 504 still belongs to it: the network catches up
 * (measured 0-5.4 s after a heal), and a `mode=commit` POST already waiting may answer 504.
 */
export const faultGraceMs = 10_000;

/**
 * What POST /api/v1/transactions answers in every mode once it took the transaction; in
 * `mode=commit`, once it is in a committed block (docs/http-api.md, "Transactions").
 */
const acceptedStatus = 202;

/** The 5xx a node documents while a fault runs: no engine (503), no commit seen in time (504). */
const faultStatuses: ReadonlySet<number> = new Set([503, 504]);

/** How many anomalies of one kind formatReport lists before it says how many more there are. */
const anomaliesShownPerKindMax = 10;

/** How many transaction ids one anomaly's detail names (all are in its `txIds`). */
const txIdsShownMax = 5;

export type AnomalyKind =
  | "lost-write" | "double-spend" | "diverged-blocks" | "diverged-app-hash" | "diverged-bytes"
  | "stream-missing" | "stream-duplicate" | "stream-order" | "stream-unknown"
  | "unexpected-5xx" | "proofs-failed" | "verify-chain-failed" | "not-recovered"
  | "diverged-evidence" | "unexplained-evidence";

export interface Anomaly {
  readonly kind: AnomalyKind;
  readonly detail: string;
  readonly txIds?: readonly string[];
  readonly nodes?: readonly number[];
  readonly height?: number;
  readonly subscriber?: number;
  readonly output?: OutputRef;
}

/** Double-spend contests: outputs two or more different posted transactions tried to spend. */
export interface ContestCounts {
  readonly attempted: number;
  readonly oneWinner: number;
  readonly noWinner: number;
  readonly severalWinners: number;
}

/** What became of the posted transactions. */
export interface WriteCounts {
  /** Distinct transactions in some node's blocks that some node serves. */
  readonly committed: number;
  /**
   * Distinct transactions in blocks that no node serves: refused by FinalizeBlock (CometBFT's
   * blocks keep them), unless one was acknowledged (then it is a lost write).
   */
  readonly refusedInBlocks: number;
  /** Distinct transactions answered 202 in `mode=commit`. */
  readonly acknowledgedCommits: number;
  /** Distinct transactions answered 202 in `async`/`sync` and committed. */
  readonly acceptedThenCommitted: number;
  /** Distinct transactions answered 202 in `async`/`sync` and never committed. */
  readonly acceptedNeverCommitted: number;
  /** Distinct transactions answered 503 or 504 to some post and committed all the same. */
  readonly unavailableButCommitted: number;
  /** Distinct transactions whose post got no answer and that committed. */
  readonly unansweredButCommitted: number;
}

export interface CheckCounts extends WriteCounts, EvidenceCounts {
  readonly posts: number;
  /** Posts by answer: "202", "400", ..., "none" for no answer. */
  readonly postsByStatus: Readonly<Record<string, number>>;
  readonly postsUnanswered: number;
  readonly reads: number;
  readonly doubleSpends: ContestCounts;
  /** 503 and 504 answers inside a fault's window (not anomalies). */
  readonly faultWindow5xx: number;
  readonly streamSubscribers: number;
  readonly streamEvents: number;
  readonly streamReconnects: number;
  /** Committed transactions a subscriber's covered stretch held while its socket was closed. */
  readonly streamMissedWhileDisconnected: number;
  readonly faultsByKind: Readonly<Record<string, number>>;
  /** Faults the run ended before healing. */
  readonly faultsUnhealed: number;
  /** Each node's highest block, by node number. */
  readonly heights: Readonly<Record<string, number>>;
  /** Nodes below the top height at their snapshot, and by how many blocks. */
  readonly nodesBehind: readonly { readonly node: number; readonly height: number; readonly top: number }[];
}

export interface CheckReport {
  readonly seed: number;
  readonly ok: boolean;
  readonly anomalies: readonly Anomaly[];
  readonly counts: CheckCounts;
  /** Per fault kind, each healed fault's time from heal to the first commit after it. */
  readonly recoveryMs: Readonly<Record<string, readonly number[]>>;
}

/** Checks a run's record. The report is ok when it found no anomaly. */
export function checkRun(record: RunRecord): CheckReport {
  const view = ledgerView(record.nodes);
  const posts = record.events.filter((e): e is PostEvent => e.type === "post");
  const faults = record.events.filter((e): e is FaultEvent => e.type === "fault");
  const anomalies: Anomaly[] = [];
  const add = (anomaly: Anomaly): void => void anomalies.push(anomaly);
  checkBlocks(record.nodes, add);
  checkNodeFlags(record.nodes, add);
  const writes = checkWrites(record.nodes, posts, view, add);
  checkBytes(record.nodes, posts, view, add);
  const doubleSpends = checkSpends(record.nodes, posts, view, add);
  const faultWindow5xx = checkStatuses(record.events, faults, add);
  const behind = checkBehind(record.nodes, view, add);
  const recoveryMs = checkRecoveries(faults, add);
  const streams = checkStreams(record.events, view, posts, add);
  const evidence = checkEvidence(record.nodes, faults, add);
  const counts: CheckCounts = {
    ...postCounts(posts), ...writes, doubleSpends, faultWindow5xx, ...streams,
    ...faultCounts(faults), reads: record.events.filter((e) => e.type === "read").length,
    heights: Object.fromEntries(view.topOf), nodesBehind: behind, ...evidence,
  };
  return { seed: record.seed, ok: anomalies.length === 0, anomalies, counts, recoveryMs };
}

type Add = (anomaly: Anomaly) => void;

/** Same transaction ids and the same app hash at each height two or more nodes hold. */
function checkBlocks(nodes: readonly NodeSnapshot[], add: Add): void {
  const heights = new Map<number, { node: number; txIds: string; appHash: string }[]>();
  for (const node of nodes) {
    for (const block of node.blocks) {
      const held = heights.get(block.height) ?? [];
      held.push({ node: node.node, txIds: block.txIds.join(","), appHash: normalHash(block.appHash) });
      heights.set(block.height, held);
    }
  }
  for (const [height, held] of [...heights].sort((a, b) => a[0] - b[0])) {
    const nodes = held.map((h) => h.node);
    const blocks = groupNodes(held, (h) => h.txIds);
    if (blocks.length > 1) {
      add({ kind: "diverged-blocks", height, nodes, detail: `height ${height}: ${describeGroups(blocks)}` });
    }
    const hashes = groupNodes(held, (h) => h.appHash);
    if (hashes.length > 1) {
      add({ kind: "diverged-app-hash", height, nodes, detail: `height ${height}: ${describeGroups(hashes)}` });
    }
  }
  checkHoles(nodes, heights, add);
}

/**
 * A node serves every block from its lowest to its highest: a height inside that range that
 * another node holds and it does not is a block it lost. (Below its lowest is not judged: a
 * node that joined by state sync starts above 1.)
 */
function checkHoles(nodes: readonly NodeSnapshot[], heights: ReadonlyMap<number, unknown>, add: Add): void {
  for (const node of nodes) {
    const own = new Set(node.blocks.map((b) => b.height));
    const low = Math.min(...own);
    const high = Math.max(...own);
    for (const height of heights.keys()) {
      if (height <= low || height >= high || own.has(height)) continue;
      add({ kind: "diverged-blocks", height, nodes: [node.node], detail: `height ${height}: node ${node.node} lacks it` });
    }
  }
}

/** Hex is compared without regard to case; anything else (base64) exactly. */
function normalHash(hash: string): string {
  return /^[0-9a-fA-F]+$/.test(hash) ? hash.toLowerCase() : hash;
}

/** Nodes grouped by what `keyOf` says they hold, most held first. */
function groupNodes<T extends { node: number }>(held: readonly T[], keyOf: (h: T) => string): Group[] {
  const groups = new Map<string, number[]>();
  for (const h of held) {
    const key = keyOf(h);
    groups.set(key, [...(groups.get(key) ?? []), h.node]);
  }
  return [...groups].sort((a, b) => b[1].length - a[1].length);
}

/** What some nodes hold, and which nodes. */
type Group = [key: string, nodes: number[]];

/** The first characters of what each group holds: enough to tell them apart in a report. */
const heldShownChars = 80;

function describeGroups(groups: readonly Group[]): string {
  return groups
    .map(([key, nodes]) => `${nodeList(nodes)} hold${nodes.length === 1 ? "s" : ""} ${JSON.stringify(key.slice(0, heldShownChars))}`)
    .join("; ");
}

/** "node 0, 2" */
function nodeList(nodes: readonly number[]): string {
  return `node ${nodes.join(", ")}`;
}

function checkNodeFlags(nodes: readonly NodeSnapshot[], add: Add): void {
  for (const node of nodes) {
    const nodes = [node.node];
    if (!node.proofsVerified) {
      add({ kind: "proofs-failed", nodes, detail: `node ${node.node}: proofs did not verify against the genesis validators` });
    }
    if (!node.verifyChainPassed) {
      add({ kind: "verify-chain-failed", nodes, detail: `node ${node.node}: verify-chain failed on its data folder` });
    }
  }
}

/** A node below the top is a failed recovery unless the runner saw it catch up. */
function checkBehind(nodes: readonly NodeSnapshot[], view: LedgerView, add: Add): CheckCounts["nodesBehind"] {
  const behind: { node: number; height: number; top: number }[] = [];
  for (const node of nodes) {
    const height = view.topOf.get(node.node) ?? 0;
    if (height >= view.top) continue;
    behind.push({ node: node.node, height, top: view.top });
    if (node.caughtUp !== true) {
      const detail = `node ${node.node} is at height ${height} of ${view.top} and did not catch up`;
      add({ kind: "not-recovered", nodes: [node.node], detail });
    }
  }
  return behind;
}

/**
 * The set check: every transaction acknowledged as committed (202 in `mode=commit`, or 202 in
 * `async`/`sync` and in some node's block) is in every node's blocks and served by it. A node
 * whose top is below the transaction's height is behind, not lossy (checkBehind judges it).
 */
function checkWrites(
  nodes: readonly NodeSnapshot[], posts: readonly PostEvent[], view: LedgerView, add: Add,
): WriteCounts {
  const acked = new Set<string>();
  const accepted = new Set<string>();
  for (const post of posts) {
    if (post.status !== acceptedStatus) continue;
    (post.mode === "commit" ? acked : accepted).add(post.txId);
  }
  const acceptedThenCommitted = [...accepted].filter((id) => view.committed.has(id));
  const heldBy = nodes.map((n) => ({ node: n, ids: new Set(n.blocks.flatMap((b) => b.txIds)) }));
  for (const txId of new Set([...acked, ...acceptedThenCommitted])) {
    const height = view.placeOf.get(txId)?.height;
    const reached = (node: NodeSnapshot): boolean => height === undefined || height <= (view.topOf.get(node.node) ?? 0);
    const lost = heldBy.filter(({ node, ids }) => !ids.has(txId) && reached(node)).map((h) => h.node.node);
    const unserved = heldBy.filter(({ node, ids }) => ids.has(txId) && servedText(node, txId) === undefined).map((h) => h.node.node);
    if (lost.length > 0) {
      const how = acked.has(txId) ? "acknowledged in mode=commit" : "accepted, then committed";
      const where = height === undefined ? "in no node's blocks" : `committed at height ${height}`;
      add({ kind: "lost-write", txIds: [txId], nodes: lost, detail: `${txId} (${how}) is missing from ${nodeList(lost)}: ${where}` });
    }
    if (unserved.length > 0) {
      add({ kind: "lost-write", txIds: [txId], nodes: unserved, detail: `${txId} is in a block of ${nodeList(unserved)} but not served` });
    }
  }
  const committedWith = (test: (p: PostEvent) => boolean): number =>
    new Set(posts.filter((p) => test(p) && view.committed.has(p.txId)).map((p) => p.txId)).size;
  return {
    committed: view.committed.size,
    refusedInBlocks: view.placeOf.size - view.committed.size,
    acknowledgedCommits: acked.size,
    acceptedThenCommitted: acceptedThenCommitted.length,
    acceptedNeverCommitted: accepted.size - acceptedThenCommitted.length,
    unavailableButCommitted: committedWith((p) => p.status !== null && faultStatuses.has(p.status)),
    unansweredButCommitted: committedWith((p) => p.status === null),
  };
}

/**
 * Identical bytes: every node serves a committed transaction's JSON byte for byte alike (nodes
 * store it as the block carried it, docs/postgres.md), and that JSON's canonical form is the
 * canonical form of what was posted (a client may post whitespace the node does not keep).
 */
function checkBytes(
  nodes: readonly NodeSnapshot[], posts: readonly PostEvent[], view: LedgerView, add: Add,
): void {
  const postedBodies = new Map<string, Set<string>>();
  for (const post of posts) postedBodies.set(post.txId, (postedBodies.get(post.txId) ?? new Set()).add(post.body));
  for (const txId of view.committed) {
    const served = nodes.flatMap((n) => {
      const text = servedText(n, txId);
      return text === undefined ? [] : [{ node: n.node, text }];
    });
    const texts = groupNodes(served, (s) => s.text);
    if (texts.length > 1) {
      const which = texts.map(([, n]) => nodeList(n)).join("; ");
      const detail = `${txId}: nodes serve ${texts.length} different texts (${which})`;
      add({ kind: "diverged-bytes", txIds: [txId], nodes: served.map((s) => s.node), detail });
    }
    const [text, holders] = texts[0] ?? [];
    if (text === undefined || holders === undefined) continue;
    const servedForm = canonical(text);
    const bodies = [...(postedBodies.get(txId) ?? [])];
    // A body that is not JSON was refused, whatever id it claimed: no committed text to compare.
    if (bodies.map(canonical).some((form) => form !== null && form !== servedForm)) {
      const what = servedForm === null ? "text that is not JSON" : "a transaction other than the one posted";
      add({ kind: "diverged-bytes", txIds: [txId], nodes: holders, detail: `${txId}: ${nodeList(holders)} serve ${what}` });
    }
  }
}

/** The canonical JSON (BigchainDB's form, which its ids hash) of a text, or null if it is not JSON. */
function canonical(text: string): string | null {
  const value = readJsonOrNull(text);
  return value === null ? null : serializeCanonical(value, "python");
}

/**
 * The bank check: no output is spent by two different transactions in all the nodes' blocks
 * together (a fork that spends it once on each side counts). What a transaction spends is read
 * from its committed JSON (from its post if that is not a transaction's JSON).
 */
function checkSpends(
  nodes: readonly NodeSnapshot[], posts: readonly PostEvent[], view: LedgerView, add: Add,
): ContestCounts {
  const postedSpends = new Map(posts.map((p) => [p.txId, p.spends]));
  const spenders = new Map<OutputRef, Set<string>>();
  for (const txId of view.committed) {
    const text = nodes.map((n) => servedText(n, txId)).find((t) => t !== undefined);
    const spends = (text === undefined ? null : spendsOf(text)) ?? postedSpends.get(txId) ?? [];
    for (const output of spends) spenders.set(output, (spenders.get(output) ?? new Set()).add(txId));
  }
  for (const [output, txIds] of spenders) {
    if (txIds.size < 2) continue;
    add({ kind: "double-spend", output, txIds: [...txIds], detail: `${output} is spent by ${[...txIds].join(" and ")}` });
  }
  return contestCounts(posts, view);
}

function contestCounts(posts: readonly PostEvent[], view: LedgerView): ContestCounts {
  const rivals = new Map<OutputRef, Set<string>>();
  for (const post of posts) {
    for (const output of post.spends) rivals.set(output, (rivals.get(output) ?? new Set()).add(post.txId));
  }
  const counts = { attempted: 0, oneWinner: 0, noWinner: 0, severalWinners: 0 };
  for (const txIds of rivals.values()) {
    if (txIds.size < 2) continue;
    counts.attempted++;
    const winners = [...txIds].filter((id) => view.committed.has(id)).length;
    if (winners === 0) counts.noWinner++;
    else if (winners === 1) counts.oneWinner++;
    else counts.severalWinners++;
  }
  return counts;
}

/**
 * No 5xx but the documented 503/504, and those only while a fault runs: a request whose span
 * [atMs, endMs] meets some fault's [atMs, healedMs + faultGraceMs] (to the run's end when it
 * never healed). A 500, or any other 5xx, is an anomaly anywhere. Returns the 5xx tolerated.
 */
function checkStatuses(events: readonly HistoryEvent[], faults: readonly FaultEvent[], add: Add): number {
  let tolerated = 0;
  for (const event of events) {
    if (event.type !== "post" && event.type !== "read") continue;
    const status = event.status;
    if (status === null || status < 500) continue;
    if (faultStatuses.has(status) && faults.some((f) => meets(event, f))) {
      tolerated++;
      continue;
    }
    add({ kind: "unexpected-5xx", nodes: [event.node], ...txIdsOf(event), detail: describe5xx(event, status) });
  }
  return tolerated;
}

function txIdsOf(event: PostEvent | ReadEvent): Pick<Anomaly, "txIds"> {
  return event.type === "post" ? { txIds: [event.txId] } : {};
}

function describe5xx(event: PostEvent | ReadEvent, status: number): string {
  const what = event.type === "post" ? `POST ${event.txId} (mode=${event.mode})` : `GET ${event.path}`;
  const when = faultStatuses.has(status) ? " with no fault running" : "";
  const error = event.type === "post" && event.error !== undefined ? `: ${event.error}` : "";
  return `${status} to ${what} on node ${event.node} at ${event.atMs} ms${when}${error}`;
}

function meets(request: PostEvent | ReadEvent, fault: FaultEvent): boolean {
  const end = fault.healedMs === null ? Infinity : fault.healedMs + faultGraceMs;
  return request.endMs >= fault.atMs && request.atMs <= end;
}

/** Every healed fault was followed by a commit; the time it took, per kind. */
function checkRecoveries(faults: readonly FaultEvent[], add: Add): Record<string, number[]> {
  const recoveryMs: Record<string, number[]> = {};
  for (const fault of faults) {
    if (fault.healedMs === null) continue;
    if (fault.recoveredMs === null) {
      const detail = `${fault.kind} of ${nodeList(fault.nodes)} healed at ${fault.healedMs} ms: nothing committed after it`;
      add({ kind: "not-recovered", nodes: fault.nodes, detail });
      continue;
    }
    (recoveryMs[fault.kind] ??= []).push(fault.recoveredMs - fault.healedMs);
  }
  return recoveryMs;
}

function faultCounts(faults: readonly FaultEvent[]): Pick<CheckCounts, "faultsByKind" | "faultsUnhealed"> {
  const faultsByKind: Record<string, number> = {};
  for (const fault of faults) faultsByKind[fault.kind] = (faultsByKind[fault.kind] ?? 0) + 1;
  return { faultsByKind, faultsUnhealed: faults.filter((f) => f.healedMs === null).length };
}

function postCounts(posts: readonly PostEvent[]): Pick<CheckCounts, "posts" | "postsByStatus" | "postsUnanswered"> {
  const postsByStatus: Record<string, number> = {};
  for (const post of posts) {
    const key = post.status === null ? "none" : String(post.status);
    postsByStatus[key] = (postsByStatus[key] ?? 0) + 1;
  }
  return { posts: posts.length, postsByStatus, postsUnanswered: postsByStatus["none"] ?? 0 };
}

type StreamCounts = Pick<
  CheckCounts, "streamSubscribers" | "streamEvents" | "streamReconnects" | "streamMissedWhileDisconnected"
>;

/** Each subscriber got every committed transaction of its covered stretch once, in order. */
function checkStreams(
  events: readonly HistoryEvent[], view: LedgerView, posts: readonly PostEvent[], add: Add,
): StreamCounts {
  const firstPostAtMs = new Map<string, number>();
  for (const post of posts) {
    firstPostAtMs.set(post.txId, Math.min(post.atMs, firstPostAtMs.get(post.txId) ?? Infinity));
  }
  const bySubscriber = new Map<number, (StreamEvent | StreamConnectionEvent)[]>();
  for (const event of events) {
    if (event.type !== "stream" && event.type !== "stream-connection") continue;
    const list = bySubscriber.get(event.subscriber) ?? [];
    list.push(event);
    bySubscriber.set(event.subscriber, list);
  }
  const counts = {
    streamSubscribers: bySubscriber.size, streamEvents: 0, streamReconnects: 0, streamMissedWhileDisconnected: 0,
  };
  for (const [subscriber, received] of bySubscriber) {
    const coverage = streamCoverage(received, view, firstPostAtMs);
    counts.streamEvents += coverage.events;
    counts.streamReconnects += coverage.reconnects;
    counts.streamMissedWhileDisconnected += coverage.missedWhileDisconnected;
    streamAnomalies(subscriber, coverage, add);
  }
  return counts;
}

function streamAnomalies(subscriber: number, coverage: StreamCoverage, add: Add): void {
  const one = (kind: AnomalyKind, event: StreamEvent, what: string): void => {
    const detail = `subscriber ${subscriber} (node ${event.node}): ${event.txId} at height ${event.height} ${what}` +
      ` at ${event.atMs} ms`;
    add({ kind, subscriber, txIds: [event.txId], nodes: [event.node], height: event.height, detail });
  };
  for (const event of coverage.duplicates) one("stream-duplicate", event, "received again");
  for (const event of coverage.outOfOrder) one("stream-order", event, "received after a later transaction");
  for (const event of coverage.unknown) one("stream-unknown", event, "is committed there by no node, received");
  const missing = coverage.missing;
  if (missing.length > 0) {
    const shown = missing.slice(0, txIdsShownMax).join(", ") + (missing.length > txIdsShownMax ? ", ..." : "");
    const detail = `subscriber ${subscriber}: ${missing.length} committed transaction(s) never received while connected: ${shown}`;
    add({ kind: "stream-missing", subscriber, txIds: missing, detail });
  }
}

/** A human summary of a report, as a Jepsen analysis ends: the verdict, the figures, the anomalies. */
export function formatReport(report: CheckReport): string {
  const c = report.counts;
  const n = report.anomalies.length;
  const ds = c.doubleSpends;
  const behind = c.nodesBehind.map((b) => `node ${b.node} by ${b.top - b.height}`).join(", ");
  const heights = Object.entries(c.heights).map(([node, height]) => `node ${node} at ${height}`).join(", ");
  const lines = [
    `seed ${report.seed}: ${report.ok ? "valid" : `INVALID, ${n} anomal${n === 1 ? "y" : "ies"}`}`,
    `transactions: ${c.posts} posts (${formatStatuses(c.postsByStatus)}), ${c.committed} committed`,
    `  ${c.refusedInBlocks} in blocks but refused by every node`,
    `  ${c.acknowledgedCommits} acknowledged in mode=commit`,
    `  ${c.acceptedThenCommitted} accepted in async/sync and committed, ${c.acceptedNeverCommitted} never committed`,
    `  ${c.unavailableButCommitted} answered 503/504 and committed all the same`,
    `  ${c.postsUnanswered} posts unanswered, ${c.unansweredButCommitted} of their transactions committed`,
    `  ${c.reads} reads`,
    `double spends: ${ds.attempted} contested outputs, ${ds.oneWinner} with exactly one winner,` +
      ` ${ds.noWinner} with none, ${ds.severalWinners} with several`,
    `blocks: ${heights}${behind === "" ? "" : ` (behind: ${behind})`}`,
    `streams: ${c.streamSubscribers} subscribers, ${c.streamEvents} events, ${c.streamReconnects} reconnects,` +
      ` ${c.streamMissedWhileDisconnected} transactions missed while disconnected`,
    `faults: ${c.faultWindow5xx} answers 503/504 during faults${c.faultsUnhealed === 0 ? "" : `, ${c.faultsUnhealed} never healed`}`,
    ...formatFaults(c.faultsByKind, report.recoveryMs),
    `evidence: ${c.evidence} records committed; ${c.doubleSignFaults} double-sign faults, ` +
      `${c.doubleSignFaultsWithEvidence} of them with evidence naming their validator`,
  ];
  return [...lines, ...formatAnomalies(report.anomalies)].join("\n");
}

function formatStatuses(byStatus: Readonly<Record<string, number>>): string {
  const entries = Object.entries(byStatus).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? "none" : entries.map(([status, n]) => `${n} × ${status}`).join(", ");
}

/** One line per fault kind: how many, and the time from heal to the next commit (min, median, max). */
function formatFaults(byKind: Readonly<Record<string, number>>, recoveryMs: CheckReport["recoveryMs"]): string[] {
  return Object.keys(byKind).sort().map((kind) => {
    const times = [...(recoveryMs[kind] ?? [])].sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const recovery = times.length === 0 ? "" :
      `, recovered in ${times[0]}-${times[times.length - 1]} ms (median ${median} ms)`;
    return `  ${kind} × ${byKind[kind]}${recovery}`;
  });
}

function formatAnomalies(anomalies: readonly Anomaly[]): string[] {
  const byKind = new Map<AnomalyKind, Anomaly[]>();
  for (const anomaly of anomalies) {
    const list = byKind.get(anomaly.kind) ?? [];
    list.push(anomaly);
    byKind.set(anomaly.kind, list);
  }
  const lines: string[] = [];
  for (const [kind, list] of byKind) {
    lines.push(`${kind} (${list.length}):`);
    for (const anomaly of list.slice(0, anomaliesShownPerKindMax)) lines.push(`  ${anomaly.detail}`);
    if (list.length > anomaliesShownPerKindMax) lines.push(`  ... and ${list.length - anomaliesShownPerKindMax} more`);
  }
  return lines;
}
