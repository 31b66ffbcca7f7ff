// Worker threads run from sources get the process's flags less tsx's loader (src/workerThread.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutTsx } from "../../src/workerThread.js";

describe("a worker thread's flags", () => {
  it("drop tsx's loader in each of its spellings and keep every other flag", () => {
    assert.deepEqual(withoutTsx(["--import", "tsx", "--enable-source-maps"]), ["--enable-source-maps"]);
    assert.deepEqual(withoutTsx(["--import=tsx", "--max-old-space-size=512"]), ["--max-old-space-size=512"]);
    assert.deepEqual(withoutTsx(["--require", "tsx/cjs", "--loader=tsx/esm", "--cpu-prof"]), ["--cpu-prof"]);
  });

  it("keep another package's loader, even one whose name starts with tsx", () => {
    assert.deepEqual(withoutTsx(["--import", "tsxlike", "--import", "./hooks.mjs"]), ["--import", "tsxlike", "--import", "./hooks.mjs"]);
  });

  it("are those of this process when it runs under tsx, less the loader", () => {
    assert.ok(!withoutTsx(process.execArgv).some((flag) => /tsx/.test(flag)));
  });
});
