// readBounded (src/ledger/boundedReads.ts): the answers in the items' order whatever order the
// reads end in, no more than the bound running, and no read started after one failed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readBounded } from "../../../src/ledger/boundedReads.js";

describe("readBounded", () => {
  it("answers in the items' order, at most the bound at once", async () => {
    let running = 0;
    let most = 0;
    const pending: (() => void)[] = [];
    const reading = readBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => pending.push(resolve));
      running--;
      return n * 10;
    });
    // Let them end last first, as they can.
    while (running > 0 || pending.length > 0) {
      pending.pop()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await reading, [10, 20, 30, 40, 50, 60, 70]);
    assert.equal(most, 3);
  });

  it("starts no read after one failed, and throws its error", async () => {
    const started: number[] = [];
    const reading = readBounded([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error("read 1 failed");
      return n;
    });
    await assert.rejects(reading, /read 1 failed/);
    // The two begun together ran; none began after the failure.
    assert.deepEqual(started, [1, 2]);
    assert.deepEqual(await readBounded([], 4, async () => 1), []);
  });
});
