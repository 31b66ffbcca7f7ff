// The chaos run's seeded parts: the nemesis's plan is the seed's alone, the short set's seeds hold
// every fault kind, the added faults (crash points, clock skew, double signing) come from a fork of their own, the time to recover is read from the history as recovery.ts says, and a
// process that stopped itself is named by its last fatal words, and a join and election that did
// not happen is a problem.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { HistoryEvent, PostEvent } from "../../../chaos/history.js";
import {
  faultKinds, lastWordsOf, planFaults, postgresFaultKind, postgresPlanFork, addedFaultKinds, addedPlanFork,
  withPostgresKills, withAddedFaults, withDiskFaults, diskFaultKind, diskPlanFork, type RunFault,
} from "../../../chaos/nemesis.js";
import { fullNodes, nemesisLimits, shortDurationMs, shortRuns, validators } from "../../../chaos/options.js";
import { Random } from "../../../chaos/random.js";
import { faultEventsOf } from "../../../chaos/recovery.js";
import { formatSummary, summaryOf } from "../../../chaos/summary.js";
import { electionProblems } from "../../../chaos/election.js";

const size = validators + fullNodes;
const planOf = (seed: number) => planFaults(new Random(seed).fork(0), shortDurationMs, size);

describe("the nemesis's plan", () => {
  test("the same seed gives the same plan, another seed another", () => {
    assert.deepEqual(planOf(5), planOf(5));
    assert.notDeepEqual(planOf(5), planOf(6));
  });

  test("the short set's first four faults of each seed are the twelve kinds, each once", () => {
    const kinds = shortRuns.flatMap(({ seed }) => planOf(seed).slice(0, 4).map((f) => f.kind));
    assert.deepEqual([...kinds].sort(), [...faultKinds].sort());
  });

  test("with nodes on PostgreSQL, a PostgreSQL kill of them joins the seed's plan among its first four, its other faults unchanged", () => {
    const onPostgres = shortRuns.filter((r) => r.postgresNodes.length > 0);
    assert.equal(onPostgres.length, 1, "one run of the short set has nodes on PostgreSQL");
    for (let seed = 1; seed <= 50; seed++) {
      const plan = planOf(seed);
      const grown = withPostgresKills(plan, new Random(seed).fork(postgresPlanFork), [1, 4]);
      const kills = grown.flatMap((f, i) => (f.kind === postgresFaultKind ? [i] : []));
      assert.ok(kills[0]! < 4);
      assert.deepEqual(kills.slice(1).map((k, i) => k - kills[i]!), kills.slice(1).map(() => nemesisLimits.postgresKillEvery));
      assert.deepEqual(grown.filter((f) => f.kind !== postgresFaultKind).map((f) => [f.kind, f.nodes, f.durationMs]), plan.map((f) => [f.kind, f.nodes, f.durationMs]));
      assert.equal(grown[0]!.quietMs, nemesisLimits.warmupMs);
      assert.ok(grown.filter((f) => f.kind === postgresFaultKind).every((f) => f.nodes.join() === "1,4"));
    }
    assert.deepEqual(withPostgresKills(planOf(3), new Random(3).fork(postgresPlanFork), []), planOf(3));
  });

  test("added faults join the seed's plan after its first four faults and after every four more, its other faults unchanged", () => {
    const isRestart = (kind: string): boolean => (addedFaultKinds as readonly string[]).includes(kind);
    const seen = new Set<string>();
    for (let seed = 1; seed <= 50; seed++) {
      const plan = planFaults(new Random(seed).fork(0), 300_000, size);
      const grown = withAddedFaults(plan, new Random(seed).fork(addedPlanFork), size);
      assert.deepEqual(grown, withAddedFaults(plan, new Random(seed).fork(addedPlanFork), size), "the same seed, the same plan");
      const at = grown.flatMap((f, i) => (isRestart(f.kind) ? [i] : []));
      const step = nemesisLimits.addedFaultEvery + 1;
      assert.deepEqual(at, at.map((_, n) => nemesisLimits.addedFaultFirstAt + n * step));
      assert.deepEqual(grown.filter((f) => !isRestart(f.kind)), plan);
      for (const [n, fault] of grown.filter((f) => isRestart(f.kind)).entries()) {
        seen.add(fault.kind);
        assert.notEqual(fault.kind, grown[at[n - 1] ?? -1]?.kind, "the kinds take turns");
        assert.equal(fault.nodes.length, 1);
        assert.ok(fault.nodes[0]! < (fault.kind === "double-sign" ? validators : size));
        if (fault.kind === "double-sign") assert.equal(fault.detail, undefined, "its validator's address is known as it runs");
        else if (fault.kind === "crash-point") {
          const [point = "", count = ""] = fault.detail!.split("=");
          assert.ok((nemesisLimits.crashPoints as readonly string[]).includes(point), point);
          assert.ok(Number(count) >= 1 && Number(count) <= nemesisLimits.crashPointCountMax, count);
        } else {
          const match = /^([+-])([0-9]+)s$/.exec(fault.detail!);
          assert.ok(match !== null, fault.detail);
          const max = match[1] === "+" ? nemesisLimits.clockAheadMsMax : nemesisLimits.clockBehindMsMax;
          assert.ok(Number(match[2]) * 1_000 >= nemesisLimits.clockSkewMsMin && Number(match[2]) * 1_000 <= max, fault.detail);
        }
      }
    }
    assert.deepEqual([...seen].sort(), [...addedFaultKinds].sort());
  });

  test("a minute's plan keeps its first four faults: the short set's kinds are unchanged by the added faults", () => {
    for (const { seed } of shortRuns) {
      const grown = withAddedFaults(planOf(seed), new Random(seed).fork(addedPlanFork), size);
      assert.deepEqual(grown.slice(0, 4), planOf(seed).slice(0, 4));
    }
  });

  test("torn logs join at fixed places from a fork of their own, the ledger's only on nodes on SQLite, the other faults unchanged", () => {
    const postgresNodes = [1, 4];
    const files = new Set<string>();
    for (let seed = 1; seed <= 50; seed++) {
      const plan = planFaults(new Random(seed).fork(0), 600_000, size);
      const grown = withDiskFaults(plan, new Random(seed).fork(diskPlanFork), size, postgresNodes);
      assert.deepEqual(grown, withDiskFaults(plan, new Random(seed).fork(diskPlanFork), size, postgresNodes), "the same seed, the same plan");
      const at = grown.flatMap((f, i) => (f.kind === diskFaultKind ? [i] : []));
      assert.ok(at.length > 0);
      assert.deepEqual(at, at.map((_, n) => nemesisLimits.diskFaultFirstAt + n * (nemesisLimits.diskFaultEvery + 1)));
      assert.deepEqual(grown.filter((f) => f.kind !== diskFaultKind), plan);
      for (const fault of grown.filter((f) => f.kind === diskFaultKind)) {
        const match = /^(ledger-wal|cometbft-wal) ([0-9]+)$/.exec(fault.detail ?? "");
        assert.ok(match !== null, fault.detail);
        files.add(match[1]!);
        const node = fault.nodes[0]!;
        assert.ok(node < size);
        const max = match[1] === "ledger-wal" ? nemesisLimits.ledgerWalCutMax : nemesisLimits.cometBftWalCutMax;
        assert.ok(Number(match[2]) >= 1 && Number(match[2]) <= max, fault.detail);
        if (match[1] === "ledger-wal") assert.ok(!postgresNodes.includes(node), `node ${node} is on PostgreSQL`);
      }
    }
    assert.deepEqual([...files].sort(), ["cometbft-wal", "ledger-wal"]);
  });

  test("a minute starts no torn log: the short set runs as it did", () => {
    for (const { seed, postgresNodes } of shortRuns) {
      const added = withAddedFaults(planOf(seed), new Random(seed).fork(addedPlanFork), size);
      const plan = withPostgresKills(added, new Random(seed).fork(postgresPlanFork), postgresNodes);
      const grown = withDiskFaults(plan, new Random(seed).fork(diskPlanFork), size, postgresNodes);
      // The planned start, were every heal instant: a lower bound of when it would begin.
      let atMs = 0;
      for (const fault of grown) {
        atMs += fault.quietMs;
        if (fault.kind === diskFaultKind) assert.ok(atMs > shortDurationMs, `seed ${seed}: a torn log planned at ${atMs} ms`);
        atMs += fault.durationMs;
      }
      assert.deepEqual(grown.filter((f) => f.kind !== diskFaultKind), plan);
    }
  });

  test("faults on two nodes strike two different validators; a split keeps two validators a side", () => {
    for (let seed = 1; seed <= 50; seed++) {
      for (const fault of planOf(seed)) {
        if (fault.kind === "pause-two" || fault.kind === "partition-oneway") {
          assert.equal(fault.nodes.length, 2);
          assert.notEqual(fault.nodes[0], fault.nodes[1]);
          assert.ok(fault.nodes.every((n) => n < validators));
        }
        if (fault.kind === "partition-split") assert.equal(fault.nodes.filter((n) => n < validators).length, 2);
      }
    }
  });
});

