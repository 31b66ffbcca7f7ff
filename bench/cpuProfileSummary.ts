// Sums up a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) by where the time went: each
// sample's self time goes to the nearest file of ours (src/...) on its stack, so that a package's
// work (better-sqlite3's statements, Fastify's routing) counts where we asked for it; with
// `--packages`, to the nearest frame of ours or of a package. Samples with neither go to V8's own
// entries (garbage collector, idle, program). Usage:
//   node --import tsx bench/cpuProfileSummary.ts [--packages] <file.cpuprofile> [more files]
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
function oursOf(frame: ProfileNode["callFrame"]): string | null {
  const ours = /\/(src|bench)\/(.*)$/.exec(frame.url);
  return ours !== null && !frame.url.includes("node_modules") ? `${ours[1]}/${ours[2]}` : null;
}

function placeOf(frame: ProfileNode["callFrame"]): string | null {
  const url = frame.url;
  if (url === "") return frame.functionName.startsWith("(") ? frame.functionName : null;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return `npm:${pkg[1]}`;
  if (url.startsWith("node:")) return null; // Node's library: counted where it was called from
  return oursOf(frame) ?? url;
}

function summarize(path: string, packages: boolean): void {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    all += micros;
    const find = (of: (frame: ProfileNode["callFrame"]) => string | null): string | null => {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const place = of(byId.get(at)!.callFrame);
        if (place !== null) return place;
      }
      return null;
    };
    const place = (packages ? null : find(oursOf)) ?? find(placeOf);
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

// A reader that stops early (`| head`) is not an error.
process.stdout.on("error", () => process.exit(0));
const args = process.argv.slice(2);
for (const path of args.filter((a) => a !== "--packages")) summarize(path, args.includes("--packages"));
