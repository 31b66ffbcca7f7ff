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

  it("are this process's own, in order, with tsx's loader added in front and taken off again", () => {
    // npm test runs the file from its bundle, without tsx: the loader is added here so that
    // the check holds either way.
    const own = process.execArgv.filter((flag, i, all) => !/^tsx(\/|$)/.test(flag) && !/=tsx/.test(flag) && !(/^--(import|require|loader)$/.test(flag) && /^tsx(\/|$)/.test(all[i + 1] ?? "")));
    assert.deepEqual(withoutTsx(["--import", "tsx", ...process.execArgv, "--stack-size=900"]), [...own, "--stack-size=900"]);
  });
});
