// Runs a worker thread from TypeScript sources (tests, benchmarks under tsx): registers tsx's
// loader, which a worker thread does not inherit, then imports the module named by the last
// argument (workerThread.ts). Built code never loads this file.
import { register } from "tsx/esm/api";
import { pathToFileURL } from "node:url";

register();
await import(pathToFileURL(process.argv.at(-1)).href);
