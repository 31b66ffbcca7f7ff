// Sums up a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) by where the time went: each
// sample's self time goes to the nearest file of ours (src/...) on its stack, so that a package's
// work (better-sqlite3's statements, Fastify's routing) counts where we asked for it; with
// `--packages`, to the nearest frame of ours or of a package. Samples with neither go to V8's own
// entries (garbage collector, idle, program). With `--areas`, the samples of all the files
// given are summed by what the node was doing (`areas` below: the verify, the key object, the
// POST, the store write...), the work of starting (module loading) left out; `--window=A-B`
// keeps the samples taken between A and B, in seconds of the system's monotonic clock (V8's
// profile clock on Linux; `time.monotonic()` in Python), e.g. the floods of a warm node. Usage:
//   node --import tsx bench/cpuProfileSummary.ts [--packages | --areas [--window=A-B]] <file.cpuprofile> [more files]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  startTime: number;
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

type Frame = ProfileNode["callFrame"];

/** A profile with its nodes by id and each node's parent, to walk a sample's stack. */
function readProfile(path: string): { profile: Profile; byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { profile, byId, parent };
}

/**
 * What a sample was spent on: the first area of this list found anywhere on its stack, so that a
 * verify under the POST counts as the verify. Names match this code base's files and functions.
 */
const areas: readonly (readonly [string, (frame: Frame) => boolean])[] = [
  ["starting (modules, tsx)", (f) => /tsx|esbuild|esm\/|cjs\/loader|bootstrap\/realm|compileSourceTextModule|wrapSafe/.test(`${f.url} ${f.functionName}`)],
  ["key object from JWK", (f) => /loadKeyObject|getKeyObjectHandleFromJwk/.test(f.functionName)],
  ["signature verify", (f) => f.functionName === "verifyOneShot" || /verifyEd25519\.ts/.test(f.url)],
  ["id (canonical JSON, SHA3)", (f) => f.functionName === "matchId"],
  ["signing digests", (f) => /inputDigests|txPreimages|preimagesOrNull/.test(f.functionName)],
  ["JSON reading", (f) => /readJson/.test(f.url) || f.functionName === "readJson"],
  ["schema", (f) => /validateSchema/.test(f.url) || /^validate\d+$/.test(f.functionName)],
  ["rest of prepare", (f) => /prepareTx|prepared\.ts|kinds\/registry|crypto-conditions|transaction\//.test(f.url) || /^prepare(Shared|Batch|One)$/.test(f.functionName)],
  // By function name too: the writer thread runs a bundle (.cache/workers), not src/.
  ["store write", (f) => /blockWriter|deferredIndex|fieldIndex|writerThread|commitBlock/.test(`${f.url} ${f.functionName}`)],
  ["checks' store reads", (f) => /checkReads|lookups\.ts|follower\.ts|threadedStore/.test(f.url)],
  ["block execution, app hash", (f) => /ledgerApp\.ts|commitment|proofs\//.test(f.url) && /execute|next|blockTree|openBlocks|finalizeBlock|commit/.test(f.functionName)],
  ["ABCI server and codec", (f) => /abciServer|abciCodec|abciApp/.test(f.url)],
  ["POST and HTTP", (f) => /postLane|src\/http\/|fastify|_http_|find-my-way/.test(f.url) || f.functionName === "writev"],
  ["RPC to CometBFT", (f) => /rpcClient|cometBftBroadcaster/.test(f.url)],
  ["event streams", (f) => /src\/events\//.test(f.url)],
  ["hand-over to verify threads", (f) => /preparePool/.test(f.url) || f.functionName === "postMessage"],
  ["garbage collector", (f) => f.functionName === "(garbage collector)"],
  ["(program), (root)", (f) => f.functionName === "(program)" || f.functionName === "(root)"],
];

function summarizeAreas(paths: readonly string[], window: readonly [number, number]): void {
  const totals = new Map<string, number>();
  for (const path of paths) {
    const { profile, byId, parent } = readProfile(path);
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i] ?? 0;
      if (at < window[0] * 1e6 || at > window[1] * 1e6) return;
      if (byId.get(id)!.callFrame.functionName === "(idle)") return;
      let best = areas.length;
      for (let on: number | undefined = id; on !== undefined; on = parent.get(on)) {
        const frame = byId.get(on)!.callFrame;
        best = Math.min(best, areas.findIndex(([, test]) => test(frame)) >>> 0);
      }
      const area = areas[best]?.[0] ?? "other";
      totals.set(area, (totals.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
  }
  const starting = totals.get(areas[0]![0]) ?? 0;
  totals.delete(areas[0]![0]);
  const busy = [...totals.values()].reduce((sum, micros) => sum + micros, 0);
  console.log(`${paths.length} profiles: ${(busy / 1e6).toFixed(1)} s busy after starting (${(starting / 1e6).toFixed(1)} s starting, left out)`);
  for (const [area, micros] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${area}`);
}

function summarize(path: string, packages: boolean): void {
  const { profile, byId, parent } = readProfile(path);
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
const paths = args.filter((a) => !a.startsWith("--"));
const window = /^--window=([\d.]+)-([\d.]+)$/.exec(args.find((a) => a.startsWith("--window=")) ?? "");
if (args.includes("--areas")) summarizeAreas(paths, window === null ? [0, Infinity] : [Number(window[1]), Number(window[2])]);
else for (const path of paths) summarize(path, args.includes("--packages"));
