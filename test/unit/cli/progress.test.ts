// The long commands' progress (src/cli/progress.ts): a bar redrawn in place on a terminal, at
// most progressRedrawsPerSecondMax times a second and cleared at the end; plain lines, every
// progressLineIntervalMs, anywhere else. A stand-in stream and a manual clock: no sleeping.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  progress,
  progressBarCharsMax,
  progressLine,
  progressLineIntervalMs,
  progressRedrawsPerSecondMax,
  withProgress,
} from "../../../src/cli/progress.js";
import { ManualClock } from "../../helpers/manualClock.js";

function fakeStream(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, ...(columns === undefined ? {} : { columns }), write: (text: string) => writes.push(text) } };
}

const redrawMs = 1000 / progressRedrawsPerSecondMax;

describe("progress on a terminal", () => {
  it("draws the first update at once, then at most once per redraw interval", async () => {
    const clock = new ManualClock();
    const { writes, stream } = fakeStream(true);
    const bar = progress("export", { stream, now: () => clock.now() });
    bar.update(1, 100);
    assert.equal(writes.length, 1);
    for (let done = 2; done <= 50; done++) bar.update(done, 100);
    assert.equal(writes.length, 1, "no redraw before the interval is over");
    await clock.advance(redrawMs - 1);
    bar.update(51, 100);
    assert.equal(writes.length, 1);
    await clock.advance(1);
    bar.update(52, 100);
    assert.equal(writes.length, 2);
    assert.ok(writes.every((w) => w.startsWith("\r") && w.endsWith("\x1b[K")), "each draw overwrites the line in place");
  });

  it("shows done/total, the percentage, the rate and the time left", async () => {
    const clock = new ManualClock();
    const { writes, stream } = fakeStream(true, 120);
    const bar = progress("verify-chain", { stream, now: () => clock.now() });
    bar.update(0, 1000);
    await clock.advance(2_000);
    bar.update(500, 1000);
    assert.equal(writes[1], `\r${progressLine("verify-chain", 500, 1000, 250, 120)}\x1b[K`);
    assert.match(writes[1]!, /verify-chain \[#{15}\.{15}\] 500\/1000 {2}50% {2}250\/s {2}0:02 left/);
  });

  it("takes 80 columns from a terminal of 0 columns (a pty never sized)", () => {
    const { writes, stream } = fakeStream(true, 0);
    progress("export", { stream, now: () => 0 }).update(1, 4);
    assert.equal(writes[0], `\r${progressLine("export", 1, 4, null, 80)}\x1b[K`);
  });

  it("clears its line when finished, and writes nothing at the end if it never drew", () => {
    const drawn = fakeStream(true);
    const bar = progress("import", { stream: drawn.stream, now: () => 0 });
    bar.update(1, 2);
    bar.finish();
    assert.equal(drawn.writes.at(-1), "\r\x1b[K");
    const idle = fakeStream(true);
    progress("import", { stream: idle.stream, now: () => 0 }).finish();
    assert.deepEqual(idle.writes, []);
  });

  it("withProgress clears the bar when the work fails too", async () => {
    const { writes, stream } = fakeStream(true);
    const failing = withProgress("migrate-store", async (update) => {
      update(3, 9);
      throw new Error("the database went away");
    }, { stream, now: () => 0 });
    await assert.rejects(failing, /went away/);
    assert.equal(writes.at(-1), "\r\x1b[K");
  });
});

describe("progressLine", () => {
  it("stays one column short of the terminal's width, dropping the bar when narrow", () => {
    const wide = progressLine("export", 1, 3, 10, 200);
    assert.ok(wide.includes(`[${"#".repeat(10)}${".".repeat(progressBarCharsMax - 10)}]`), wide);
    for (const columns of [10, 30, 40, 60, 80]) {
      const line = progressLine("export", 123_456, 999_999, 4321.5, columns);
      assert.ok(line.length <= columns - 1, `${columns}: ${line}`);
    }
    assert.doesNotMatch(progressLine("export", 1, 3, 10, 40), /\[/);
  });

  it("has no rate or time left before a second reading, and hours past an hour", () => {
    assert.equal(progressLine("x", 0, 10, null, 200), `x [${".".repeat(progressBarCharsMax)}] 0/10  0%`);
    assert.match(progressLine("x", 0, 7_200, 1, 200), /2:00:00 left$/);
    assert.match(progressLine("x", 5, 0, null, 200), /5\/0 {2}0%$/, "a total of 0 is no division by zero");
  });
});

describe("progress elsewhere (not a terminal)", () => {
  it("writes a plain line per interval, no escape codes, and nothing at the end", async () => {
    const clock = new ManualClock();
    const { writes, stream } = fakeStream(false);
    const lines = progress("export", { stream, now: () => clock.now() });
    lines.update(1, 10);
    assert.deepEqual(writes, [], "nothing before the first interval");
    await clock.advance(progressLineIntervalMs);
    lines.update(4, 10);
    lines.update(5, 10);
    lines.finish();
    assert.deepEqual(writes, ["export: height 4 of 10\n"]);
  });
});
