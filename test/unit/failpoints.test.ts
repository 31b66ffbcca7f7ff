// The failpoints (src/failpoints.ts): the variable's form, and a process killed by SIGKILL the
// count-th time an armed place is reached, after one line on stderr; not before, and never
// when nothing is armed. In child processes: the variable is read once, when the module loads.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { failpointsEnv, parseFailpoints } from "../../src/failpoints.js";
import { cleanEnv, repoRoot } from "./cli/ledgerdProcess.js";

const moduleUrl = new URL("../../src/failpoints.ts", import.meta.url).href;

/** A process that reaches "backup.mid" `times` times, then prints "survived". */
function reach(times: number, armed: string | undefined) {
  const script = `const { failpoint } = await import(${JSON.stringify(moduleUrl)});
for (let i = 0; i < ${times}; i++) failpoint("backup.mid");
console.log("survived");`;
  return spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
    cwd: repoRoot,
    env: cleanEnv(armed === undefined ? {} : { [failpointsEnv]: armed }),
    encoding: "utf8",
  });
}

describe("failpoints", () => {
  it("reads name[=count],... and refuses an unknown name or a bad count", () => {
    assert.equal(parseFailpoints(undefined), null);
    assert.equal(parseFailpoints(" "), null);
    assert.deepEqual([...parseFailpoints("finalize.mid,backup.mid=3")!], [["finalize.mid", 1], ["backup.mid", 3]]);
    assert.throws(() => parseFailpoints("finalize.end"), /no failpoint finalize.end/);
    assert.throws(() => parseFailpoints("backup.mid=0"), /count 0 is not a positive integer/);
  });

  it("kills the process with SIGKILL at the count-th reach, after one line on stderr", () => {
    const killed = reach(3, "backup.mid=3");
    assert.equal(killed.signal, "SIGKILL");
    assert.equal(killed.stderr, "failpoint backup.mid: SIGKILL\n");
    assert.equal(killed.stdout, "");
  });

  it("lets the process go on below the count, for another place, and when nothing is armed", () => {
    for (const armed of ["backup.mid=4", "finalize.mid", undefined]) {
      const run = reach(3, armed);
      assert.equal(run.status, 0, `${armed}: ${run.stderr}`);
      assert.equal(run.stdout, "survived\n");
    }
  });
});
