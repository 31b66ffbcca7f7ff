// A node's whole clock moved, for the clock-skew test and the chaos run's `clock-skew` fault
// (docs/faults.md, "Clock skew"): its CometBFT is the test-only clock-offset build
// (scripts/build-cometbft-variant.sh: Go's time.Now moved by CMT_CLOCK_OFFSET; libfaketime cannot
// reach a Go program), its ledgerd runs under libfaketime.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NodeLaunch, TestnetNode } from "../../src/testnet/testnet.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));

/** What moves a node's clock: the variant CometBFT's path and libfaketime's. */
export interface ClockTools {
  readonly cometbft: string;
  readonly fakeTimeLibrary: string;
}

/**
 * The clock-offset CometBFT, built on first use (minutes; then kept in .cache), and Debian's
 * libfaketime (package faketime); throws saying which is missing.
 */
export function clockTools(): ClockTools {
  const result = spawnSync("bash", [join(repo, "scripts", "build-cometbft-variant.sh"), "clock-offset"], {
    encoding: "utf8", stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) throw new Error("scripts/build-cometbft-variant.sh clock-offset failed");
  const cometbft = result.stdout.trim().split("\n").at(-1)!;
  return { cometbft, fakeTimeLibrary: findFakeTimeLibrary() };
}

/** Debian's libfaketime, under its architecture's library folder. */
function findFakeTimeLibrary(): string {
  for (const arch of readdirSync("/usr/lib")) {
    const path = join("/usr/lib", arch, "faketime", "libfaketime.so.1");
    if (existsSync(path)) return path;
  }
  throw new Error("libfaketime is missing: apt-get install -y faketime (npm test installs it as root)");
}

/** libfaketime moves the wall clock only: Node's timers (the monotonic clock) run as they should. */
export function fakeTimeEnv(tools: ClockTools, offset: string): Record<string, string> {
  return { LD_PRELOAD: tools.fakeTimeLibrary, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: "1" };
}

/** A node's launch with both clocks moved: `go` a Go duration ("3m", "-30s"), `faketime` "+180s". */
export function skewedLaunch(tools: ClockTools, go: string, faketime: string): NodeLaunch {
  const env = { cometbft: { CMT_CLOCK_OFFSET: go }, ledgerd: fakeTimeEnv(tools, faketime) };
  return { cometbft: tools.cometbft, env };
}

/**
 * Moves the (one) genesis time of every node back by `ageMs`, before the first start: a CometBFT
 * whose clock reads before the genesis time sleeps until then before it starts (node.go OnStart).
 */
export function ageGenesis(root: string, nodes: readonly TestnetNode[], ageMs: number): void {
  const time = new Date(Date.now() - ageMs).toISOString();
  for (const node of nodes) {
    const path = join(root, node.home, "config", "genesis.json");
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace(/"genesis_time": "[^"]*"/, `"genesis_time": "${time}"`));
  }
}
