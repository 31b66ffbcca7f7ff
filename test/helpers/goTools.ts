// The Go programs the interoperability tests run (docs/transparency.md "Checking ledgerd with
// other tools"): built by their scripts/install-*.sh, run asynchronously, since the node they
// check answers from this process's event loop.
import { execFile, execFileSync } from "node:child_process";

/** Runs scripts/install-NAME.sh; the binaries' paths it prints on its last `count` lines. */
export function installGoTools(script: string, count = 1): string[] {
  const out = execFileSync("bash", [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return out.trim().split("\n").slice(-count);
}

/** Runs `binary` to its end: its exit status (-1 when it had none) and its output, stderr after stdout. */
export function runBinary(binary: string, args: string[]): Promise<{ status: number; out: string }> {
  return new Promise((resolve) => {
    execFile(binary, args, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ status, out: `${stdout}${stderr}` });
    });
  });
}
