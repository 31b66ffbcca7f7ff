// The previous release of ledgerd, for the rolling-upgrade test: the commit of this repository
// named in `previousRelease` (beside this file), unpacked from git into a temporary folder and
// run from its sources under tsx, as the tests run this release. Its npm packages are this
// checkout's when its lockfile is the same (a symlink), else installed by its lockfile, from
// npm's cache where it can (`npm ci --prefer-offline`). A clone without that commit (a shallow
// CI clone; .ci/run unshallows) fetches it from `origin` once; if it still lacks it, the test
// fails saying so: it never skips.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export interface PreviousRelease {
  /** The commit. */
  readonly commit: string;
  /** Where it is unpacked. */
  readonly dir: string;
  /** node's arguments that run its `ledgerd` (from `dir`). */
  readonly args: readonly string[];
  remove(): void;
}

/** The commit `previousRelease` names. */
export function previousReleaseCommit(): string {
  const commit = readFileSync(new URL("./previousRelease", import.meta.url), "utf8").trim();
  assert.match(commit, /^[0-9a-f]{40}$/, "test/e2e/cometbft/previousRelease must hold one full commit hash");
  return commit;
}

/** Unpacks the previous release into a temporary folder, with its npm packages. */
export function unpackPreviousRelease(): PreviousRelease {
  const commit = previousReleaseCommit();
  ensureCommit(commit);
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-previous-"));
  try {
    const archive = spawnSync("git", ["archive", "--format=tar", commit], { cwd: repoRoot, maxBuffer: 1 << 30 });
    assert.equal(archive.status, 0, `git archive ${commit} failed: ${String(archive.stderr)}`);
    const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
    assert.equal(untar.status, 0, `unpacking ${commit} failed: ${String(untar.stderr)}`);
    installPackages(dir, commit);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    commit,
    dir,
    args: ["--import", "tsx", join(dir, "src", "cli", "main.ts")],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The commit in this clone, fetched from origin once if missing (a shallow clone). */
function ensureCommit(commit: string): void {
  const has = (): boolean => spawnSync("git", ["cat-file", "-e", `${commit}^{commit}`], { cwd: repoRoot }).status === 0;
  if (has()) return;
  spawnSync("git", ["fetch", "--quiet", "--no-tags", "origin", commit], { cwd: repoRoot, stdio: "ignore", timeout: 120_000 });
  assert.ok(
    has(),
    `the previous release ${commit} (test/e2e/cometbft/previousRelease) is not in this clone and could not be fetched from origin: clone with history (git fetch --unshallow)`,
  );
}

/** Its npm packages: this checkout's if they serve it (`servesPrevious`), else installed by its own lockfile. */
function installPackages(dir: string, commit: string): void {
  if (servesPrevious(lockOf(join(dir, "package-lock.json")), lockOf(join(repoRoot, "package-lock.json")))) {
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
    return;
  }
  const npm = spawnSync("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8", timeout: 300_000 });
  assert.equal(npm.status, 0, `npm ci for the previous release ${commit} failed: ${npm.stderr.split("\n").slice(-5).join(" ")}`);
}

interface Lock {
  readonly packages: Record<string, Record<string, unknown>>;
}

function lockOf(lockfile: string): Lock {
  return JSON.parse(readFileSync(lockfile, "utf8")) as Lock;
}

const dependencyKinds = ["dependencies", "devDependencies", "optionalDependencies"] as const;

/**
 * Whether this checkout's packages serve the previous release: the same packages installed, at
 * the same versions, and every dependency it declares declared here with the same range (one
 * only this release declares, already installed for another, changes nothing for the previous
 * one's code). The root's own fields (version, engines) install nothing: comparing whole files
 * made an `engines` edit cost an `npm ci` with native builds (80 s) in every run, and a newly
 * declared dependency cost one of ~200 s on a slow day.
 */
export function servesPrevious(previous: Lock, current: Lock): boolean {
  const { "": previousRoot = {}, ...previousPackages } = previous.packages;
  const { "": currentRoot = {}, ...currentPackages } = current.packages;
  if (JSON.stringify(previousPackages) !== JSON.stringify(currentPackages)) return false;
  return dependencyKinds.every((kind) => {
    const wanted = (previousRoot[kind] ?? {}) as Record<string, string>;
    const declared = (currentRoot[kind] ?? {}) as Record<string, string>;
    return Object.entries(wanted).every(([name, range]) => declared[name] === range);
  });
}
