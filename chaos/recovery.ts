// Time to recover from each fault, from the history: when the first transaction posted after the
// fault's heal committed. A commit is known by a 202 in commit mode (its answer's time) or by a
// stream subscriber receiving it (the first such time); a transaction in no block did not commit.
import type { FaultEvent, HistoryEvent, NodeSnapshot, PostEvent } from "./history.js";
import type { RunFault } from "./nemesis.js";

/** The fault events of a run, with `recoveredMs` from the history. */
export function faultEventsOf(faults: readonly RunFault[], events: readonly HistoryEvent[], committed: ReadonlySet<string>): FaultEvent[] {
  const commits = commitTimes(events, committed);
  return faults.map((fault) => ({
    type: "fault",
    kind: fault.kind,
    nodes: fault.nodes,
    atMs: fault.startedMs,
    healedMs: fault.healedMs,
    recoveredMs: fault.healedMs === null ? null : firstCommitAfter(commits, fault.healedMs),
    ...(fault.readyMs === undefined ? {} : { readyMs: fault.readyMs }),
    ...(fault.detail === undefined ? {} : { detail: fault.detail }),
    ...(fault.reached === undefined ? {} : { reached: fault.reached }),
  }));
}

/** Per committed transaction: when it was posted (its first post) and when it was seen committed. */
function commitTimes(events: readonly HistoryEvent[], committed: ReadonlySet<string>): { postedMs: number; committedMs: number }[] {
  const posted = new Map<string, number>();
  const seen = new Map<string, number>();
  const earliest = (map: Map<string, number>, id: string, ms: number): void => {
    if (!map.has(id) || map.get(id)! > ms) map.set(id, ms);
  };
  for (const event of events) {
    if (event.type === "post" && committed.has(event.txId)) {
      earliest(posted, event.txId, event.atMs);
      if (isCommitAnswer(event)) earliest(seen, event.txId, event.endMs);
    }
    if (event.type === "stream") earliest(seen, event.txId, event.atMs);
  }
  return [...posted].flatMap(([id, postedMs]) => (seen.has(id) ? [{ postedMs, committedMs: seen.get(id)! }] : []));
}

const isCommitAnswer = (event: PostEvent): boolean => event.mode === "commit" && event.status === 202;

function firstCommitAfter(commits: readonly { postedMs: number; committedMs: number }[], healedMs: number): number | null {
  let first: { postedMs: number; committedMs: number } | null = null;
  for (const commit of commits) if (commit.postedMs >= healedMs && (first === null || commit.postedMs < first.postedMs)) first = commit;
  return first?.committedMs ?? null;
}

/**
 * The transactions some node serves: in a block and served (CometBFT's blocks also keep what
 * ledgerd's FinalizeBlock refused, which no node serves).
 */
export function committedIds(nodes: readonly NodeSnapshot[]): Set<string> {
  return new Set(nodes.flatMap((n) => [...n.transactions].filter(([, text]) => text !== "").map(([id]) => id)));
}
