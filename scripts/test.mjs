// Runs every test file under test/ with node's built-in runner (Node 20 has no --test globs).
// Usage: node scripts/test.mjs [substring ...] to run only files whose path contains one.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { ensureCachedPrograms, ensureSystemPrograms } from "./prerequisites.mjs";
import { bundledTests } from "./testBundles.mjs";

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

// The Python-rules compatibility test runs BigchainDB's serializer (python-rapidjson) from a
// venv, and the fuzz test runs schemathesis from it; make it on first run, and install again
// when the requirements changed since (a copy of them is kept in the venv), so that `npm test`
// alone works on a fresh machine and on one whose venv predates a new requirement.
function ensurePythonVenv() {
  const requirements = "test/compat/python/requirements.txt";
  const installed = ".venv/ledgerd-requirements.txt";
  const wanted = readFileSync(requirements, "utf8");
  if (existsSync(".venv/bin/python") && existsSync(installed) && readFileSync(installed, "utf8") === wanted) return;
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed`);
  };
  if (!existsSync(".venv/bin/python")) run("python3", ["-m", "venv", ".venv"]);
  run(".venv/bin/pip", ["install", "--quiet", "--disable-pip-version-check", "-r", requirements]);
  writeFileSync(installed, wanted);
}

// The CometBFT network tests need the pinned binary in .cache/bin (built once with Go).
function ensureCometBft() {
  const r = spawnSync("bash", ["scripts/install-cometbft.sh"], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("scripts/install-cometbft.sh failed");
}

// The explorer's browser test and the node's /explorer/ serve the bundle `npm run build` makes;
// every run brings it up to date (the script bundles again only when an input changed).
function buildExplorer() {
  const r = spawnSync(process.execPath, ["scripts/build-explorer.mjs"], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("scripts/build-explorer.mjs failed");
}

// Tests start worker threads from bundles of the sources in .cache/workers (src/workerThread.ts),
// a folder per entry and state of the sources; those a day old are of sources long since changed.
function pruneWorkerBundles() {
  const dir = ".cache/workers";
  if (!existsSync(dir)) return;
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * `npm test` passes --typecheck: the TypeScript check (`npm run typecheck`, one core for ~30 s)
 * runs beside the preparations and the first lanes instead of before them, on the core they
 * leave idle (a fresh clone's first minute was a third idle with the check ahead of it); its
 * verdict counts in the closing line like a lane's.
 */
const typecheckFlag = "--typecheck";
const typecheck = process.argv.includes(typecheckFlag) ? runTypecheck() : null;

function runTypecheck() {
  return runCollected("npm", ["run", "--silent", "typecheck"], "pipe");
}

/** Runs a child, its output (stdout, and stderr when `stderr` is "pipe") kept; its output and exit status. */
function runCollected(command, args, stderr) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["inherit", "pipe", stderr] });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr?.on("data", (chunk) => chunks.push(chunk));
    child.on("close", (code) => resolve({ out: Buffer.concat(chunks).toString("utf8"), status: code ?? 1 }));
  });
}

ensureSystemPrograms();
ensureCachedPrograms();
pruneWorkerBundles();
ensurePythonVenv();
ensureCometBft();
buildExplorer();
const filters = process.argv.slice(2).filter((arg) => arg !== typecheckFlag);
const files = findTests("test")
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// Two lanes side by side from the start, so that the two cores stay busy: one runs the CometBFT
// networks (4-validator networks, one file at a time, so that no two networks starve each other
// into timeouts), the other the unit and compatibility suites; then both take the other
// end-to-end files (real processes, SIGKILL loops) from one queue, one at a time, so neither
// waits while the other still has files. The networks spend much of their time waiting for
// blocks: run after the unit suites, they left a core idle for minutes. The unit suites run
// one file at a time beside the networks, two when no network is selected. Every summary is
// summed into one closing line.
const e2e = files.filter((f) => f.startsWith("test/e2e/"));
const networks = e2e.filter((f) => f.startsWith("test/e2e/cometbft/"));
const units = files.filter((f) => !f.startsWith("test/e2e/"));
const queue = e2e.filter((f) => !networks.includes(f));
const concurrency = process.env.LEDGERD_TEST_CONCURRENCY ?? (networks.length > 0 ? "1" : "2");

// Each test file runs from its bundle (testBundles.mjs): plain JavaScript, without tsx's loader.
// Its stack traces name the sources' lines through the bundle's source map.
const bundleOf = await bundledTests(files);

/** Runs one lane's files with node's test runner; its output and exit status. */
function runLane(lane) {
  const bundles = lane.files.map((file) => bundleOf.get(file));
  const args = ["--test", `--test-concurrency=${lane.concurrency}`, "--test-reporter=spec", ...bundles];
  return runCollected(process.execPath, args, "inherit");
}

let passed = 0;
let failed = 0;
let status = 0;
/** Each lane's failures as the spec reporter lists them at its end, printed again last. */
const failures = [];
const failuresHeading = "\n\u2716 failing tests:\n";
/** A lane's output, printed whole when it ends so that two lanes' lines do not interleave. */
function report(result) {
  process.stdout.write(result.out);
  const at = result.out.indexOf(failuresHeading);
  if (at >= 0) failures.push(result.out.slice(at + failuresHeading.length).trim());
  passed += Number(/^ℹ pass (\d+)$/m.exec(result.out)?.[1] ?? 0);
  failed += Number(/^ℹ fail (\d+)$/m.exec(result.out)?.[1] ?? 0);
  if (result.status !== 0) status = result.status;
}

/** Runs the queue's files one at a time until it is empty (two of these share it). */
async function drainQueue() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) report(await runLane({ files: [file], concurrency: "1" }));
}

await Promise.all([
  (async () => {
    if (networks.length > 0) report(await runLane({ files: networks, concurrency: "1" }));
    await drainQueue();
  })(),
  (async () => {
    if (units.length > 0) report(await runLane({ files: units, concurrency }));
    await drainQueue();
  })(),
]);
if (typecheck !== null) {
  const checked = await typecheck;
  if (checked.status !== 0) {
    status = checked.status;
    failures.push(`npm run typecheck failed:\n${checked.out.trim()}`);
  }
  console.log(`\nnpm run typecheck: ${checked.status === 0 ? "passed" : "FAILED"}`);
}
// A lane that ended early printed its failures in the middle of the output; a reader of the
// output's end (a CI log cut to its last lines) finds them here.
if (failures.length > 0) console.log(`\nThe failures of every lane, in one place:\n\n${failures.join("\n\n")}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(status !== 0 || failed > 0 ? status || 1 : 0);
