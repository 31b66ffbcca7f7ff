// `ledgerd audit` (docs/transparency.md "Auditor"): keeps the last verified checkpoint of each
// log (origin) it follows in a state file, and checks each new one a node serves: the signature
// by the key pinned for that node (trust on first use, or given), the cosignatures of the
// witnesses it trusts (a quorum), that it extends the kept one (a consistency proof built from
// the node's tiles, checked with merkle.ts), and a sample of the new leaves (an inclusion proof
// each, against the signed root). A node that went back, or two checkpoints of one origin that
// are not consistent (two nodes, or one over time), is an alarm. The state is replaced durably
// after each round; a node with an alarm is not advanced, so the alarm repeats until an operator
// looks.
import { existsSync, readFileSync } from "node:fs";
import { Counter, Gauge, Registry } from "prom-client";
import { writeFileDurably } from "../node/durableFile.js";
import { parseCheckpointBody, type Checkpoint } from "../proofs/checkpoint.js";
import { cosignatureType, verifyCosignature } from "../proofs/cosignature.js";
import { fromBase64, toBase64 } from "../proofs/encoding.js";
import { inclusionPath, leafHash, verifyInclusion } from "../proofs/merkle.js";
import { openNote, parseVerifierKey, splitNote, type NoteKey } from "../proofs/signedNote.js";
import { bundleEntry, extendsTree, tileHolding, withTiles } from "../proofs/tileNodes.js";
import type { TileRef } from "../proofs/tiles.js";
import { nodeLogSource, nodeRequestTimeoutMs, type LogSource } from "./mirror.js";
import { auditExit } from "./auditOptions.js";

export const auditStateVersion = 1;

/** What the auditor alarms on (the metric's `kind` label). */
export type AlarmKind = "rollback" | "split_view" | "bad_signature" | "quorum_unmet" | "bad_inclusion";

export interface Alarm {
  readonly kind: AlarmKind;
  readonly origin: string;
  readonly node: string;
  readonly message: string;
}

/** The last verified checkpoint of a log: the largest any followed node served. */
export interface KeptCheckpoint {
  readonly size: number;
  /** Base64, as in the checkpoint. */
  readonly root: string;
  /** The node that served it: asked for a proof when another node serves a smaller one. */
  readonly node: string;
  readonly note: string;
  readonly verified_at: string;
}

/** What the auditor knows of one node: its pinned key and the last checkpoint it served. */
export interface NodeRecord {
  readonly key: string;
  readonly origin: string;
  readonly size: number;
  readonly root: string;
}

export interface AuditState {
  readonly version: number;
  readonly logs: Record<string, KeptCheckpoint>;
  readonly nodes: Record<string, NodeRecord>;
}

export interface AuditOptions {
  readonly nodes: readonly string[];
  /** Verifier keys accepted for every node (else each node's own, pinned on first use). */
  readonly keys: readonly NoteKey[];
  /** Cosignature verifier keys of trusted witnesses, and how many must cosign (all by default). */
  readonly witnesses: readonly NoteKey[];
  readonly quorum: number;
  readonly samples: number;
  readonly random?: () => number;
}

export interface RoundReport {
  readonly alarms: Alarm[];
  /** Nodes that could not be checked (unreachable, malformed answers), and why. */
  readonly troubles: { readonly node: string; readonly message: string }[];
  readonly verified: { readonly node: string; readonly origin: string; readonly size: number; readonly from: number }[];
}

export function exitCodeOf(report: RoundReport): number {
  const kinds = new Set(report.alarms.map((a) => a.kind));
  if (kinds.has("rollback") || kinds.has("split_view")) return auditExit.inconsistent;
  if (kinds.size > 0) return auditExit.badSignature;
  return report.troubles.length > 0 ? auditExit.trouble : auditExit.ok;
}

