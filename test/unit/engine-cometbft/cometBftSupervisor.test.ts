// The CometBFT supervisor's stop (engine/cometbft/cometBftSupervisor.ts): SIGTERM, and SIGKILL
// once `cometBftStopTimeoutMs` has passed on the supervisor's clock. A stand-in for CometBFT (a
// Node script run as the binary) notes each signal in its log; the real CometBFT is in
// test/e2e/cometbft/supervised.test.ts.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { CometBftSupervisor, cometBftStopTimeoutMs, stopLeftover } from "../../../src/engine/cometbft/cometBftSupervisor.js";
import { systemClock } from "../../../src/clock/clock.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { waitFor } from "../../helpers/waitFor.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-supervisor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A CometBFT that logs "up", then each SIGTERM, and exits on one only if `obeys`. */
function standIn(name: string, obeys: boolean): string {
  const path = join(dir, name);
  const onTerm = obeys ? "process.exit(0)" : "undefined";
  writeFileSync(
    path,
    `#!${process.execPath}\n` +
      `process.on("SIGTERM", () => { require("node:fs").writeSync(1, "TERM\\n"); ${onTerm}; });\n` +
      `require("node:fs").writeSync(1, "up\\n");\n` +
      `setInterval(() => undefined, 1_000);\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

async function started(binary: string, clock: ManualClock): Promise<{ supervisor: CometBftSupervisor; log: () => string }> {
  const logPath = join(dir, `${binary.split("/").pop()}.log`);
  const onUnexpectedExit = (error: Error): void => assert.fail(error);
  const supervisor = await CometBftSupervisor.start(binary, dir, { logPath, onUnexpectedExit, clock });
  const log = (): string => readFileSync(logPath, "utf8");
  await waitFor("the stand-in to run", () => log().includes("up"));
  return { supervisor, log };
}

describe("CometBftSupervisor.stop", () => {
  it("sends SIGKILL to a CometBFT that ignores SIGTERM once the stop timeout has passed on its clock", async () => {
    const clock = new ManualClock();
    const { supervisor, log } = await started(standIn("stubborn", false), clock);
    let stopped = false;
    const stopping = supervisor.stop().then(() => (stopped = true));
    await waitFor("the stand-in to get SIGTERM", () => log().includes("TERM"));
    assert.equal(clock.pending, 1, "the SIGKILL's timer is set on the clock");
    await clock.advance(cometBftStopTimeoutMs - 1);
    assert.equal(clock.pending, 1, "SIGKILL before the stop timeout");
    assert.equal(stopped, false);
    await clock.advance(1);
    assert.equal(clock.pending, 0);
    await stopping;
  });

  it("lets a CometBFT that stops on SIGTERM exit, and clears the SIGKILL's timer", async () => {
    const clock = new ManualClock();
    const { supervisor, log } = await started(standIn("obedient", true), clock);
    await supervisor.stop();
    assert.match(log(), /TERM/);
    assert.equal(clock.pending, 0);
  });
});

describe("a CometBFT left running by a killed ledgerd", () => {
  /** A process that ignores SIGTERM and names `home` in its command line, as `cometbft start --home`. */
  const leftover = async (home: string) => {
    const child = spawn("sh", ["-c", "trap '' TERM; echo up; while :; do sleep 0.1; echo tick; done", "cometbft", "--home", home], { stdio: ["ignore", "pipe", "ignore"] });
    await new Promise((resolve) => child.stdout.once("data", resolve));
    const exited = new Promise<string | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    return { child, exited };
  };

  it("is killed at the next start when the pid file names it with this home, and the pid file goes", async () => {
    const home = join(dir, "home-a");
    const pidPath = join(dir, "a.pid");
    const { child, exited } = await leftover(home);
    writeFileSync(pidPath, `${child.pid}\n`);
    await stopLeftover(pidPath, home, systemClock);
    assert.equal(await exited, "SIGKILL");
    assert.equal(existsSync(pidPath), false);
  });

  it("is left alone when the pid now runs something else (another home)", async () => {
    const pidPath = join(dir, "b.pid");
    const { child } = await leftover(join(dir, "home-other"));
    try {
      writeFileSync(pidPath, `${child.pid}\n`);
      await stopLeftover(pidPath, join(dir, "home-b"), systemClock);
      // Alive after it: it still prints (a killed one would exit instead).
      const after = await new Promise<string>((resolve) => {
        child.stdout.once("data", () => resolve("printed"));
        child.once("exit", () => resolve("exited"));
      });
      assert.equal(after, "printed");
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("the supervisor writes the pid file while CometBFT runs and removes it when it exits", async () => {
    const pidPath = join(dir, "c.pid");
    const logPath = join(dir, "c.log");
    const supervisor = await CometBftSupervisor.start(standIn("withpid", true), join(dir, "home-c"), { logPath, pidPath, onUnexpectedExit: (error) => assert.fail(error) });
    assert.equal(readFileSync(pidPath, "utf8").trim(), String(supervisor.pid));
    await supervisor.stop();
    await waitFor("the pid file to go", () => !existsSync(pidPath));
  });
});