describe("time to recover", () => {
  const post = (txId: string, atMs: number, endMs: number, mode: PostEvent["mode"], status: number | null): PostEvent =>
    ({ type: "post", client: 0, node: 0, mode, txId, body: "{}", spends: [], atMs, endMs, status });
  const fault: RunFault = { kind: "pause-both", nodes: [1], quietMs: 0, durationMs: 1_000, startedMs: 1_000, healedMs: 2_000 };

  test("is when the first transaction posted after the heal committed: its 202 in commit mode, or its first streaming", () => {
    const events: HistoryEvent[] = [
      post("before", 1_500, 2_600, "commit", 202),
      post("lost", 2_050, 2_060, "async", 202),
      post("first", 2_100, 2_110, "async", 202),
      post("second", 2_200, 2_300, "commit", 202),
      { type: "stream", subscriber: 0, node: 0, txId: "first", height: 9, atMs: 2_900 },
      { type: "stream", subscriber: 1, node: 2, txId: "first", height: 9, atMs: 2_800 },
    ];
    const [event] = faultEventsOf([fault], events, new Set(["before", "first", "second"]));
    assert.equal(event?.recoveredMs, 2_800);
  });

  test("is null when nothing posted after the heal committed, or the fault was never healed", () => {
    assert.equal(faultEventsOf([fault], [post("x", 2_100, 2_200, "commit", 504)], new Set())[0]?.recoveredMs, null);
    assert.equal(faultEventsOf([{ ...fault, healedMs: null }], [], new Set())[0]?.recoveredMs, null);
  });
});