export function readAuditState(path: string): AuditState {
  if (!existsSync(path)) return { version: auditStateVersion, logs: {}, nodes: {} };
  const state = JSON.parse(readFileSync(path, "utf8")) as AuditState;
  if (state.version !== auditStateVersion) throw new Error(`${path} is an audit state of version ${String(state.version)}; this auditor reads ${auditStateVersion}`);
  return state;
}

export async function writeAuditState(path: string, state: AuditState): Promise<void> {
  await writeFileDurably(path, `${JSON.stringify(state, null, 2)}\n`);
}

/** Where the auditor reads a node: its log (checkpoint, tiles) and its verifier key. */
export interface AuditSource extends LogSource {
  key(): Promise<string>;
}

export function nodeAuditSource(url: string): AuditSource {
  const base = url.replace(/\/+$/, "");
  return {
    ...nodeLogSource(base),
    key: async () => {
      const response = await fetch(`${base}/api/v1/checkpoint/key`, { signal: AbortSignal.timeout(nodeRequestTimeoutMs) });
      if (response.status !== 200) throw new Error(`GET ${base}/api/v1/checkpoint/key: ${response.status}`);
      return (await response.text()).trim();
    },
  };
}

/** The leaves in [from, checkpoint.size) whose inclusion proof fails (`samples` picked at random). */
async function failedSamples(source: LogSource, from: number, checkpoint: Checkpoint, samples: number, random: () => number): Promise<number[]> {
  const failed: number[] = [];
  const count = checkpoint.size - from;
  for (let i = 0; i < Math.min(samples, count); i++) {
    const index = from + Math.floor(random() * count);
    const bundle: TileRef = tileHolding("entries", index, checkpoint.size);
    const entry = bundleEntry(await source.tile(bundle), index % 256);
    const path = await withTiles((tile) => source.tile(tile), checkpoint.size, (nodes) => inclusionPath(nodes, index, checkpoint.size));
    if (entry === null || !verifyInclusion(leafHash(entry), index, checkpoint.size, path, checkpoint.root)) failed.push(index);
  }
  return failed;
}

const keptAsCheckpoint = (origin: string, kept: { size: number; root: string }): Checkpoint => ({ origin, size: kept.size, root: fromBase64(kept.root) });

/** The witnesses in `witnesses` whose cosignature of the note verifies. */
function cosigners(note: string, witnesses: readonly NoteKey[]): number {
  const split = splitNote(note);
  if (split === null) return 0;
  return witnesses.filter((w) => split.signatures.some((s) => s.name === w.name && verifyCosignature(w, split.body, s.signature))).length;
}

interface Round {
  readonly options: AuditOptions;
  readonly state: { logs: Record<string, KeptCheckpoint>; nodes: Record<string, NodeRecord> };
  readonly report: RoundReport;
  readonly sourceOf: (url: string) => AuditSource;
  readonly now: string;
}

/** The key a node's checkpoints must be signed by: given, pinned, or learnt now (first use). */
async function keysFor(round: Round, url: string, source: AuditSource): Promise<{ keys: NoteKey[]; pinned: string }> {
  if (round.options.keys.length > 0) return { keys: [...round.options.keys], pinned: "" };
  const pinned = round.state.nodes[url]?.key ?? (await source.key());
  const key = parseVerifierKey(pinned);
  if (key === null) throw new Error(`${pinned} is not an Ed25519 verifier key`);
  return { keys: [key], pinned };
}

type Raise = (kind: AlarmKind, message: string) => void;

