// `ledgerd verify` (docs/proofs.md) as a script sees it: exit 1 when a proof does not hold, 2 when
// it could not be checked (as cmp and diff), so that the two are told apart. A proof that holds
// (exit 0) is checked against a real CometBFT network in test/e2e/cometbft/proofs.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { syntheticChain, syntheticGenesisTime } from "../../helpers/syntheticChain.js";
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

  it("--genesis with --validator-changes: follows the set to the proof; FAIL without the changes or past --trust-period", () => {
    const chain = syntheticChain(2);
    const proof = file("across.json", JSON.stringify(chain.proof));
    const genesis = file("genesis.json", JSON.stringify(chain.genesis));
    const saved = { version: 1, chain_id: chain.genesis.chain_id, from_height: 1, to_height: 31, light_blocks: chain.lightBlocks, next_from_height: null };
    const changes = file("changes.json", JSON.stringify(saved));
    const ok = runLedgerd(["verify", "proof", proof, "--genesis", genesis, "--validator-changes", changes]);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^ok transaction .* signed by validator set [0-9A-F]{64} at height 31, followed through 2 set change\(s\) from the trusted set [0-9A-F]{64} of height 1/);
    const without = runLedgerd(["verify", "proof", proof, "--genesis", genesis]);
    assert.equal(without.status, 1, without.stdout + without.stderr);
    assert.match(without.stdout, /^FAIL .*give the changes up to height 31/);
    // The synthetic genesis is of 2026-01-01: a trust period of a day has long passed by now.
    assert.ok(Date.now() - Date.parse(syntheticGenesisTime) > 86_400_000);
    const stale = runLedgerd(["verify", "proof", proof, "--genesis", genesis, "--validator-changes", changes, "--trust-period", "1d"]);
    assert.equal(stale.status, 1, stale.stdout + stale.stderr);
    assert.match(stale.stdout, /^FAIL the trusted header of height 0 is older than the trust period/);
    // The same root given as a height and a set.
    const set = file("set.json", JSON.stringify(chain.genesis.validators));
    const byHeight = runLedgerd(["verify", "proof", proof, "--trusted-height", "1", "--trusted-validators", set, "--chain-id", chain.genesis.chain_id, "--validator-changes", changes]);
    assert.equal(byHeight.status, 0, byHeight.stdout + byHeight.stderr);
    for (const args of [["--trust-period", "soon"], ["--trusted-height", "1"], ["--node", "http://127.0.0.1:1"]]) {
      const run = runLedgerd(["verify", "proof", proof, ...(args[0] === "--node" ? [] : ["--genesis", genesis]), ...args]);
      assert.equal(run.status, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
    }
  });
});
