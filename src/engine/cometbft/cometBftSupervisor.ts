// CometBFT run by the node itself (`engine.cometbft_home`): one service per machine. ledgerd
// starts it once its ABCI server listens (CometBFT's handshake needs the app), stops it first on
// shutdown (it stops calling the app), and stops itself if CometBFT exits on its own, so that a
// service manager restarts both, in the right order. CometBFT's output goes to a file in the
// data folder, not into ledgerd's log.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sleepOn, systemClock, type Clock } from "../../clock/clock.js";

/** CometBFT's output, in the node's data folder. */
export const cometBftLogName = "cometbft.log";

/** How much of the end of CometBFT's output is searched for the error it exited with. */
export const exitReasonBytesMax = 16 * 1024;

/** How long CometBFT gets to stop after SIGTERM before SIGKILL. */
export const cometBftStopTimeoutMs = 10_000;

/** CometBFT's pid while it runs, in the node's data folder, so that a later start finds a leftover. */
export const cometBftPidName = "cometbft.pid";

/** How long a start waits for a leftover CometBFT to be gone after SIGKILL. */
export const leftoverGoneTimeoutMs = 10_000;
const leftoverPollMs = 20;

export interface CometBftSupervisorDeps {
  /** Where CometBFT's output goes (appended). */
  readonly logPath: string;
  /** Where its pid is kept while it runs (see `stopLeftover`); none if absent. */
  readonly pidPath?: string;
  /** CometBFT exited while the node did not ask it to. */
  readonly onUnexpectedExit: (error: Error) => void;
  /** The SIGKILL's timer runs on it; Node's timers by default. */
  readonly clock?: Clock;
}

export class CometBftSupervisor {
  #stopping = false;
  readonly #exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly clock: Clock,
  ) {
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
  }

  /** Starts `binary start --home home`; resolves once the process runs. */
  static async start(binary: string, home: string, deps: CometBftSupervisorDeps): Promise<CometBftSupervisor> {
    if (deps.pidPath !== undefined) await stopLeftover(deps.pidPath, home, deps.clock ?? systemClock);
    const log = openSync(deps.logPath, "a");
    let child: ChildProcess;
    try {
      child = spawn(binary, ["start", "--home", home], { stdio: ["ignore", log, log] });
    } finally {
      closeSync(log);
    }
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) => reject(new Error(`CometBFT (${binary}) did not start: ${error.message}`)));
    });
    const supervisor = new CometBftSupervisor(child, deps.clock ?? systemClock);
    const pidPath = deps.pidPath;
    if (pidPath !== undefined && child.pid !== undefined) writeFileSync(pidPath, `${child.pid}\n`);
    child.once("exit", (code, signal) => {
      if (pidPath !== undefined) rmSync(pidPath, { force: true });
      if (supervisor.#stopping) return;
      const how = signal ?? `code ${String(code)}`;
      const reason = exitReason(deps.logPath);
      const said = reason === null ? "" : `: ${reason}`;
      deps.onUnexpectedExit(new Error(`CometBFT exited by itself (${how})${said}; its output is in ${deps.logPath}`));
    });
    return supervisor;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGTERM, then SIGKILL after cometBftStopTimeoutMs; resolves when it has exited. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = this.clock.setTimeout(() => this.child.kill("SIGKILL"), cometBftStopTimeoutMs);
    await this.#exited;
    this.clock.clearTimeout(timer);
  }
}

/**
 * A CometBFT started by an earlier ledgerd of this data folder that is still running: that ledgerd
 * was killed (SIGKILL reaches no child), and its CometBFT, which never reconnects to an app,
 * usually exits by itself but can hang in its shutdown (cometbft/cometbft#4054). Left alone it
 * holds the ports the new one needs. It is killed (its write-ahead log is made for that) if its
 * command line still names this home; a pid reused by another program is left alone.
 */
export async function stopLeftover(pidPath: string, home: string, clock: Clock): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(pidPath, "utf8").trim());
  } catch {
    return;
  }
  if (Number.isSafeInteger(pid) && pid > 0 && runsWithHome(pid, home)) {
    process.kill(pid, "SIGKILL");
    const deadline = clock.now() + leftoverGoneTimeoutMs;
    while (runsWithHome(pid, home)) {
      if (clock.now() > deadline) throw new Error(`a CometBFT left running (pid ${pid}) with home ${home} did not stop after SIGKILL`);
      await sleepOn(clock, leftoverPollMs);
    }
  }
  rmSync(pidPath, { force: true });
}

/** Whether `pid` runs and its command line names `home` (not where /proc cannot tell). */
function runsWithHome(pid: number, home: string): boolean {
  return isRunning(pid) && (commandLineOf(pid)?.includes(home) ?? false);
}

/** Whether a process `pid` runs: it exists (ours to signal or not) and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** A process's arguments from /proc; null where /proc cannot tell (no such pid, not Linux). */
export function commandLineOf(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return null;
  }
}

/**
 * The line CometBFT ended its output with when it refused to run (`ERROR: ...`, a Go `panic:`):
 * what an operator needs in the node's own log. A handshake that finds the ledger ahead of
 * CometBFT's data ends this way ("app block height (7) is higher than core (4)", measured with
 * v0.38); ledgerd signs nothing without CometBFT, and stops.
 */
export function exitReason(logPath: string): string | null {
  let text: string;
  try {
    const fd = openSync(logPath, "r");
    try {
      const size = fstatSync(fd).size;
      const tail = Buffer.alloc(Math.min(size, exitReasonBytesMax));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      text = tail.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  const lines = text.split("\n").map((line) => line.trim());
  const last = lines.reverse().find((line) => line.startsWith("ERROR:") || line.startsWith("panic:"));
  return last ?? null;
}

/** The folder of ledgerd's package.json (from src/ under tsx, dist/src/ once built). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("ledgerd's package.json was not found");
    dir = parent;
  }
  return dir;
}

/** `.cache/bin/cometbft` as `scripts/install-cometbft.sh` installs it, else PATH's `cometbft`. */
export function defaultCometBftBinary(): string {
  const local = join(packageRoot(), ".cache", "bin", "cometbft");
  return existsSync(local) ? local : "cometbft";
}
