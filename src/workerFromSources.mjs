// Bundles a worker thread's TypeScript module with the sources it imports into one plain ES
// module (run by workerThread.ts under tsx: tests, benchmarks; built code never loads this file).
// Its own process, because esbuild takes plugins only in its asynchronous API and a worker is
// started synchronously. Usage: node workerFromSources.mjs <entry.ts> <out folder>
import { existsSync, renameSync, rmSync } from "node:fs";
import { bundleOne } from "./bundleSources.mjs";

const [entry, out] = process.argv.slice(2);

// Written aside and renamed: another test process may be bundling the same worker. If it got
// there first, its folder (the same bundle) is kept.
const temp = `${out}.${process.pid}.tmp`;
await bundleOne(entry, temp);
try {
  renameSync(temp, out);
} catch (error) {
  if (!existsSync(out)) throw error;
  rmSync(temp, { recursive: true, force: true });
}
