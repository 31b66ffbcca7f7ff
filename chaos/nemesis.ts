// The nemesis of a chaos run: a plan of faults drawn from the seed (one at a time, each held a
// few seconds, then healed, then a quiet gap), and its execution on the cluster: pauses
// (SIGSTOP, healed by SIGCONT), kills (SIGKILL, healed by restarting the node as `ledgerd
// testnet start --node I` does), and partitions and bad links through Toxiproxy (healed by a
// reset). A watchdog restarts a process that died when no fault of ours killed it, and keeps it
// as an incident: a node that stops itself is a finding.
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { TestnetProcess } from "../src/testnet/processes.js";
import type { ChaosCluster } from "./cluster.js";
import { nemesisLimits as limits, validators } from "./options.js";
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
export type FaultKind = (typeof faultKinds)[number];

export interface PlannedFault {
  readonly kind: FaultKind;
  /** The nodes it strikes; a split's first side; a one-way cut's sender, then its receiver. */
  readonly nodes: readonly number[];
  /** The quiet before it: after the warm-up, or after the previous fault's heal. */
  readonly quietMs: number;
  /** How long it is held before its heal begins. */
  readonly durationMs: number;
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

  constructor(
    private readonly cluster: ChaosCluster,
    private readonly recorder: Recorder,
  ) {}

  /** Runs the plan until it ends or `signal` aborts; the fault under way is healed either way. */
  async run(plan: readonly PlannedFault[], signal: AbortSignal): Promise<void> {
    for (const fault of plan) {
      await sleep(fault.quietMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      const startedMs = this.recorder.now();
      await this.inject(fault).catch((error: Error) => this.errors.push(`${fault.kind} [${fault.nodes}]: ${error.message}`));
      await sleep(fault.durationMs, undefined, { signal }).catch(() => undefined);
      await this.heal(fault).catch((error: Error) => this.errors.push(`heal of ${fault.kind} [${fault.nodes}]: ${error.message}`));
      this.ran.push({ ...fault, startedMs, healedMs: this.recorder.now() });
    }
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
    }
  }

  private async heal(fault: PlannedFault): Promise<void> {
    if (fault.kind.startsWith("pause-")) return this.signalAll(fault.nodes, ["ledgerd", "cometbft"], "SIGCONT");
    if (fault.kind.startsWith("kill-")) {
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

function pinoWords(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; err?: { message?: unknown } };
    return `${String(entry.msg ?? "")}${entry.err?.message === undefined ? "" : `: ${String(entry.err.message)}`}`;
  } catch {
    return line;
  }
}
