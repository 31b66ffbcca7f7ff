// Sums up a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) by where the time went: each
// sample's self time goes to the first frame of ours (src/...) or of a package on its stack, or
// to V8's own entries (garbage collector, idle, program). Usage:
//   node --import tsx bench/cpuProfileSummary.ts <file.cpuprofile> [more files]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** What a frame is counted as: a file of ours, a package, Node's own code, or V8's entries. */
function placeOf(frame: ProfileNode["callFrame"]): string | null {
  const url = frame.url;
  if (url === "") return frame.functionName.startsWith("(") ? frame.functionName : null;
  const ours = /\/(src|bench)\/(.*)$/.exec(url);
  if (ours !== null && !url.includes("node_modules")) return `${ours[1]}/${ours[2]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return `npm:${pkg[1]}`;
  if (url.startsWith("node:")) return null; // Node's library: counted where it was called from
  return url;
}

function summarize(path: string): void {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    all += micros;
    let at: number | undefined = id;
    let place: string | null = null;
    while (at !== undefined && place === null) {
      place = placeOf(byId.get(at)!.callFrame);
      at = parent.get(at);
    }
    const key = place ?? "(node internals)";
    totals.set(key, (totals.get(key) ?? 0) + micros);
  });
  const busy = all - (totals.get("(idle)") ?? 0);
  console.log(`${path}: ${(all / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy`);
  for (const [place, micros] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    if (place === "(idle)") continue;
    console.log(`  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${place}`);
  }
}

for (const path of process.argv.slice(2)) summarize(path);