/** The checkpoint if signed by one of `keys` and cosigned by the quorum; else raised, and null. */
function signedCheckpoint(note: string, keys: readonly NoteKey[], options: AuditOptions, raise: Raise): Checkpoint | null {
  const key = keys.find((k) => openNote(note, k) !== null);
  if (key === undefined) {
    raise("bad_signature", `the checkpoint is not signed by ${keys.map((k) => k.name).join(" or ")} with the pinned key`);
    return null;
  }
  const checkpoint = parseCheckpointBody(openNote(note, key)!);
  if (checkpoint === null || checkpoint.origin !== key.name) {
    raise("bad_signature", `the note signed by ${key.name} is not a checkpoint of that origin`);
    return null;
  }
  const cosigned = cosigners(note, options.witnesses);
  if (cosigned < options.quorum) {
    raise("quorum_unmet", `${cosigned} of the ${options.witnesses.length} witnesses cosigned the checkpoint of size ${checkpoint.size}; the quorum is ${options.quorum}`);
    return null;
  }
  return checkpoint;
}

/** Whether the checkpoint holds against what this node served last and the origin's kept one; else raised. */
async function consistent(round: Round, url: string, checkpoint: Checkpoint, raise: Raise): Promise<boolean> {
  const previous = round.state.nodes[url];
  if (previous !== undefined && previous.origin === checkpoint.origin) {
    if (checkpoint.size < previous.size) {
      raise("rollback", `the node serves a checkpoint of size ${checkpoint.size}, smaller than the ${previous.size} it served before`);
      return false;
    }
    if (checkpoint.size === previous.size && toBase64(checkpoint.root) !== previous.root) {
      raise("rollback", `the node serves another root at size ${checkpoint.size} than it served before`);
      return false;
    }
  }
  const kept = round.state.logs[checkpoint.origin];
  if (kept === undefined) return true;
  const keptTree = keptAsCheckpoint(checkpoint.origin, kept);
  if (checkpoint.size >= kept.size) {
    if (await extendsTree((tile) => round.sourceOf(url).tile(tile), keptTree, checkpoint)) return true;
    raise("split_view", `the checkpoint of size ${checkpoint.size} does not extend the one of size ${kept.size} verified before (from ${kept.node})`);
    return false;
  }
  // A node behind the kept one must serve a prefix of it: the kept one's node proves it.
  if (await extendsTree((tile) => round.sourceOf(kept.node).tile(tile), checkpoint, keptTree)) return true;
  raise("split_view", `the checkpoint of size ${checkpoint.size} is not a prefix of the one of size ${kept.size} verified before (from ${kept.node})`);
  return false;
}

/** Checks one node's latest checkpoint; alarms go to the round's report, and only a verified one to the state. */
async function auditNode(round: Round, url: string): Promise<void> {
  const { options, state, report } = round;
  const source = round.sourceOf(url);
  const { keys, pinned } = await keysFor(round, url, source);
  const note = await source.checkpoint();
  const origin = parseCheckpointBody(splitNote(note)?.body ?? "")?.origin ?? "(unreadable)";
  const raise: Raise = (kind, message) => void report.alarms.push({ kind, origin, node: url, message });
  const checkpoint = signedCheckpoint(note, keys, options, raise);
  if (checkpoint === null || !(await consistent(round, url, checkpoint, raise))) return;
  const kept = state.logs[origin];
  const from = Math.min(checkpoint.size, Math.max(kept?.size ?? 0, state.nodes[url]?.size ?? 0));
  const failed = await failedSamples(source, from, checkpoint, options.samples, options.random ?? Math.random);
  if (failed.length > 0) return raise("bad_inclusion", `leaves ${failed.join(", ")} are not in the signed tree of size ${checkpoint.size} as the node's tiles say`);

  const root = toBase64(checkpoint.root);
  state.nodes[url] = { key: pinned, origin, size: checkpoint.size, root };
  if (kept === undefined || checkpoint.size > kept.size) state.logs[origin] = { size: checkpoint.size, root, node: url, note, verified_at: round.now };
  report.verified.push({ node: url, origin, size: checkpoint.size, from: kept?.size ?? 0 });
}

/**
 * One round over every node: the new state (the input is not changed) and what was found. A
 * node that cannot be reached or answers nonsense is a trouble, not an alarm.
 */
