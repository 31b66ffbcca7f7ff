// The SQLite crash test's child process: the store file is argv[2] (crashChild.ts says more).
// An entry of its own, run from a bundle: the bundle keeps each module's import.meta.url, so a
// module cannot tell that it is the one node was asked to run.
import { runCrashChild } from "./crashChild.js";

await runCrashChild(process.argv[2] as string);
