// `npm run bench [name ...]`: runs the benchmarks (all, or those whose file name contains a
// given name) one after another and prints their figures. Figures go to BENCHMARKS.md by hand,
// with the date and machine; tests never assert on time.
import { readdirSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fmt, rawVerifyRate, setSameRunBaseline } from "./lib.js";

const dir = fileURLToPath(new URL(".", import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((name) => f.includes(name)))
  .sort();

console.log(`# ledgerd benchmarks, ${new Date().toISOString()}`);
console.log(`# machine: ${cpus().length} x ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
for (const file of files) {
  console.log(`\n## ${file}`);
  // Each benchmark's same-run baseline (bench/lib.ts): one core's raw verify rate, just before it
  // and again after, since the machine's speed drifts within minutes.
  const before = rawVerifyRate(1);
  setSameRunBaseline(before);
  console.log(`same-run baseline: one core's raw Ed25519 verify rate ${fmt(before)} /s; figures in "raw verifies" are in its units`);
  const module = (await import(pathToFileURL(dir + file).href)) as { run: () => Promise<void> };
  await module.run();
  const after = rawVerifyRate(1);
  console.log(`same-run baseline after ${file}: ${fmt(after)} /s (${(after / before).toFixed(2)} of the one before)`);
}