export async function auditRound(
  options: AuditOptions,
  state: AuditState,
  sourceOf: (url: string) => AuditSource = nodeAuditSource,
  now: Date = new Date(),
): Promise<{ state: AuditState; report: RoundReport }> {
  const next = { logs: { ...state.logs }, nodes: { ...state.nodes } };
  const report: RoundReport = { alarms: [], troubles: [], verified: [] };
  const round: Round = { options, state: next, report, sourceOf, now: now.toISOString() };
  for (const url of options.nodes) {
    try {
      await auditNode(round, url);
    } catch (error) {
      report.troubles.push({ node: url, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { state: { version: auditStateVersion, ...next }, report };
}

/** The verifier keys of `--key` or `--witness` flags; throws naming a bad one. */
export function noteKeysOf(vkeys: readonly string[], cosigners: boolean): NoteKey[] {
  return vkeys.map((vkey) => {
    const key = cosigners ? parseVerifierKey(vkey.trim(), cosignatureType) : parseVerifierKey(vkey.trim());
    if (key === null) throw new Error(`${vkey} is not an Ed25519 ${cosigners ? "cosignature " : ""}verifier key`);
    return key;
  });
}

/** The lines a round logs: one per alarm, trouble and verified checkpoint. */
export function roundLines(report: RoundReport): string[] {
  return [
    ...report.alarms.map((a) => `ALARM ${a.kind} origin=${a.origin} node=${a.node}: ${a.message}`),
    ...report.troubles.map((t) => `trouble node=${t.node}: ${t.message}`),
    ...report.verified.map((v) => `ok origin=${v.origin} node=${v.node}: checkpoint of size ${v.size} verified (kept was ${v.from})`),
  ];
}

/** The auditor's figures when following (docs/transparency.md "Auditor"). */
export class AuditMetrics {
  readonly registry = new Registry();
  private readonly alarms = new Counter({ name: "ledgerd_audit_alarms_total", help: "Alarms raised, by origin and kind (rollback, split_view, bad_signature, quorum_unmet, bad_inclusion)", labelNames: ["origin", "kind"], registers: [this.registry] });
  private readonly troubles = new Counter({ name: "ledgerd_audit_troubles_total", help: "Nodes that could not be checked in a round", labelNames: ["node"], registers: [this.registry] });
  private readonly verifiedSize = new Gauge({ name: "ledgerd_audit_verified_size", help: "The size of the last verified checkpoint of each origin", labelNames: ["origin"], registers: [this.registry] });
  private readonly rounds = new Counter({ name: "ledgerd_audit_rounds_total", help: "Rounds run", registers: [this.registry] });

  record(report: RoundReport, state: AuditState): void {
    this.rounds.inc();
    for (const a of report.alarms) this.alarms.inc({ origin: a.origin, kind: a.kind });
    for (const t of report.troubles) this.troubles.inc({ node: t.node });
    for (const [origin, kept] of Object.entries(state.logs)) this.verifiedSize.set({ origin }, kept.size);
  }
}

export interface FollowDeps {
  readonly statePath: string;
  readonly log: (line: string) => void;
  /** Resolves when the next round is due; false to stop (the default waits the interval). */
  readonly next: () => Promise<boolean>;
  readonly metrics?: AuditMetrics;
  readonly sourceOf?: (url: string) => AuditSource;
}

/** Rounds until `next` says stop (once, for cron: a `next` that says stop at once); the worst exit code. */
export async function followAudit(options: AuditOptions, deps: FollowDeps): Promise<number> {
  let worst = auditExit.ok as number;
  do {
    const { state, report } = await auditRound(options, readAuditState(deps.statePath), deps.sourceOf);
    await writeAuditState(deps.statePath, state);
    for (const line of roundLines(report)) deps.log(line);
    deps.metrics?.record(report, state);
    worst = Math.max(worst, exitCodeOf(report));
  } while (await deps.next());
  return worst;
}
