// inBulkLoad (src/store/store.ts): the load is ended whatever the work does, and the work's own
// error is the one thrown, even when ending the load fails too.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inBulkLoad, type BulkLoadOptions } from "../../../src/store/store.js";

/** A store that records its calls; its end fails when told to. */
function recorder(endFails = false) {
  const calls: string[] = [];
  return {
    calls,
    store: {
      beginBulkLoad: async (options?: BulkLoadOptions) => void calls.push(`begin ${JSON.stringify(options)}`),
      endBulkLoad: async () => {
        calls.push("end");
        if (endFails) throw new Error("the end failed");
      },
    },
  };
}

describe("inBulkLoad", () => {
  it("begins with the options, runs the work, ends, and gives the work's result", async () => {
    const { calls, store } = recorder();
    const result = await inBulkLoad(store, { restore: true }, async () => {
      calls.push("work");
      return 7;
    });
    assert.equal(result, 7);
    assert.deepEqual(calls, ['begin {"restore":true}', "work", "end"]);
  });

  it("ends the load when the work fails, and throws the work's error even if the end fails too", async () => {
    for (const endFails of [false, true]) {
      const { calls, store } = recorder(endFails);
      await assert.rejects(inBulkLoad(store, {}, async () => Promise.reject(new Error("the work failed"))), /the work failed/);
      assert.deepEqual(calls, ["begin {}", "end"]);
    }
  });

  it("throws the end's error when the work succeeded", async () => {
    const { store } = recorder(true);
    await assert.rejects(inBulkLoad(store, {}, async () => 1), /the end failed/);
  });
});
