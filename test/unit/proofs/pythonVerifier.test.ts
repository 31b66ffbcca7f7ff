// The Python package (clients/python) held to the TypeScript verifier by the shared vectors
// (test/vectors/proofs/verifier-vectors.json): every valid proof and checkpoint accepted and
// every broken one refused by both, with the same reason, and the package's own unittest suite.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { tsVerdict, type VectorCase } from "../../vectors/proofs/tsVerdict.js";

const vectorsPath = fileURLToPath(new URL("../../vectors/proofs/verifier-vectors.json", import.meta.url));
const packageDir = fileURLToPath(new URL("../../../clients/python", import.meta.url));
const { cases } = JSON.parse(readFileSync(vectorsPath, "utf8")) as { cases: VectorCase[] };

/** Runs `python3 args` in the package's folder (its sources on the path, as a checkout has them). */
function python(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync("python3", args, { cwd: packageDir, encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  if (run.error !== undefined) throw run.error;
  return run;
}

describe("the Python verifier against the TypeScript one (shared vectors)", () => {
  it("holds a valid and a broken case of every kind", () => {
    for (const kind of ["transaction_proof", "consistency_proof", "transaction", "checkpoint"]) {
      assert.ok(cases.some((c) => c.kind === kind && c.expect.ok), `a valid ${kind}`);
      assert.ok(cases.some((c) => c.kind === kind && !c.expect.ok), `a broken ${kind}`);
    }
    assert.ok(cases.some((c) => "validators" in c && c.expect.ok), "a proof signed by CometBFT's validators");
    assert.ok(cases.some((c) => "trust" in c && c.expect.ok), "a proof followed from a genesis through set changes");
  });

  it("the TypeScript verifier gives each case its recorded verdict", async () => {
    for (const c of cases) assert.deepEqual(await tsVerdict(c), c.expect, c.name);
  });

  it("the Python verifier gives each case the same verdict and reason", () => {
    const run = python(["-m", "ledgerd_client.vectors", vectorsPath]);
    const verdicts = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { name: string; ok: boolean; reason: string });
    assert.equal(verdicts.length, cases.length, run.stderr);
    cases.forEach((c, i) => assert.deepEqual(verdicts[i], { name: c.name, ...c.expect }, c.name));
    assert.equal(run.status, 0, run.stderr);
  });

  it("the Python verifier's exit status tells a verdict that differs from the expected one", () => {
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-vectors-"));
    try {
      const valid = cases.find((c) => c.expect.ok)!;
      const file = join(dir, "flipped.json");
      writeFileSync(file, JSON.stringify({ cases: [{ ...valid, expect: { ok: false, reason: "made up" } }] }));
      assert.equal(python(["-m", "ledgerd_client.vectors", file]).status, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes the package's own unittest suite", () => {
    const run = python(["-m", "unittest", "discover", "-s", "tests", "-t", "."]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /^OK/m);
  });
});
