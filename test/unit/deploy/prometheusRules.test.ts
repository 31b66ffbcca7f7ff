// deploy/prometheus: the alert and recording rules pass `promtool check rules`, and their unit
// tests (ledgerd-alerts.test.yml) pass `promtool test rules`, with promtool from
// scripts/install-promtool.sh. Every alert has a test in which it fires, and the tests bite: a
// rule changed in a copy fails them.
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { installGoTools, runBinary } from "../../helpers/goTools.js";
import { repoRoot } from "../cli/ledgerdProcess.js";

const rulesDir = join(repoRoot, "deploy/prometheus");
const rulesFile = join(rulesDir, "ledgerd-alerts.yml");
const testsFile = join(rulesDir, "ledgerd-alerts.test.yml");

/** The alerts the rules define. */
function alertNames(rules: string): string[] {
  return [...rules.matchAll(/^\s*- alert: (\S+)$/gm)].map((m) => m[1]!);
}

describe("Prometheus rules (promtool)", () => {
  let promtool: string;
  const scratch = mkdtempSync(join(tmpdir(), "ledgerd-rules-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  before(() => {
    promtool = installGoTools("scripts/install-promtool.sh")[0]!;
  });

  it("promtool check rules: every rule is valid", async () => {
    const checked = await runBinary(promtool, ["check", "rules", rulesFile]);
    assert.equal(checked.status, 0, checked.out);
    assert.match(checked.out, /SUCCESS: \d+ rules found/);
  });

  it("promtool test rules: every unit test passes", async () => {
    const tested = await runBinary(promtool, ["test", "rules", testsFile]);
    assert.equal(tested.status, 0, tested.out);
    assert.match(tested.out, /SUCCESS/);
  });

  it("every alert has a test in which it fires", () => {
    const tests = readFileSync(testsFile, "utf8");
    const firing = new Set<string>();
    for (const block of tests.split(/^\s*- eval_time: /m).slice(1)) {
      const name = /^\s*alertname: (\S+)$/m.exec(block)?.[1];
      if (name !== undefined && /exp_labels:/.test(block)) firing.add(name);
    }
    const alerts = alertNames(readFileSync(rulesFile, "utf8"));
    assert.ok(alerts.length >= 10, alerts.join(", "));
    assert.deepEqual(alerts.filter((name) => !firing.has(name)), []);
  });

  it("the tests bite: a rule changed in a copy fails them", async () => {
    const rules = readFileSync(rulesFile, "utf8");
    const changed = rules.replace("expr: ledgerd_ready == 0", "expr: ledgerd_ready == 2");
    assert.notEqual(changed, rules);
    writeFileSync(join(scratch, "ledgerd-alerts.yml"), changed);
    copyFileSync(testsFile, join(scratch, "ledgerd-alerts.test.yml"));
    const tested = await runBinary(promtool, ["test", "rules", join(scratch, "ledgerd-alerts.test.yml")]);
    assert.notEqual(tested.status, 0);
    assert.match(tested.out, /alertname: LedgerdNotReady/);
  });
});
