import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../helpers/waitFor.js";

describe("waitFor, the tests' one way to wait", () => {
  it("returns the probe's first value that is not null, undefined or false", async () => {
    let calls = 0;
    const probes: (number | null | undefined | false)[] = [null, undefined, false, 7];
    assert.equal(await waitFor("the fourth probe", () => probes[calls++]), 7);
    assert.equal(calls, 4);
  });

  it("names what it waited for when the bound is exceeded", async () => {
    await assert.rejects(waitFor("the tide", () => false, { timeoutMs: 0 }), /timed out after 0 ms waiting for the tide/);
  });

  it("stops at once when abortIf gives a reason", async () => {
    await assert.rejects(waitFor("the file", () => false, { abortIf: () => "the child ended (1)" }), /^Error: the child ended \(1\) before the file$/);
  });

  it("counts a throwing probe as 'not yet' only with retryErrors", async () => {
    let calls = 0;
    const flaky = () => {
      if (calls++ === 0) throw new Error("404");
      return "found";
    };
    assert.equal(await waitFor("the record", flaky, { retryErrors: true }), "found");
    await assert.rejects(waitFor("the record", () => { throw new Error("404"); }), /404/);
  });
});