describe("a process's last words", () => {
  test("are ledgerd's last fatal message and its error's, however long the error's other fields", () => {
    const dir = mkdtempSync(join(tmpdir(), "chaos-words-"));
    const log = join(dir, "ledgerd.log");
    const fatal = { level: 60, msg: "the engine stopped after an internal error; the node stops", err: { actual: { cacheKeys: ["x".repeat(2_000)] }, message: "finalizeBlock twice without commit" } };
    writeFileSync(log, `${JSON.stringify({ level: 30, msg: "started" })}\n${JSON.stringify(fatal)}\n${JSON.stringify({ level: 30, msg: "after" })}\n`);
    try {
      const words = lastWordsOf(log, "ledgerd");
      assert.equal(words, "the engine stopped after an internal error; the node stops: finalizeBlock twice without commit");
      const incident = { node: 1, process: "ledgerd" as const, atMs: 0, lastWords: words };
      assert.match(summaryOf({ seed: 1, events: [], nodes: [] }, [incident], []).incidents[0]?.known ?? "", /known \(issue 38\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the join and election's outcome", () => {
  const outcome = {
    node: 5, joinedMs: 17_000, caughtUpMs: 21_000, electionId: "e", status: "concluded",
    concludedAt: 69, concludedMs: 29_000, inValidatorSet: true, errors: [],
  };

  test("is a problem when the node did not catch up, the election did not conclude, or CometBFT's set lacks the node", () => {
    assert.deepEqual(electionProblems(null), []);
    assert.deepEqual(electionProblems(outcome), []);
    assert.match(electionProblems({ ...outcome, caughtUpMs: null }).join(), /did not catch up/);
    assert.match(electionProblems({ ...outcome, status: "ongoing", concludedAt: null, concludedMs: null }).join(), /did not conclude/);
    assert.match(electionProblems({ ...outcome, inValidatorSet: false }).join(), /validator set does not hold it/);
  });

  test("is in the summary: the height it concluded at", () => {
    const text = formatSummary(summaryOf({ seed: 1, events: [], nodes: [], election: outcome }, [], []));
    assert.match(text, /node 5 joined at 17000 ms, caught up 4000 ms later; its election concluded at height 69 \(12000 ms after the join\), in CometBFT's validator set/);
  });
});
