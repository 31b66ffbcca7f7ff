// The schema-driven fuzzer (issue 36, "Must hold"): schemathesis, with all of its checks, against
// a started node's own /api/v1/openapi.json. Every request the document allows must be accepted
// or refused as documented, every request it forbids refused, and every answer must validate
// against the document. Its settings are in fuzz/schemathesis.toml (seed, examples per
// operation, the committed values it draws from), what the document says only in words is in
// fuzz/hooks.py. schemathesis comes from the project's venv (test/compat/python/requirements.txt).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { useStartedNode } from "../helpers/startedNode.js";
import { create, keypairOf, transfer } from "../helpers/txFactory.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const fuzzDir = join(root, "test", "e2e", "fuzz");
const configPath = join(fuzzDir, "schemathesis.toml");
const schemathesis = join(root, ".venv", "bin", "schemathesis");
/** A bound on the run, far above its length (about a minute on a busy 2-core machine). */
const runMsMax = 10 * 60_000;

interface Run {
  readonly code: number;
  readonly output: string;
}

/** Runs schemathesis on the node's document; its working folder (Hypothesis' files) is `dir`. */
function runSchemathesis(baseUrl: string, dir: string): Promise<Run> {
  const args = ["--config-file", configPath, "--no-color", "run", `${baseUrl}/api/v1/openapi.json`];
  const env = { ...process.env, SCHEMATHESIS_HOOKS: join(fuzzDir, "hooks.py"), NO_COLOR: "1" };
  const options = { cwd: dir, env, timeout: runMsMax, maxBuffer: 64 * 1024 * 1024 };
  return new Promise((done) => {
    execFile(schemathesis, args, options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      done({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** The report's closing part: operations, phases, failures, test cases, seed. */
const summaryOf = (output: string) => output.slice(Math.max(0, output.lastIndexOf("SUMMARY")));

describe("schemathesis against a started node's OpenAPI document", () => {
  const node = useStartedNode("e2e-fuzz");

  test("finds no failure, with every check", { timeout: runMsMax + 60_000 }, async () => {
    const missing = `${schemathesis} is missing: npm test makes the venv from test/compat/python/requirements.txt`;
    assert.ok(existsSync(schemathesis), missing);
    // Committed data the fuzzer's reads reach: a CREATE, and a TRANSFER of it with metadata.
    const alice = keypairOf("fuzz-alice");
    const bob = keypairOf("fuzz-bob");
    const tx = create(alice, 3n, { kind: "car" });
    const toBob = [{ publicKeys: [bob.publicKey], amount: 3n }];
    const moved = transfer([{ tx, outputIndex: 0 }], [alice], toBob, { note: "fuzz" });
    for (const body of [tx, moved]) {
      const response = await fetch(`${node().baseUrl}/api/v1/transactions?mode=commit`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      assert.equal(response.status, 202, await response.text());
    }
    // The config's values are these (they are deterministic: fixed keys, fixed data).
    const config = readFileSync(configPath, "utf8");
    for (const value of [tx["id"], moved["id"], alice.publicKey, bob.publicKey] as string[]) {
      assert.ok(config.includes(`"${value}"`), `${configPath} does not name ${value}`);
    }

    const dir = mkdtempSync(join(tmpdir(), "ledgerd-fuzz-"));
    try {
      const run = await runSchemathesis(node().baseUrl, dir);
      console.log(summaryOf(run.output));
      assert.equal(run.code, 0, `schemathesis found failures (exit ${run.code}):\n${run.output}`);
      const selected = /Selected: (\d+)\/\d+/.exec(run.output)?.[1];
      assert.ok(selected !== undefined && Number(selected) > 20, run.output);
      assert.match(run.output, new RegExp(`Tested: ${selected}\\b`), "every operation was tested");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
