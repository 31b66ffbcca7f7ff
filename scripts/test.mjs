// Runs every test file under test/ with node's built-in runner (Node 20 has no --test globs).
// Usage: node scripts/test.mjs [substring ...] to run only files whose path contains one.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { ensureSystemPrograms } from "./prerequisites.mjs";

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
// one per state of the sources; those a day old are of sources long since changed.
function pruneWorkerBundles() {
  const dir = ".cache/workers";
  if (!existsSync(dir)) return;
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).mtimeMs < dayAgo) rmSync(path, { force: true });
  }
}

ensureSystemPrograms();
pruneWorkerBundles();
ensurePythonVenv();
ensureCometBft();
buildExplorer();
const filters = process.argv.slice(2);
const files = findTests("test")
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
// Unit and compatibility suites run two files at a time; the end-to-end suites (real processes,
// SIGKILL loops, a 4-validator network) run one at a time, so that on a 2-core machine they do
// not starve each other into timeouts. Each phase's summary is summed into one closing line.
const concurrency = process.env.LEDGERD_TEST_CONCURRENCY ?? "2";
const phases = [
  { files: files.filter((f) => !f.startsWith("test/e2e/")), concurrency },
  { files: files.filter((f) => f.startsWith("test/e2e/")), concurrency: "1" },
].filter((phase) => phase.files.length > 0);

let passed = 0;
let failed = 0;
let status = 0;
for (const phase of phases) {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", `--test-concurrency=${phase.concurrency}`, "--test-reporter=spec", ...phase.files],
    { stdio: ["inherit", "pipe", "inherit"], maxBuffer: 512 * 1024 * 1024 },
  );
  const out = result.stdout.toString("utf8");
  process.stdout.write(out);
  passed += Number(/^ℹ pass (\d+)$/m.exec(out)?.[1] ?? 0);
  failed += Number(/^ℹ fail (\d+)$/m.exec(out)?.[1] ?? 0);
  if (result.status !== 0) status = result.status ?? 1;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(status !== 0 || failed > 0 ? status || 1 : 0);
