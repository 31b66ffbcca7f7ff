// `ledgerd verify` (docs/proofs.md) as a script sees it: exit 1 when a proof does not hold, 2 when
// it could not be checked (as cmp and diff), so that the two are told apart. A proof that holds
// (exit 0) is checked against a real CometBFT network in test/e2e/cometbft/proofs.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runLedgerd } from "./ledgerdProcess.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-verify-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("ledgerd verify's exit codes", () => {
  it("1 with FAIL and its reason for a proof that does not hold", () => {
    for (const [command, text] of [["proof", "{}"], ["proof", "null"], ["consistency", "[1]"]] as const) {
      const run = runLedgerd(["verify", command, file(`${command}.json`, text)]);
      assert.equal(run.status, 1, `${command} ${text}: ${run.stderr}`);
      assert.match(run.stdout, /^FAIL proof version/);
    }
  });

  it("2 with the reason on standard error when it could not check", () => {
    const proof = file("empty.json", "{}");
    const cases: [string[], RegExp][] = [
      [["verify", "proof", join(dir, "missing.json")], /ledgerd verify: ENOENT/],
      [["verify", "proof", file("not-json.json", "nope")], /ledgerd verify: proof .* is not JSON/],
      [["verify", "proof", proof, "--validators", file("not-a-set.json", '{"x":1}')], /ledgerd verify: no validator list/],
      [["verify", "consistency", proof, "--validators", join(dir, "missing-validators.json")], /ledgerd verify: ENOENT/],
      [["verify", "proof"], /missing required argument/],
      [["verify", "proof", proof, "--no-such-flag"], /unknown option/],
      [["verify"], /Usage: ledgerd verify/],
    ];
    for (const [args, said] of cases) {
      const run = runLedgerd(args);
      assert.equal(run.status, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, said, args.join(" "));
      assert.doesNotMatch(run.stdout, /^(ok|FAIL)/m);
    }
  });

  it("0 for its help", () => {
    const run = runLedgerd(["verify", "proof", "--help"]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Usage: ledgerd verify proof/);
  });
});
