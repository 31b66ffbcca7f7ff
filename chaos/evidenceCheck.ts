// The checker's look at evidence of misbehavior (docs/faults.md, "The checker"): every node serves
// the same evidence for the heights it holds (it is recorded with the block that carried it), and
// evidence names only a validator whose key a `double-sign` fault ran twice; an honest validator
// accused would be a finding. Whether a twin signed conflicting votes at all depends on its turns
// coming while it ran, so a double signing without evidence is counted, not an anomaly.
import type { Anomaly } from "./checker.js";
import type { EvidenceSnapshot, FaultEvent, NodeSnapshot } from "./history.js";

export interface EvidenceCounts {
  /** The most evidence records any node serves. */
  readonly evidence: number;
  readonly doubleSignFaults: number;
  /** Double-sign faults whose validator some committed evidence names. */
  readonly doubleSignFaultsWithEvidence: number;
}

export function checkEvidence(
  nodes: readonly NodeSnapshot[], faults: readonly FaultEvent[], add: (anomaly: Anomaly) => void,
): EvidenceCounts {
  const read = nodes.filter((n) => n.evidence !== undefined);
  const all = read.flatMap((n) => n.evidence ?? []);
  checkAgreement(read, add);
  const doubleSigns = faults.filter((f) => f.kind === "double-sign");
  const doubleSigned = new Set(doubleSigns.map((f) => f.detail));
  for (const e of uniqueEvidence(all)) {
    if (doubleSigned.has(e.address)) continue;
    const detail = `evidence at height ${e.height} (${e.type}, infraction at ${e.infractionHeight}) ` +
      `names ${e.address}, a validator no double-sign fault ran twice`;
    add({ kind: "unexplained-evidence", height: e.height, detail });
  }
  const named = new Set(all.map((e) => e.address));
  return {
    evidence: Math.max(0, ...read.map((n) => n.evidence?.length ?? 0)),
    doubleSignFaults: doubleSigns.length,
    doubleSignFaultsWithEvidence: doubleSigns.filter((f) => named.has(f.detail ?? "")).length,
  };
}

/** Two nodes serve the same evidence up to the lower of their top heights. */
function checkAgreement(nodes: readonly NodeSnapshot[], add: (anomaly: Anomaly) => void): void {
  const topOf = (n: NodeSnapshot): number => Math.max(0, ...n.blocks.map((b) => b.height));
  const [first, ...others] = nodes;
  if (first === undefined) return;
  for (const other of others) {
    const upTo = Math.min(topOf(first), topOf(other));
    const [a = "", b = ""] = [first, other].map((n) => keysOf((n.evidence ?? []).filter((e) => e.height <= upTo)));
    if (a === b) continue;
    const detail = `up to height ${upTo}: node ${first.node} serves ${a || "none"}; ` +
      `node ${other.node} ${b || "none"}`;
    add({ kind: "diverged-evidence", nodes: [first.node, other.node], detail });
  }
}

const keyOf = (e: EvidenceSnapshot): string =>
  `${e.height}:${e.type}:${e.address}:${e.infractionHeight}`;
const keysOf = (list: readonly EvidenceSnapshot[]): string => list.map(keyOf).join(", ");

function uniqueEvidence(all: readonly EvidenceSnapshot[]): EvidenceSnapshot[] {
  return [...new Map(all.map((e) => [keyOf(e), e])).values()];
}
