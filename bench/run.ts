// `npm run bench [name ...]`: runs the benchmarks (all, or those whose file name contains a
// given name) one after another and prints their figures. Figures go to BENCHMARKS.md by hand,
// with the date and machine; tests never assert on time.
import { readdirSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

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
  const module = (await import(pathToFileURL(dir + file).href)) as { run: () => Promise<void> };
  await module.run();
}
