// Bundles TypeScript modules of this repository with the sources they import into plain ES
// modules, so that a process can run them without tsx's loader (which resolves every .ts file
// through loader hooks: about a second of CPU in each process that imports the node). Used for
// worker threads and child processes run from sources (workerFromSources.mjs) and for the test
// files (scripts/test.mjs). npm packages stay imports, resolved from the bundle's own folder, so
// a bundle must be written inside the repository (under .cache/).
//
// A worker's or command's bundle is split (`bundleOne`): a module the sources import with
// `import()` becomes a chunk of its own, loaded when it is first imported, with the npm packages
// it imports. Unsplit, esbuild hoists every package import of the bundle to its top, so that
// `ledgerd keys` loaded PostgreSQL's driver and Fastify (0.64 to 0.76 s of CPU; 0.30 s split).
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Each module keeps its source file's `import.meta.url` (and `dirname`, `filename`), so that what
 * it finds beside itself (a nested worker thread, a fixture, a package's files) it finds as it
 * does from sources.
 */
const keepImportMeta = {
  name: "keep-import-meta",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, "utf8")
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path)),
      loader: "ts",
    }));
  },
};

const common = {
  bundle: true, format: "esm", platform: "node", target: "node20", packages: "external",
  sourcemap: "inline", plugins: [keepImportMeta], logLevel: "error",
};

/**
 * One entry into `outdir`: entry.mjs (src/workerThread.ts starts it by that name), and a chunk for
 * each module the sources `import()`.
 */
export async function bundleOne(entry, outdir) {
  await build({
    ...common, entryPoints: [entry], outdir, splitting: true,
    entryNames: "entry", chunkNames: "chunk-[hash]", outExtension: { ".js": ".mjs" },
  });
}

/**
 * Many entries in one build, each into `outdir` at its path under `outbase`, its extension
 * replaced by `extension` (each bundle whole: no chunks shared between them).
 */
export async function bundleMany(entries, outbase, outdir, extension) {
  await build({ ...common, entryPoints: entries, outbase, outdir, outExtension: { ".js": extension } });
}
