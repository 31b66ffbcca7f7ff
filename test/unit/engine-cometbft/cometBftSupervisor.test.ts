// The CometBFT supervisor's stop (engine/cometbft/cometBftSupervisor.ts): SIGTERM, and SIGKILL
// once `cometBftStopTimeoutMs` has passed on the supervisor's clock. A stand-in for CometBFT (a
// Node script run as the binary) notes each signal in its log; the real CometBFT is in
// test/e2e/cometbft/supervised.test.ts.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CometBftSupervisor, cometBftStopTimeoutMs } from "../../../src/engine/cometbft/cometBftSupervisor.js";
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
