// The programs the test suites take from the system. `npm test` checks them before anything else:
// as root with apt-get it installs what is missing (as on a fresh CI machine), otherwise it stops
// at once with one line naming the packages and the command, so that no suite fails halfway.
// Usage: node scripts/prerequisites.mjs   (also called by scripts/test.mjs)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Each program the suites run, the Debian package that brings it, and who needs it. */
export const systemPrograms = [
  { program: "sqlite3", package: "sqlite3", neededBy: "verify-chain's tests edit a ledger file with it" },
  { program: "initdb", package: "postgresql", neededBy: "the PostgreSQL tests start a real server" },
  { program: "pg_ctl", package: "postgresql", neededBy: "the PostgreSQL tests start a real server" },
  { program: "chromium", package: "chromium", neededBy: "the explorer's and the proofs' browser tests" },
  { program: "faketime", package: "faketime", neededBy: "the clock-skew test moves a node's ledgerd clock with its libfaketime" },
  { program: "ssh-agent", package: "openssh-client", neededBy: "the litewitness interop test: litewitness signs through an ssh-agent" },
  { program: "ssh-keygen", package: "openssh-client", neededBy: "the litewitness interop test makes the witness's key with it" },
  { program: "systemd-analyze", package: "systemd", neededBy: "the systemd units' test verifies deploy/systemd with it" },
  { program: "script", package: "bsdutils", neededBy: "the progress bars' test runs a command in a terminal with it" },
  { program: "python3", package: "python3", neededBy: "the Python client's tests (clients/python), BigchainDB's serializer and the fuzzer" },
  { program: "pip3", package: "python3-pip", neededBy: "the Python client's test installs it with pip (pip install ./clients/python)" },
];

/**
 * Programs the suites take from a scripts/install-*.sh into .cache/bin, at the version the
 * script pins (it does nothing when the binary there reports it). CometBFT is scripts/test.mjs's.
 */
export const cachedPrograms = [
  { program: "promtool", script: "scripts/install-promtool.sh", neededBy: "the alert rules' tests: promtool check rules, promtool test rules" },
];

/** The oldest Python the Python client (clients/python, `requires-python`) supports. */
export const pythonVersionMin = [3, 7];

/** Null when `version` ("3.11") is at least pythonVersionMin; else the one line to stop with. */
export function pythonVersionProblem(version) {
  const [major, minor] = version.trim().split(".").map(Number);
  const [wantMajor, wantMinor] = pythonVersionMin;
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return null;
  return `npm test needs python3 ${wantMajor}.${wantMinor} or newer (found ${version.trim() || "none that runs"}); put a newer python3 first on the PATH`;
}

/** Stops the process with one line when python3 is older than the Python client supports. */
function ensurePythonVersion() {
  const run = spawnSync("python3", ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" });
  const problem = pythonVersionProblem(run.status === 0 ? run.stdout : "");
  if (problem === null) return;
  console.error(problem);
  process.exit(1);
}

/**
 * What to do, given the programs not found: nothing; install their packages (only as root where
 * apt-get exists, and only once: `installTried` after an attempt); or stop with one line.
 */
export function planSystemPrograms({ missing, root, aptGet, installTried }) {
  if (missing.length === 0) return { kind: "ready" };
  const packages = [...new Set(missing.map((m) => m.package))];
  if (root && aptGet && !installTried) return { kind: "install", packages };
  const install = `apt-get install -y ${packages.join(" ")}`;
  const how = installTried ? `installing did not bring them; try: ${install}`
    : aptGet ? `install with: ${root ? "" : "sudo "}${install}`
    : `install them with your package manager (Debian: ${install})`;
  const programs = missing.map((m) => m.program).join(", ");
  return { kind: "stop", line: `npm test needs the package${packages.length > 1 ? "s" : ""} ${packages.join(", ")} (missing: ${programs}); ${how}` };
}

/** The browser the tests drive: CHROMIUM_PATH, else Debian's. */
function chromiumPath() {
  return process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
}

/** Whether `program` can be run; PostgreSQL's server programs live off the PATH on Debian. */
function found(program) {
  if (program === "chromium") return existsSync(chromiumPath());
  const lookup = `command -v ${program} || ls /usr/lib/postgresql/*/bin/${program}`;
  return spawnSync("bash", ["-c", lookup], { stdio: "ignore" }).status === 0;
}

function aptGet(args) {
  const result = spawnSync("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  return result.status === 0;
}

/** Installs what is missing where it can; otherwise prints the one line and ends the process. */
export function ensureSystemPrograms() {
  const facts = { root: process.getuid?.() === 0, aptGet: found("apt-get"), installTried: false };
  for (;;) {
    const plan = planSystemPrograms({ ...facts, missing: systemPrograms.filter((p) => !found(p.program)) });
    if (plan.kind === "ready") return ensurePythonVersion();
    if (plan.kind === "stop") {
      console.error(plan.line);
      process.exit(1);
    }
    console.error(`installing ${plan.packages.join(", ")} (apt-get)`);
    if (aptGet(["update", "-qq"])) aptGet(["install", "-y", "-qq", ...plan.packages]);
    facts.installTried = true;
  }
}

/** Runs each cached program's install script; a failure ends the process with its reason. */
export function ensureCachedPrograms() {
  for (const { program, script, neededBy } of cachedPrograms) {
    const result = spawnSync("bash", [script], { stdio: ["ignore", "ignore", "inherit"] });
    if (result.status === 0) continue;
    console.error(`npm test needs ${program} (${neededBy}): ${script} failed`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  ensureSystemPrograms();
  ensureCachedPrograms();
}
