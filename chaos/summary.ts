// A run's figures beside the checker's verdict: transactions by mode and answer, double-spend
// attempts, faults and the time to recover from each kind, and the runner's own findings (a
// process that stopped itself, a node that did not recover), each known one named.
import type { ElectionOutcome, FaultEvent, HistoryEvent, PostEvent, RunRecord } from "./history.js";
import type { Incident } from "./nemesis.js";
import { committedIds } from "./recovery.js";

/** Findings already reported in issue 38, by a text their logs or answers carry. */
const knownIncidents: readonly { readonly text: string; readonly name: string }[] = [
  {
    text: "finalizeBlock twice without commit",
    name: "known (issue 38): CometBFT died between FinalizeBlock and Commit; ledgerd stopped at the replay",
  },
];

export interface RunSummary {
  readonly seed: number;
  readonly posts: number;
  /** `mode status` (status "none" when no answer came) and how many. */
  readonly answers: Readonly<Record<string, number>>;
  readonly acknowledgedCommits: number;
  readonly committed: number;
  readonly doubleSpendAttempts: number;
  readonly reads: number;
  readonly streamed: number;
  readonly streamReconnects: number;
  readonly faults: readonly FaultFigures[];
  readonly incidents: readonly (Incident & { readonly known: string | null })[];
  /** The node that joined and its election, if the run had one. */
  readonly election: ElectionOutcome | null;
  readonly problems: readonly string[];
}

export interface FaultFigures {
  readonly kind: string;
  readonly nodes: readonly number[];
  readonly heldMs: number | null;
  readonly recoveryMs: number | null;
  /** A PostgreSQL kill's: from the server's restart to every node on it ready (null: not in time). */
  readonly readyAfterMs?: number | null;
  /** A crash point's `name=count`, a clock skew's offset. */
  readonly detail?: string;
  /** A crash point's: whether the ledgerd died there before the heal. */
  readonly reached?: boolean;
}

export function summaryOf(record: RunRecord, incidents: readonly Incident[], problems: readonly string[]): RunSummary {
  const posts = record.events.filter((e): e is PostEvent => e.type === "post");
  const committed = committedIds(record.nodes);
  return {
    seed: record.seed,
    posts: posts.length,
    answers: countBy(posts.map((p) => `${p.mode} ${p.status ?? "none"}`)),
    acknowledgedCommits: posts.filter((p) => p.mode === "commit" && p.status === 202).length,
    committed: new Set(posts.map((p) => p.txId).filter((id) => committed.has(id))).size,
    doubleSpendAttempts: doubleSpendAttempts(posts),
    reads: count(record.events, "read"),
    streamed: count(record.events, "stream"),
    streamReconnects: record.events.filter((e) => e.type === "stream-connection" && e.state === "opened").length,
    faults: record.events.filter((e): e is FaultEvent => e.type === "fault").map((f) => ({
      kind: f.kind,
      nodes: f.nodes,
      heldMs: f.healedMs === null ? null : f.healedMs - f.atMs,
      recoveryMs: f.healedMs === null || f.recoveredMs === null ? null : f.recoveredMs - f.healedMs,
      ...(f.readyMs === undefined ? {} : { readyAfterMs: durationBetween(f.healedMs, f.readyMs) }),
      ...(f.detail === undefined ? {} : { detail: f.detail }),
      ...(f.reached === undefined ? {} : { reached: f.reached }),
    })),
    incidents: incidents.map((i) => ({ ...i, known: knownIncidents.find((k) => i.lastWords.includes(k.text))?.name ?? null })),
    election: record.election ?? null,
    problems,
  };
}

/** Outputs two different transactions were posted to spend. */
function doubleSpendAttempts(posts: readonly PostEvent[]): number {
  const spenders = new Map<string, Set<string>>();
  for (const post of posts) for (const ref of post.spends) spenders.set(ref, (spenders.get(ref) ?? new Set()).add(post.txId));
  return [...spenders.values()].filter((ids) => ids.size > 1).length;
}

const count = (events: readonly HistoryEvent[], type: HistoryEvent["type"]): number => events.filter((e) => e.type === type).length;

function countBy(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of [...keys].sort()) out[key] = (out[key] ?? 0) + 1;
  return out;
}

const durationBetween = (from: number | null, to: number | null): number | null =>
  from === null || to === null ? null : to - from;

function electionLines(e: ElectionOutcome | null): string[] {
  if (e === null) return [];
  const caughtUp = e.caughtUpMs === null ? "did not catch up" : `caught up ${e.caughtUpMs - e.joinedMs} ms later`;
  const after = durationBetween(e.joinedMs, e.concludedMs);
  const concluded = e.concludedAt === null ? e.status : `concluded at height ${e.concludedAt} (${after} ms after the join)`;
  const set = e.inValidatorSet ? "in CometBFT's validator set" : "not in CometBFT's validator set";
  return [
    `join and election: node ${e.node} joined at ${e.joinedMs} ms, ${caughtUp}; ` +
      `its election ${concluded}, ${set}; ${e.errors.length} commands sent again`,
  ];
}

const readyText = (f: FaultFigures): string =>
  f.readyAfterMs === undefined ? "" : `, its nodes ready ${f.readyAfterMs ?? "never"}`;
const detailText = (f: FaultFigures): string => (f.detail === undefined ? "" : ` ${f.detail}`);
const reachedText = (f: FaultFigures): string =>
  f.reached === undefined ? "" : f.reached ? ", died at the point" : ", the point not reached";

export function formatSummary(summary: RunSummary): string {
  const lines = [
    `seed ${summary.seed}: ${summary.posts} posts, ${summary.acknowledgedCommits} acknowledged commits, ${summary.committed} committed, ` +
      `${summary.doubleSpendAttempts} double-spend attempts, ${summary.reads} reads, ` +
      `${summary.streamed} streamed (${summary.streamReconnects} sockets opened)`,
    `answers: ${Object.entries(summary.answers).map(([k, v]) => `${k}: ${v}`).join(", ")}`,
    "faults (held ms, recovery ms after the heal):",
    ...summary.faults.map(
      (f) => `  ${f.kind}${detailText(f)} [${f.nodes.join(",")}] held ${f.heldMs ?? "-"}, ` +
        `recovered ${f.recoveryMs ?? "never"}${readyText(f)}${reachedText(f)}`,
    ),
    ...electionLines(summary.election),
    ...summary.incidents.map(
      (i) => `INCIDENT: node ${i.node}'s ${i.process} stopped by itself at ${i.atMs} ms${i.known === null ? "" : ` — ${i.known}`}\n  ${i.lastWords}`,
    ),
    ...summary.problems.map((p) => `PROBLEM: ${p}`),
  ];
  return lines.join("\n");
}
