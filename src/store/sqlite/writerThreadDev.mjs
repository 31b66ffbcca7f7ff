// Runs the writer thread from TypeScript sources (tests, benchmarks under tsx): a worker thread
// does not inherit tsx's loader, so register it here first. Built code never loads this file.
import { register } from "tsx/esm/api";

register();
await import("./writerThread.ts");
