// The nemesis of a chaos run: a plan of faults drawn from the seed (one at a time, each held a
// few seconds, then healed, then a quiet gap), and its execution on the cluster: pauses
// (SIGSTOP, healed by SIGCONT), kills (SIGKILL, healed by restarting the node as `ledgerd
// testnet start --node I` does), and partitions and bad links through Toxiproxy (healed by a
// reset), and for nodes on PostgreSQL its server killed (`pg_ctl stop -m immediate`) just after
// such a node saw a new height, healed by starting it again; and restarts of a node with a
// crash point armed (LEDGERD_TEST_FAILPOINTS: its ledgerd kills itself there under the workload)
// or its clock moved (a CometBFT build whose clock runs off, its ledgerd under libfaketime),
// healed by restarting it as it was; and a twin of a validator (its key on a node held aside),
// healed by stopping the twin; and a node killed with the tail of a log torn, healed by a restart.
// A watchdog restarts a process that died when no fault of ours killed it, and keeps it
// as an incident: a node that stops itself is a finding.
import { existsSync, readFileSync, statSync, truncateSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { NodeLaunch, TestnetProcess } from "../src/testnet/processes.js";
import { skewedLaunch, type ClockTools } from "../test/helpers/clockSkew.js";
import type { ChaosCluster, ProcessesRun } from "./cluster.js";
import { httpRequest, latestHeight } from "./http.js";
import { nemesisLimits as limits, recoveryLimits, validators, workloadLimits } from "./options.js";
import type { Random } from "./random.js";
import type { Recorder } from "./recorder.js";

export const faultKinds = [
  "pause-cometbft",
  "pause-ledgerd",
  "pause-both",
  "pause-two",
  "kill-ledgerd",
  "kill-cometbft",
  "kill-both",
  "partition-isolate",
  "partition-split",
  "partition-oneway",
  "link-slow",
  "link-lossy",
] as const;
/** Only in a run with nodes on PostgreSQL: the server killed mid-block, then started again. */
export const postgresFaultKind = "kill-postgres";
/**
 * Faults drawn by withAddedFaults: a node restarted with a crash point armed, or with its clock
 * moved; a twin of a validator (its key on another node) run beside it.
 */
export const addedFaultKinds = ["crash-point", "clock-skew", "double-sign"] as const;
export type AddedFaultKind = (typeof addedFaultKinds)[number];
/**
 * Drawn by withDiskFaults: a node's processes SIGKILLed and the tail of a log it writes torn,
 * as a power cut tears the last append: CometBFT's consensus log cut inside its last record, or
 * (a node on SQLite) the ledger's write-ahead log cut inside its last frame, which loses the
 * last block's frames; healed by a restart, where CometBFT's handshake gives the ledger back
 * the blocks it lost.
 */
export const diskFaultKind = "disk-torn";
export type FaultKind = (typeof faultKinds)[number] | typeof postgresFaultKind | AddedFaultKind | typeof diskFaultKind;

export interface PlannedFault {
  readonly kind: FaultKind;
  /** The nodes it strikes; a split's first side; a one-way cut's sender, then its receiver. */
  readonly nodes: readonly number[];
  /** The quiet before it: after the warm-up, or after the previous fault's heal. */
  readonly quietMs: number;
  /** How long it is held before its heal begins. */
  readonly durationMs: number;
  /**
   * A crash point's `name=count` (LEDGERD_TEST_FAILPOINTS); a clock skew's offset ("+90s",
   * "-30s"); as run, a double signing's validator address (the key the twin shares); a torn
   * log's file and the bytes cut ("cometbft-wal 9", "ledger-wal 3000"), as run with the log's size.
   */
  readonly detail?: string;
}

/**
 * The faults of a run of `durationMs` on `size` nodes, from the seed's generator alone: every
 * kind once in a shuffled order, then again, so that a short run still sees several kinds. They
 * fill the run if every heal were instant; a restart takes seconds, so the run ends first and
 * its last planned faults do not happen.
 */
export function planFaults(rng: Random, durationMs: number, size: number): PlannedFault[] {
  const order = shuffled(faultKinds, rng);
  const plan: PlannedFault[] = [];
  let quietMs: number = limits.warmupMs;
  for (let atMs = 0; atMs + quietMs + limits.faultMsMin <= durationMs; quietMs = rng.between(limits.gapMsMin, limits.gapMsMax)) {
    const kind = order[plan.length % order.length]!;
    const held = rng.between(limits.faultMsMin, limits.faultMsMax);
    plan.push({ kind, nodes: nodesFor(kind, rng, size), quietMs, durationMs: held });
    atMs += quietMs + held;
  }
  return plan;
}

/** The seed's fork that draws its PostgreSQL kills (apart from the clients' and the other faults'). */
export const postgresPlanFork = 1_000;

/**
 * The plan with a PostgreSQL kill of `nodes` every `postgresKillEvery` faults, the first at a
 * place among the first four drawn from `rng` (its own generator, so that the other faults are
 * the seed's plan without PostgreSQL, in the same order and with the same timings).
 */
export function withPostgresKills(
  plan: readonly PlannedFault[], rng: Random, nodes: readonly number[],
): PlannedFault[] {
  if (nodes.length === 0) return [...plan];
  const out = [...plan];
  for (let at = rng.int(4); at <= out.length; at += limits.postgresKillEvery) {
    const quietMs = at === 0 ? limits.warmupMs : rng.between(limits.gapMsMin, limits.gapMsMax);
    const durationMs = rng.between(limits.faultMsMin, limits.faultMsMax);
    // The first fault's warm-up stays the run's first quiet.
    if (at === 0 && out[0] !== undefined) out[0] = { ...out[0], quietMs: rng.between(limits.gapMsMin, limits.gapMsMax) };
    out.splice(at, 0, { kind: postgresFaultKind, nodes: [...nodes], quietMs, durationMs });
  }
  return out;
}

/** The seed's fork that draws its added faults (apart from the clients' and the other faults'). */
export const addedPlanFork = 2_000;

/**
 * The plan with an added fault after its first `addedFaultFirstAt` faults and then after
 * every `addedFaultEvery`, the kinds in turn in an order drawn from `rng` (its own generator,
 * so that the other faults are the seed's plan without them, in the same order and timings).
 */
export function withAddedFaults(plan: readonly PlannedFault[], rng: Random, size: number): PlannedFault[] {
  const order = shuffled(addedFaultKinds, rng);
  const out = [...plan];
  for (let at = limits.addedFaultFirstAt, n = 0; at <= out.length; at += limits.addedFaultEvery + 1, n++) {
    const kind = order[n % order.length]!;
    const nodes = [rng.int(kind === "double-sign" ? validators : size)];
    const detail = detailOf(kind, rng);
    const quietMs = rng.between(limits.gapMsMin, limits.gapMsMax);
    const durationMs = rng.between(limits.faultMsMin, limits.faultMsMax);
    out.splice(at, 0, { kind, nodes, quietMs, durationMs, ...(detail === null ? {} : { detail }) });
  }
  return out;
}

/** The seed's fork that draws its disk faults (apart from every other fault). */
export const diskPlanFork = 3_000;

/**
 * The plan with a torn log after its first `diskFaultFirstAt` faults and then after every
 * `diskFaultEvery`, drawn from `rng` alone (the other faults keep their order and timings). The
 * ledger's log is torn only on a node on SQLite (PostgreSQL's is its server's, killed apart).
 */
export function withDiskFaults(
  plan: readonly PlannedFault[], rng: Random, size: number, postgresNodes: readonly number[],
): PlannedFault[] {
  const out = [...plan];
  for (let at = limits.diskFaultFirstAt; at <= out.length; at += limits.diskFaultEvery + 1) {
    const node = rng.int(size);
    const ledger = !postgresNodes.includes(node) && rng.chance(0.5);
    const detail = ledger ? `ledger-wal ${rng.between(1, limits.ledgerWalCutMax)}` : `cometbft-wal ${rng.between(1, limits.cometBftWalCutMax)}`;
    const quietMs = rng.between(limits.gapMsMin, limits.gapMsMax);
    const durationMs = rng.between(limits.faultMsMin, limits.faultMsMax);
    out.splice(at, 0, { kind: diskFaultKind, nodes: [node], quietMs, durationMs, detail });
  }
  return out;
}

/** A crash point or a clock offset; a double signing's validator address is known as it runs. */
function detailOf(kind: AddedFaultKind, rng: Random): string | null {
  if (kind === "crash-point") return crashPointOf(rng);
  return kind === "clock-skew" ? clockOffsetOf(rng) : null;
}

/** `name=count`: the point, and how many times it is passed before it strikes. */
function crashPointOf(rng: Random): string {
  return `${rng.pick(limits.crashPoints)}=${rng.between(1, limits.crashPointCountMax)}`;
}

/** Whole seconds ahead ("+90s") or behind ("-30s"). */
function clockOffsetOf(rng: Random): string {
  const ahead = rng.chance(0.5);
  const maxMs = ahead ? limits.clockAheadMsMax : limits.clockBehindMsMax;
  const seconds = rng.between(limits.clockSkewMsMin / 1_000, maxMs / 1_000);
  return `${ahead ? "+" : "-"}${seconds}s`;
}

function shuffled<T>(items: readonly T[], rng: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function nodesFor(kind: FaultKind, rng: Random, size: number): number[] {
  const validatorIndexes = Array.from({ length: validators }, (_, i) => i);
  const two = (): number[] => {
    const first = rng.pick(validatorIndexes);
    return [first, rng.pick(validatorIndexes.filter((i) => i !== first))];
  };
  if (kind === "pause-two" || kind === "partition-oneway") return two();
  if (kind === "partition-split") {
    // Two validators on one side, two on the other; the full nodes go with the first or not.
    const side = two();
    return rng.chance(0.5) ? [...side, ...Array.from({ length: size - validators }, (_, i) => validators + i)] : side;
  }
  return [rng.int(size)];
}

/** A fault as it ran: when it began and was healed (null if the run ended first). */
export interface RunFault extends PlannedFault {
  readonly startedMs: number;
  readonly healedMs: number | null;
  /** A PostgreSQL kill's: when every node on the server answered `/readyz` 200 again (null: not in time). */
  readonly readyMs?: number | null;
  /** A crash point's: whether the ledgerd died there before the heal (false: not reached). */
  readonly reached?: boolean;
}

/** A process that died though no fault killed it. */
export interface Incident {
  readonly node: number;
  readonly process: TestnetProcess;
  readonly atMs: number;
  /** Its log's last fatal line (level 60 for ledgerd, a panic for CometBFT), if any. */
  readonly lastWords: string;
}

export class Nemesis {
  readonly ran: RunFault[] = [];
  readonly incidents: Incident[] = [];
  /** A fault the nemesis could not inject or heal: the run's own failure, reported as such. */
  readonly errors: string[] = [];
  /** Nodes a kill of ours has down; the watchdog leaves them to the heal. */
  private readonly killed = new Set<number>();
  /** Where the struck node's ledgerd log stood when a crash point was armed. */
  private crashLogFrom = 0;
  /** What the last torn log's cut did, for the fault's record. */
  private torn = "";

  constructor(
    private readonly cluster: ChaosCluster,
    private readonly recorder: Recorder,
    /** What moves a node's clock; null when the plan has no clock skew. */
    private readonly clock: ClockTools | null = null,
  ) {}

  /** Runs the plan until it ends or `signal` aborts; the fault under way is healed either way. */
  async run(plan: readonly PlannedFault[], signal: AbortSignal): Promise<void> {
    for (const fault of plan) {
      await sleep(fault.quietMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      const startedMs = this.recorder.now();
      await this.inject(fault).catch((error: Error) => this.errors.push(`${fault.kind} [${fault.nodes}]: ${error.message}`));
      await sleep(fault.durationMs, undefined, { signal }).catch(() => undefined);
      const outcome: { reached?: boolean; readyMs?: number | null; detail?: string } = {};
      if (fault.kind === "crash-point") outcome.reached = this.diedAtPoint(fault);
      const [struck = 0] = fault.nodes;
      if (fault.kind === "double-sign") outcome.detail = this.cluster.validatorAddress(struck);
      if (fault.kind === diskFaultKind) outcome.detail = `${fault.detail ?? ""}: ${this.torn}`;
      await this.heal(fault).catch((error: Error) => this.errors.push(`heal of ${fault.kind} [${fault.nodes}]: ${error.message}`));
      const healedMs = this.recorder.now();
      if (fault.kind === postgresFaultKind) outcome.readyMs = await this.ready(fault.nodes);
      this.ran.push({ ...fault, startedMs, healedMs, ...outcome });
    }
  }

  /** When every one of `nodes` answers `/readyz` 200, or null if one does not within the limit. */
  private async ready(nodes: readonly number[]): Promise<number | null> {
    const deadline = Date.now() + recoveryLimits.postgresReadyMsMax;
    const isReady = async (node: number): Promise<boolean> => {
      const url = `http://${this.cluster.node(node).http}/readyz`;
      return (await httpRequest(url, "GET", null, workloadLimits.requestMsMax)).status === 200;
    };
    for (const node of nodes) {
      while (!(await isReady(node))) {
        if (Date.now() > deadline) {
          const limit = recoveryLimits.postgresReadyMsMax;
          this.errors.push(`node ${node} was not ready within ${limit} ms of its PostgreSQL's restart`);
          return null;
        }
        await sleep(workloadLimits.pollMs);
      }
    }
    return this.recorder.now();
  }

  /** Kills the PostgreSQL server just after the first of `nodes` saw a new height (or a wait without one). */
  private async killPostgres(nodes: readonly number[]): Promise<void> {
    const postgres = this.cluster.postgres;
    if (postgres === null) throw new Error("no node runs on PostgreSQL");
    const rpc = this.cluster.node(nodes[0] ?? 0).rpc;
    const heightOf = (): Promise<number | null> => latestHeight(rpc, limits.postgresKillWaitMsMax);
    const first = await heightOf();
    const deadline = Date.now() + limits.postgresKillWaitMsMax;
    while (Date.now() < deadline && (await heightOf()) === first) await sleep(limits.postgresKillPollMs);
    await postgres.haltAsync();
  }

  /** Every second until `signal` aborts: a process down that no fault of ours took down. */
  async watch(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(1_000, undefined, { signal }).catch(() => undefined);
      if (!signal.aborted) await this.restartTheDead();
    }
  }

  async restartTheDead(): Promise<void> {
    for (let node = 0; node < this.cluster.size; node++) {
      if (this.killed.has(node)) continue;
      const dead = (["ledgerd", "cometbft"] as const).filter((which) => this.cluster.pid(node, which) === null);
      if (dead.length === 0) continue;
      // CometBFT ends itself when its ledgerd is gone: the ledgerd is the incident.
      const which = dead.includes("ledgerd") ? "ledgerd" : "cometbft";
      const lastWords = lastWordsOf(this.cluster.logPath(node, which), which);
      this.incidents.push({ node, process: which, atMs: this.recorder.now(), lastWords });
      await this.restart(node);
    }
  }

  private async inject(fault: PlannedFault): Promise<void> {
    const [a = 0, b = 0] = fault.nodes;
    const links = this.cluster.links;
    switch (fault.kind) {
      case "pause-cometbft": return this.signalAll(fault.nodes, ["cometbft"], "SIGSTOP");
      case "pause-ledgerd": return this.signalAll(fault.nodes, ["ledgerd"], "SIGSTOP");
      case "pause-both":
      case "pause-two": return this.signalAll(fault.nodes, ["ledgerd", "cometbft"], "SIGSTOP");
      case "kill-ledgerd": return this.kill(a, ["ledgerd"]);
      case "kill-cometbft": return this.kill(a, ["cometbft"]);
      case "kill-both": return this.kill(a, ["cometbft", "ledgerd"]);
      case "partition-isolate": return links.cut([a], this.others([a]));
      case "partition-split": return links.cut(fault.nodes, this.others(fault.nodes));
      case "partition-oneway": return links.cutOneWay(a, b);
      case "link-slow": return links.slow(a);
      case "link-lossy": return links.lossy(a);
      case postgresFaultKind: return this.killPostgres(fault.nodes);
      case "crash-point": return this.armCrashPoint(a, fault.detail ?? "");
      case "clock-skew": return this.restartWith(a, { launch: () => this.skewed(fault.detail ?? "") });
      case "double-sign": return this.cluster.startTwin(a);
      case diskFaultKind: return this.tearLog(a, fault.detail ?? "");
    }
  }

  /** SIGKILLs both of the node's processes, then cuts `detail`'s bytes off the end of its log. */
  private async tearLog(node: number, detail: string): Promise<void> {
    this.kill(node, ["cometbft", "ledgerd"]);
    const gone = Date.now() + limits.diskFaultKillMsMax;
    while (this.cluster.pid(node, "ledgerd") !== null || this.cluster.pid(node, "cometbft") !== null) {
      if (Date.now() > gone) throw new Error(`node ${node}'s processes still ran ${limits.diskFaultKillMsMax} ms after SIGKILL`);
      await sleep(workloadLimits.pollMs);
    }
    const [file = "", bytes = "0"] = detail.split(" ");
    const path = file === "ledger-wal" ? this.cluster.ledgerWalPath(node) : this.cluster.cometBftWalPath(node);
    this.torn = tearTail(path, Number(bytes));
  }

  /**
   * Restarts the node with the point armed; its ledgerd dies there under the workload (during
   * the start too, when CometBFT's handshake replays a block: then the start fails, as it should).
   */
  private async armCrashPoint(node: number, point: string): Promise<void> {
    this.crashLogFrom = logLength(this.cluster.logPath(node, "ledgerd"));
    await this.restartWith(node, { failpoints: point }).catch(() => undefined);
  }

  /** Whether the struck ledgerd is down, its log's last words since it was armed the point's. */
  private diedAtPoint(fault: PlannedFault): boolean {
    const node = fault.nodes[0] ?? 0;
    if (this.cluster.pid(node, "ledgerd") !== null) return false;
    const log = readFileSync(this.cluster.logPath(node, "ledgerd"), "utf8");
    const text = log.slice(this.crashLogFrom);
    return text.includes(`failpoint ${(fault.detail ?? "").split("=")[0]}: SIGKILL`);
  }

  /** Both of a node's clocks moved by `offset` ("+90s", libfaketime's form; Go's has no plus). */
  private skewed(offset: string): NodeLaunch {
    if (this.clock === null) throw new Error("no clock-offset CometBFT was built for this run");
    return skewedLaunch(this.clock, offset.replace(/^\+/, ""), offset);
  }

  /** The node stopped (not counted by the watchdog until its heal) and started as `how` says. */
  private async restartWith(node: number, how: ProcessesRun): Promise<void> {
    this.killed.add(node);
    await this.cluster.stop([node]);
    await this.cluster.start([node], how);
  }

  private async heal(fault: PlannedFault): Promise<void> {
    if (fault.kind === postgresFaultKind) return this.cluster.postgres?.resumeAsync();
    if (fault.kind === "double-sign") return this.cluster.stopTwin();
    if (fault.kind.startsWith("pause-")) return this.signalAll(fault.nodes, ["ledgerd", "cometbft"], "SIGCONT");
    if (fault.kind === "crash-point" || fault.kind === "clock-skew") {
      await this.cluster.stop(fault.nodes);
      await this.restart(fault.nodes[0] ?? 0);
      this.killed.delete(fault.nodes[0] ?? 0);
      return;
    }
    if (fault.kind.startsWith("kill-") || fault.kind === diskFaultKind) {
      for (const node of fault.nodes) {
        await this.restart(node);
        this.killed.delete(node);
      }
      return;
    }
    await this.cluster.links.heal();
  }

  private signalAll(nodes: readonly number[], which: readonly TestnetProcess[], name: NodeJS.Signals): void {
    for (const node of nodes) for (const process of which) this.cluster.signal(node, process, name);
  }

  private kill(node: number, which: readonly TestnetProcess[]): void {
    this.killed.add(node);
    this.signalAll([node], which, "SIGKILL");
  }

  /** Starts what of the node is not running; a failure to start is left to the watchdog. */
  private async restart(node: number): Promise<void> {
    await this.cluster.start([node]).catch(() => undefined);
  }

  private others(nodes: readonly number[]): number[] {
    return Array.from({ length: this.cluster.size }, (_, i) => i).filter((i) => !nodes.includes(i));
  }
}

/**
 * The last fatal line of a process's log: pino's level 60 (its message and its error's, since
 * the error's other fields, an assertion's whole `actual`, can be long), or a Go panic.
 */
export function lastWordsOf(path: string, which: TestnetProcess): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return "";
  }
  const lines = text.split("\n");
  const isFatal = which === "ledgerd" ? (l: string) => l.includes('"level":60') : (l: string) => /panic|CONSENSUS FAILURE|E\[/.test(l);
  const fatal = lines.filter(isFatal);
  const line = fatal.at(-1) ?? lines.filter((l) => l.trim() !== "").at(-1) ?? "";
  return (which === "ledgerd" ? pinoWords(line) : line).slice(0, wordsMax);
}

const wordsMax = 500;

/**
 * Cuts `bytes` off the end of the file if it holds more than `bytes` (a cut inside its last
 * record or frame, never into its header): a log that is missing or holds less, a new
 * CometBFT's or one a checkpoint has just emptied, has no tail to tear.
 */
function tearTail(path: string, bytes: number): string {
  if (!existsSync(path)) return "no log to tear";
  const size = statSync(path).size;
  if (size <= bytes + limits.walHeaderBytesMax) return `a log of ${size} bytes left whole`;
  truncateSync(path, size - bytes);
  return `${size} bytes cut to ${size - bytes}`;
}

function logLength(path: string): number {
  try {
    return readFileSync(path, "utf8").length;
  } catch {
    return 0;
  }
}


function pinoWords(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; err?: { message?: unknown } };
    return `${String(entry.msg ?? "")}${entry.err?.message === undefined ? "" : `: ${String(entry.err.message)}`}`;
  } catch {
    return line;
  }
}
