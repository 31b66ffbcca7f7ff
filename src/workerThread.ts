// Starting a worker thread of ours, built or from sources. Built (dist), a worker is plain
// JavaScript. Run from sources under tsx (tests, benchmarks), a worker thread does not inherit
// tsx's loader, so one small bootstrap (workerFromSources.mjs) registers it and then imports the
// TypeScript module. Imports nothing of ours: every layer may start its threads through it.
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
