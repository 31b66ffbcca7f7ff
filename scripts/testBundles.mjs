// The test files, each bundled with the sources it imports into one plain ES module, so that
// node's test runner starts each file's process without tsx's loader. Under tsx a process that
// imports the node resolved its ~400 .ts modules through loader hooks: about a second of CPU
// more per test file (measured: 2.9 against 1.8 s for test/unit/http/transactions.test.ts), and
// `npm test` runs ~190 files on two cores.
//
// The bundles of one state of the sources live in .cache/tests/<hash>/, the hash taken over every
// file of the folders a test may import from, and package.json: a changed source is a new
// folder, never a stale bundle. A run bundles only the files it selects that the folder lacks, all in one esbuild
// build (the whole suite: ~7 s). Folders of other states are removed, but not one written in the
// last hour (another run of this checkout may still be using it; a run touches its folder).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { bundleMany } from "../src/bundleSources.mjs";

const root = ".cache/tests";
const otherStateGraceMs = 60 * 60 * 1000;
/** What a test file may import: the sources, the tests and their helpers, and the other tools'. */
const importedFolders = ["src", "test", "chaos", "explorer/src", "scripts", "bench"];

/** Every file under `dir`, sorted, so that the hash is stable. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

function sourcesHash() {
  const hash = createHash("sha256");
  for (const file of [...importedFolders.flatMap(filesUnder), "package.json"]) hash.update(file).update("\0").update(readFileSync(file));
  return hash.digest("hex").slice(0, 24);
}

/**
 * What node's test runner runs for a test file in `dir`: test/unit/x.test.ts is
 * <dir>/test/unit/x.test.mjs, a stub that turns source maps on and imports the bundle beside it,
 * x.test.bundle.mjs. Turned on here, not by --enable-source-maps, so that the thread's own
 * stack traces name the sources' lines while the worker threads a test starts (which would
 * inherit the flag) do not each parse their bundle's map: ~0.1 s of CPU a thread.
 */
function stubPath(dir, file) {
  return join(dir, file.replace(/\.ts$/, ".mjs"));
}

function bundlePath(dir, file) {
  return join(dir, file.replace(/\.ts$/, ".bundle.mjs"));
}

const stubText = (bundle) => `process.setSourceMapsEnabled(true);\nawait import(${JSON.stringify(`./${bundle}`)});\n`;

function removeOtherStates(keep) {
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (name !== keep && Date.now() - statSync(path).mtimeMs > otherStateGraceMs) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * The bundle of each of `files` (paths relative to the repository, as test.mjs finds them), made
 * where missing. Bundles are written into a folder of their own and moved into place, so that a
 * run never starts a half-written one.
 */
export async function bundledTests(files) {
  const hash = sourcesHash();
  const dir = join(root, hash);
  removeOtherStates(hash);
  const missing = files.filter((file) => !existsSync(stubPath(dir, file)));
  if (missing.length > 0) {
    const temp = join(root, `${hash}.${process.pid}.tmp`);
    await bundleMany(missing, ".", temp, ".bundle.mjs");
    for (const file of missing) {
      mkdirSync(dirname(stubPath(dir, file)), { recursive: true });
      renameSync(bundlePath(temp, file), bundlePath(dir, file));
      // The stub last: its presence says the bundle is in place.
      writeFileSync(stubPath(temp, file), stubText(basename(bundlePath(dir, file))));
      renameSync(stubPath(temp, file), stubPath(dir, file));
    }
    rmSync(temp, { recursive: true, force: true });
  }
  const now = new Date();
  utimesSync(dir, now, now);
  return new Map(files.map((file) => [file, stubPath(dir, file)]));
}
