// Bundles the explorer (explorer/src/main.tsx, Preact + uPlot) with esbuild into one ES module,
// one stylesheet and index.html, which the node serves at /explorer/ (issue #17). Prints each
// file's gzipped size and the total: the page must stay well under `pageWeightGzipBytesMax`.
// It skips the bundling when no input changed since the last build (so that `npm start` is quick):
// the inputs are those esbuild read (its metafile, which follows every import into src/ and
// node_modules/), index.html, the tsconfig, the lockfile and this script, kept in `<outdir>/.inputs`.
// Usage: node scripts/build-explorer.mjs [outdir]   (default dist/explorer)
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/** The bound on the page's weight, gzipped: over it, the build fails. */
const pageWeightGzipBytesMax = 150 * 1024;
const outputs = ["index.html", "app.js", "app.css"];
/** The inputs besides esbuild's own: what shapes the bundle without being imported. */
const fixedInputs = ["explorer/index.html", "explorer/tsconfig.json", "package-lock.json", "scripts/build-explorer.mjs"];
const inputsFile = ".inputs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(process.argv[2] ?? join(root, "dist", "explorer"));

/** Bundles the page and records its inputs with the time the bundling started. */
async function bundle() {
  const startedAtMs = Date.now();
  mkdirSync(outdir, { recursive: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: { app: "explorer/src/main.tsx" },
    outdir,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["chrome120", "firefox120"],
    sourcemap: false,
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfig: "explorer/tsconfig.json",
    logLevel: "warning",
    metafile: true,
  });
  copyFileSync(join(root, "explorer", "index.html"), join(outdir, "index.html"));
  const inputs = [...fixedInputs, ...Object.keys(metafile.inputs)];
  writeFileSync(join(outdir, inputsFile), JSON.stringify({ startedAtMs, inputs }));
}

/**
 * True when every output exists and no input was changed (or removed) since the last bundling
 * started; an edit made while it ran counts as a change.
 */
function upToDate() {
  let last;
  try {
    last = JSON.parse(readFileSync(join(outdir, inputsFile), "utf8"));
    for (const name of outputs) statSync(join(outdir, name));
    return last.inputs.every((input) => statSync(join(root, input)).mtimeMs < last.startedAtMs);
  } catch {
    return false;
  }
}

/** A path relative to the working folder when it is inside it, else absolute. */
function shown(path) {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}

function report() {
  let total = 0;
  for (const name of outputs) {
    const bytes = readFileSync(join(outdir, name));
    const gzipped = gzipSync(bytes, { level: 9 }).length;
    total += gzipped;
    console.log(`${name.padEnd(12)} ${String(bytes.length).padStart(8)} B  ${String(gzipped).padStart(7)} B gzipped`);
  }
  console.log(`${"total".padEnd(12)} ${"".padStart(8)}    ${String(total).padStart(7)} B gzipped (${(total / 1024).toFixed(1)} KiB) in ${shown(outdir)}`);
  if (total > pageWeightGzipBytesMax) throw new Error(`the page weighs ${total} B gzipped, over ${pageWeightGzipBytesMax}`);
}

try {
  if (upToDate()) console.log(`${shown(outdir)} is up to date`);
  else {
    await bundle();
    report();
  }
} catch (error) {
  // esbuild has printed its errors already; the rest is ours.
  if (!(error instanceof Error && "errors" in error)) console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
