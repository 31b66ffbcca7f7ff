// The boundary check of `npm test` (`npm run lint:deps`: dependency-cruiser with
// .dependency-cruiser.cjs) passes on the real tree and fails on a copy of it with one planted
// violation of each rule: a check that cannot fail proves nothing.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));

/** The arguments of the `lint:deps` script, run with the package's own depcruise binary. */
function lintDepsArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const script = pkg.scripts["lint:deps"] ?? "";
  const [command, ...args] = script.split(/\s+/);
  assert.equal(command, "depcruise", `lint:deps runs depcruise (got ${JSON.stringify(script)})`);
  return args;
}

interface Violation {
  readonly rule: string;
  readonly from: string;
}

/** Runs the check in `root`; its exit status and the violations its report names. */
function lintDeps(root: string): { status: number | null; violations: Violation[]; output: string } {
  const bin = join(repo, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
  const result = spawnSync(process.execPath, [bin, ...lintDepsArgs()], { cwd: root, encoding: "utf8" });
  const output = `${result.stdout}${result.stderr}`;
  const violations = [...output.matchAll(/^\s*error ([\w-]+): (\S+)/gm)].map((m) => ({
    rule: m[1] ?? "",
    from: m[2] ?? "",
  }));
  return { status: result.status, violations, output };
}

/** Writes `text` to `root/path`, making its folder. */
function plant(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("the boundary check (npm run lint:deps)", () => {
  // This is where `npm test` runs lint:deps on the tree: not before the tests as well, where a
  // second run cost the prelude, which nothing runs beside, ~5 s.
  it("passes on the real tree", () => {
    const { status, output } = lintDeps(repo);
    assert.equal(status, 0, output);
  });

  describe("on a copy of the tree with planted violations", () => {
    let root = "";
    let result: ReturnType<typeof lintDeps>;

    before(() => {
      root = mkdtempSync(join(tmpdir(), "ledgerd-boundaries-"));
      cpSync(join(repo, "src"), join(root, "src"), { recursive: true });
      for (const file of [".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) {
        cpSync(join(repo, file), join(root, file));
      }
      symlinkSync(join(repo, "node_modules"), join(root, "node_modules"), "dir");
      // Targets of our own, so the plants do not depend on which files the tree holds today.
      for (const folder of ["store", "ledger", "ledger/kinds", "engine", "http", "events", "node", "tools", "cli"]) {
        plant(root, `src/${folder}/plantedTarget.ts`, "export const target = 1;\n");
      }
      plant(root, "src/json/plantedOurs.ts", 'export { target } from "../store/plantedTarget.js";\n');
      plant(root, "src/transaction/plantedFs.ts", 'export { readFileSync } from "node:fs";\n');
      plant(root, "src/legacy/plantedNet.ts", 'export { connect } from "node:net";\n');
      plant(root, "src/crypto-conditions/plantedSqlite.ts", 'export { default } from "better-sqlite3";\n');
      plant(root, "src/crypto-conditions/plantedEngine.ts", 'export { target } from "../engine/plantedTarget.js";\n');
      plant(root, "src/store/plantedLedger.ts", 'export { target } from "../ledger/plantedTarget.js";\n');
      plant(root, "src/store/plantedHttp.ts", 'export { target } from "../http/plantedTarget.js";\n');
      // errors/ -> events/ closes a cycle with the real events/ -> errors/ imports.
      plant(root, "src/errors/plantedUp.ts", 'export { target } from "../events/plantedTarget.js";\n');
      plant(root, "src/http/plantedCycleA.ts", 'import { b } from "./plantedCycleB.js";\nexport const a = () => b;\n');
      plant(root, "src/http/plantedCycleB.ts", 'import { a } from "./plantedCycleA.js";\nexport const b = () => a;\n');
      plant(root, "src/http/plantedMissing.ts", 'export { nothing } from "./nothingHere.js";\n');
      // A cycle closed only by types.
      plant(root, "src/store/plantedTypeA.ts", 'import type { B } from "./plantedTypeB.js";\nexport interface A { b?: B }\n');
      plant(root, "src/store/plantedTypeB.ts", 'import type { A } from "./plantedTypeA.js";\nexport interface B { a?: A }\n');
      // The layers: each reaches up or sideways once.
      for (const upper of ["engine", "http", "events", "node"]) {
        plant(root, `src/ledger/planted${upper}.ts`, `export { target } from "../${upper}/plantedTarget.js";\n`);
      }
      for (const upper of ["http", "events"]) {
        plant(root, `src/engine/planted${upper}.ts`, `export { target } from "../${upper}/plantedTarget.js";\n`);
      }
      plant(root, "src/events/plantedHttp.ts", 'export { target } from "../http/plantedTarget.js";\n');
      plant(root, "src/http/plantedEvents.ts", 'export { target } from "../events/plantedTarget.js";\n');
      plant(root, "src/metrics/plantedHttp.ts", 'export { target } from "../http/plantedTarget.js";\n');
      plant(root, "src/http/plantedNode.ts", 'export { target } from "../node/plantedTarget.js";\n');
      plant(root, "src/node/plantedTools.ts", 'export { target } from "../tools/plantedTarget.js";\n');
      plant(root, "src/tools/plantedCli.ts", 'export { target } from "../cli/plantedTarget.js";\n');
      plant(root, "src/httpWire/plantedHttp.ts", 'export { target } from "../http/plantedTarget.js";\n');
      plant(root, "src/http/plantedKind.ts", 'export { target } from "../ledger/kinds/plantedTarget.js";\n');
      plant(root, "src/config/plantedEngine.ts", 'export { target } from "../engine/plantedTarget.js";\n');
      plant(root, "src/events/plantedOptions/options.ts", 'export { target } from "../plantedTarget.js";\n');
      plant(root, "src/engine/plantedOptions/options.ts", 'export { spawn } from "node:child_process";\n');
      result = lintDeps(root);
    });

    after(() => rmSync(root, { recursive: true, force: true }));

    it("exits non-zero", () => {
      assert.notEqual(result.status, 0, result.output);
    });

    const expected: readonly Violation[] = [
      { rule: "json-imports-nothing-of-ours", from: "src/json/plantedOurs.ts" },
      { rule: "pure-imports-no-io-folder", from: "src/json/plantedOurs.ts" },
      { rule: "pure-imports-no-io-module", from: "src/transaction/plantedFs.ts" },
      { rule: "pure-imports-no-io-module", from: "src/legacy/plantedNet.ts" },
      { rule: "pure-imports-no-io-module", from: "src/crypto-conditions/plantedSqlite.ts" },
      { rule: "pure-imports-no-io-folder", from: "src/crypto-conditions/plantedEngine.ts" },
      { rule: "store-imports-no-upper-layer", from: "src/store/plantedLedger.ts" },
      { rule: "store-imports-no-upper-layer", from: "src/store/plantedHttp.ts" },
      { rule: "no-folder-cycle", from: "src/errors" },
      { rule: "no-module-cycle", from: "src/http/plantedCycleA.ts" },
      { rule: "no-module-cycle", from: "src/store/plantedTypeA.ts" },
      { rule: "not-to-unresolvable", from: "src/http/plantedMissing.ts" },
      { rule: "ledger-imports-no-upper-layer", from: "src/ledger/plantedengine.ts" },
      { rule: "ledger-imports-no-upper-layer", from: "src/ledger/plantedhttp.ts" },
      { rule: "ledger-imports-no-upper-layer", from: "src/ledger/plantedevents.ts" },
      { rule: "ledger-imports-no-upper-layer", from: "src/ledger/plantednode.ts" },
      { rule: "engine-imports-no-upper-layer", from: "src/engine/plantedhttp.ts" },
      { rule: "engine-imports-no-upper-layer", from: "src/engine/plantedevents.ts" },
      { rule: "servers-import-no-other-server", from: "src/events/plantedHttp.ts" },
      { rule: "servers-import-no-other-server", from: "src/http/plantedEvents.ts" },
      { rule: "servers-import-no-other-server", from: "src/metrics/plantedHttp.ts" },
      { rule: "servers-import-no-root", from: "src/http/plantedNode.ts" },
      { rule: "node-imports-no-tool", from: "src/node/plantedTools.ts" },
      { rule: "tools-import-no-command", from: "src/tools/plantedCli.ts" },
      { rule: "httpWire-imports-only-the-ground-floor", from: "src/httpWire/plantedHttp.ts" },
      { rule: "http-reads-no-ledger-kind", from: "src/http/plantedKind.ts" },
      { rule: "config-reads-only-options", from: "src/config/plantedEngine.ts" },
      { rule: "options-are-plain-data", from: "src/events/plantedOptions/options.ts" },
      { rule: "options-are-plain-data", from: "src/engine/plantedOptions/options.ts" },
    ];

    it("plants a violation of every rule of the configuration", () => {
      const config = createRequire(import.meta.url)(join(repo, ".dependency-cruiser.cjs")) as {
        forbidden: { name: string }[];
      };
      const planted = new Set(expected.map((v) => v.rule));
      assert.deepEqual(config.forbidden.map((r) => r.name).filter((name) => !planted.has(name)), []);
    });
    for (const violation of expected) {
      it(`reports ${violation.rule} from ${violation.from}`, () => {
        const found = result.violations.some((v) => v.rule === violation.rule && v.from === violation.from);
        assert.ok(found, result.output);
      });
    }

    it("reports nothing in the real files (every violation comes from a plant)", () => {
      const real = result.violations.filter(
        (v) => !v.from.includes("planted") && v.rule !== "no-folder-cycle",
      );
      assert.deepEqual(real, [], result.output);
    });
  });
});
