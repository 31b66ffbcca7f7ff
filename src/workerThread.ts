// Starting a module of ours on another thread or in another process, built or from sources.
// Built (dist), a module is plain JavaScript. Run from sources under tsx (tests, benchmarks),
// every thread and child process would load tsx's loader again (the process's `--import tsx`
// is inherited) and resolve hundreds of .ts files through it: 0.3-0.8 s a thread, about a second
// of CPU a `ledgerd` process, and a conformance run opens hundreds of stores, a network test
// starts dozens of nodes. So from sources the module is bundled into plain JavaScript in
// .cache/workers (workerFromSources.mjs), named by a hash of every source file's content (a
// changed source is a new bundle, never a stale one), and run without tsx.
// Imports nothing of ours: every layer may start its threads through it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join, relative, sep } from "node:path";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { fileURLToPath } from "node:url";

/**
 * Starts the module `name` (without extension) that sits beside `callerUrl` (the caller's
 * `import.meta.url`) on a worker thread.
 */
export function startWorkerThread(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const module = runnableModule(callerUrl, `./${name}`);
  if (!callerUrl.endsWith(".ts")) return new Worker(module, options);
  return new Worker(module, { ...options, execArgv: options.execArgv ?? withoutTsx(process.execArgv) });
}

/**
 * The file that runs the module at `path` (relative, without extension) from `callerUrl` (the
 * caller's `import.meta.url`): built, its .js; from sources, the bundle of its .ts, to be run
 * without tsx's loader (`withoutTsx`).
 */
export function runnableModule(callerUrl: string, path: string): string {
  if (!callerUrl.endsWith(".ts")) return fileURLToPath(new URL(`${path}.js`, callerUrl));
  return bundleFromSources(fileURLToPath(new URL(`${path}.ts`, callerUrl)));
}

/**
 * The process's flags less tsx's loader, for a thread or child process that runs a bundle: it
 * would inherit them, and the bundle is plain JavaScript (the loader was a third of a writer
 * thread's start).
 */
export function withoutTsx(flags: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i] ?? "";
    if ((flag === "--import" || flag === "--require" || flag === "--loader") && /^tsx(\/|$)/.test(flags[i + 1] ?? "")) i++;
    else if (!/^--(import|require|loader)=tsx(\/|$)/.test(flag)) kept.push(flag);
  }
  return kept;
}

/** Bundles this thread has found or made, by entry: the sources do not change under a test. */
const bundles = new Map<string, string>();

/**
 * The bundle of the module `entry` for today's sources, made if missing. Its name hashes every
 * file under src/, and under the entry's own top folder when that is another (a test's child
 * process imports test helpers beside the sources).
 */
function bundleFromSources(entry: string): string {
  const known = bundles.get(entry);
  if (known !== undefined) return known;
  const sources = fileURLToPath(new URL(".", import.meta.url));
  const root = join(sources, "..");
  const outside = relative(sources, entry).startsWith("..");
  const trees = outside ? [sources, join(root, relative(root, entry).split(sep)[0] ?? "")] : [sources];
  const hash = createHash("sha256").update(entry);
  for (const tree of trees) hash.update(treeDigest(tree));
  const dir = fileURLToPath(new URL("../.cache/workers/", import.meta.url));
  const folder = join(dir, hash.digest("hex").slice(0, 24));
  // The name bundleSources.mjs gives a split bundle's entry.
  const bundle = join(folder, "entry.mjs");
  if (!existsSync(bundle)) {
    mkdirSync(dir, { recursive: true });
    const script = fileURLToPath(new URL("./workerFromSources.mjs", import.meta.url));
    const made = spawnSync(process.execPath, [script, entry, folder], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`bundling ${entry} failed: ${made.stderr}`);
  }
  bundles.set(entry, bundle);
  return bundle;
}

/** Digests of source trees this process has read, by folder: each is read once, not per bundle. */
const treeDigests = new Map<string, Buffer>();

/** A digest of every file under `dir` (its path and content) and of the package's manifest. */
function treeDigest(dir: string): Buffer {
  let digest = treeDigests.get(dir);
  if (digest === undefined) {
    const hash = createHash("sha256");
    for (const file of sourceFiles(dir)) hash.update(file).update(readFileSync(file));
    digest = hash.digest();
    treeDigests.set(dir, digest);
  }
  return digest;
}

/** Every file under `dir`, sorted (a stable hash), and the package's manifest. */
function sourceFiles(dir: string): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .sort();
  return [...files, join(dir, "..", "package.json")];
}

/** The longest thread name Linux keeps (TASK_COMM_LEN less its terminating zero). */
const threadNameLengthMax = 15;

/**
 * Names the calling thread for the operating system (`top -H`, `ps -L`, `/proc/<pid>/task`), so
 * that an operator, and `bench http`, can tell a node's verify, writer and checkpoint threads
 * apart: Node gives every worker thread its process's name. Linux only; elsewhere, or if the
 * kernel refuses, the thread keeps the name it had.
 */
export function nameThisThread(name: string): void {
  try {
    writeFileSync("/proc/thread-self/comm", name.slice(0, threadNameLengthMax));
  } catch {
    // Not Linux, or /proc not mounted: the name is a convenience, never a requirement.
  }
}
