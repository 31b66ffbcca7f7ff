// How tests run the `ledgerd` command from sources: node with the bundle of src/cli/main.ts, not
// `--import tsx src/cli/main.ts`, which cost about a second of CPU more in every process (tsx's
// loader resolving hundreds of .ts files; src/workerThread.ts says more). The bundle keeps each
// module's own import.meta.url, so the command finds its files as it does from sources.
// Its stack traces name the bundle's lines: NODE_OPTIONS=--enable-source-maps names the sources'.
import { runnableModule } from "../../src/workerThread.js";

/** node's arguments before a `ledgerd` subcommand (the bundle is made on first use). */
export function ledgerdArgs(): string[] {
  return [runnableModule(new URL("../../src/cli/main.ts", import.meta.url).href, "./main")];
}
