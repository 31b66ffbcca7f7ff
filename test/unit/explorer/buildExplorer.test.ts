// scripts/build-explorer.mjs skips bundling when nothing changed (npm start builds first), and
// must never leave a stale bundle: a changed, removed or missing file makes it bundle again.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

const outdir = mkdtempSync(join(tmpdir(), "ledgerd-explorer-"));
const inputsFile = join(outdir, ".inputs");

function buildExplorer(): string {
  const result = spawnSync(process.execPath, ["scripts/build-explorer.mjs", outdir], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}
const bundled = /gzipped \(.* KiB\)/;
const skipped = /is up to date/;

/** Rewrites what the last build recorded, as a later edit or a removed file would leave it. */
function recorded(change: (last: { startedAtMs: number; inputs: string[] }) => void): void {
  const last = JSON.parse(readFileSync(inputsFile, "utf8")) as { startedAtMs: number; inputs: string[] };
  change(last);
  writeFileSync(inputsFile, JSON.stringify(last));
}

describe("build-explorer, incremental", () => {
  after(() => rmSync(outdir, { recursive: true, force: true }));

  it("bundles into an empty folder, then skips while no input changed", () => {
    assert.match(buildExplorer(), bundled);
    assert.ok((JSON.parse(readFileSync(inputsFile, "utf8")) as { inputs: string[] }).inputs.includes("src/proofs/verify.ts"), "the imports into src/ are inputs");
    assert.match(buildExplorer(), skipped);
  });

  it("bundles again when an input is newer than the last build's start", () => {
    recorded((last) => (last.startedAtMs = 0));
    assert.match(buildExplorer(), bundled);
  });

  it("bundles again when an input is gone", () => {
    recorded((last) => last.inputs.push("explorer/src/removed.ts"));
    assert.match(buildExplorer(), bundled);
  });

  it("bundles again when an output is missing", () => {
    rmSync(join(outdir, "app.js"));
    assert.match(buildExplorer(), bundled);
    assert.match(buildExplorer(), skipped);
  });
});
