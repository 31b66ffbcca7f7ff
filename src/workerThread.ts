// Starting a worker thread of ours, built or from sources. Built (dist), a worker is plain
// JavaScript. Run from sources under tsx (tests, benchmarks), a worker thread does not inherit
// tsx's loader, so one small bootstrap (workerFromSources.mjs) registers it and then imports the
// TypeScript module. Imports nothing of ours: every layer may start its threads through it.
import { writeFileSync } from "node:fs";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { fileURLToPath } from "node:url";

/**
 * Starts the module `name` (without extension) that sits beside `callerUrl` (the caller's
 * `import.meta.url`) on a worker thread.
 */
export function startWorkerThread(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const source = fileURLToPath(new URL(`./${name}.ts`, callerUrl));
  return new Worker(new URL("./workerFromSources.mjs", import.meta.url), { ...options, argv: [source] });
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
