// Bundles the explorer (explorer/src/main.tsx, Preact + uPlot) with esbuild into one ES module,
// one stylesheet and index.html, which the node serves at /explorer/ (issue #17). Prints each
// file's gzipped size and the total: the page must stay well under `pageWeightGzipBytesMax`.
// Usage: node scripts/build-explorer.mjs [outdir]   (default dist/explorer)
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

/** The bound on the page's weight, gzipped: over it, the build fails. */
const pageWeightGzipBytesMax = 150 * 1024;
const outputs = ["index.html", "app.js", "app.css"];

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(process.argv[2] ?? join(root, "dist", "explorer"));

async function bundle() {
  mkdirSync(outdir, { recursive: true });
  await build({
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
  });
  copyFileSync(join(root, "explorer", "index.html"), join(outdir, "index.html"));
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
  await bundle();
  report();
} catch (error) {
  // esbuild has printed its errors already; the rest is ours.
  if (!(error instanceof Error && "errors" in error)) console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
