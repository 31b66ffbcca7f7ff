// Bundles a worker thread's TypeScript module with the sources it imports into one plain ES
// module (run by workerThread.ts under tsx: tests, benchmarks; built code never loads this file).
// Its own process, because esbuild takes plugins only in its asynchronous API and a worker is
// started synchronously. Usage: node workerFromSources.mjs <entry.ts> <out.mjs>
import { build } from "esbuild";
import { readFileSync, renameSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [entry, out] = process.argv.slice(2);

// Each module keeps its source file's URL as `import.meta.url`, so that what it finds beside
// itself (a nested worker thread, a package's files) it finds as it does from sources.
const keepImportMetaUrl = {
  name: "keep-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, "utf8").replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
      loader: "ts",
    }));
  },
};

// Written aside and renamed: another test process may be bundling the same worker.
const temp = `${out}.${process.pid}.tmp`;
await build({
  entryPoints: [entry], outfile: temp, bundle: true, format: "esm", platform: "node", target: "node20",
  packages: "external", sourcemap: "inline", plugins: [keepImportMetaUrl], logLevel: "error",
});
renameSync(temp, out);
