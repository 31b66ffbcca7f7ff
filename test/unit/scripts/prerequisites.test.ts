// What `npm test` does about the programs the suites take from the system (scripts/prerequisites.mjs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { existsSync, readFileSync } from "node:fs";
import { cachedPrograms, planSystemPrograms, pythonVersionMin, pythonVersionProblem, systemPrograms } from "../../../scripts/prerequisites.mjs";

const program = (name: string) => systemPrograms.find((p) => p.program === name)!;
const postgres = [program("initdb"), program("pg_ctl")];
const chromium = program("chromium");

describe("planSystemPrograms", () => {
  it("does nothing when every program is there", () => {
    assert.deepEqual(planSystemPrograms({ missing: [], root: false, aptGet: false, installTried: false }), { kind: "ready" });
  });

  it("installs each missing package once, as root with apt-get", () => {
    const plan = planSystemPrograms({ missing: [...postgres, chromium], root: true, aptGet: true, installTried: false });
    assert.deepEqual(plan, { kind: "install", packages: ["postgresql", "chromium"] });
  });

  it("stops with one line naming the package and the command, when not root", () => {
    const plan = planSystemPrograms({ missing: [chromium], root: false, aptGet: true, installTried: false });
    assert.deepEqual(plan, { kind: "stop", line: "npm test needs the package chromium (missing: chromium); install with: sudo apt-get install -y chromium" });
  });

  it("stops without apt-get, naming Debian's command", () => {
    const plan = planSystemPrograms({ missing: [program("sqlite3"), ...postgres], root: true, aptGet: false, installTried: false });
    assert.equal(plan.kind, "stop");
    assert.ok(plan.kind === "stop" && !plan.line.includes("\n"));
    assert.match(plan.kind === "stop" ? plan.line : "", /packages sqlite3, postgresql \(missing: sqlite3, initdb, pg_ctl\); .*\(Debian: apt-get install -y sqlite3 postgresql\)$/);
  });

  it("stops instead of installing again when an install did not bring the program", () => {
    const plan = planSystemPrograms({ missing: [chromium], root: true, aptGet: true, installTried: true });
    assert.equal(plan.kind, "stop");
  });

  it("names a Debian package for every program", () => {
    for (const p of systemPrograms) assert.match(p.package, /^[a-z0-9][a-z0-9.+-]+$/, p.program);
  });
});

describe("cachedPrograms", () => {
  it("names an install script that exists for each", () => {
    assert.ok(cachedPrograms.some((p) => p.program === "promtool"));
    for (const { script } of cachedPrograms) assert.ok(existsSync(script), script);
  });
});

describe("pythonVersionProblem", () => {
  it("takes the Python client's minimum and newer, and stops with one line on an older one or none", () => {
    assert.equal(pythonVersionProblem("3.7\n"), null);
    assert.equal(pythonVersionProblem("3.13"), null);
    assert.equal(pythonVersionProblem("4.0"), null);
    assert.equal(pythonVersionProblem("3.6"), "npm test needs python3 3.7 or newer (found 3.6); put a newer python3 first on the PATH");
    assert.match(pythonVersionProblem("2.7") ?? "", /found 2\.7/);
    assert.match(pythonVersionProblem("") ?? "", /found none that runs/);
  });

  it("is the minimum the package declares", () => {
    const pyproject = readFileSync(new URL("../../../clients/python/pyproject.toml", import.meta.url), "utf8");
    assert.match(pyproject, new RegExp(`requires-python = ">=${pythonVersionMin.join("\\.")}"`));
  });

  it("names python3 among the programs", () => {
    assert.equal(program("python3").package, "python3");
  });
});
