// `ledgerd testnet --validators N --dir DIR` as a user runs it (a real child process and a real
// `cometbft testnet`; no network is started): what each node's ledgerd config says.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { readManifest } from "../../../src/testnet/manifest.js";
import { runLedgerd } from "../cli/ledgerdProcess.js";

describe("ledgerd testnet", () => {
  const root = mkdtempSync(join(tmpdir(), "ledgerd-testnet-cli-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** Each node's database.read_indexes, as the node would load its config, validators first. */
  function readIndexesOf(dir: string): boolean[] {
    return readManifest(dir).nodes.map((node) => loadConfig({ flags: { data_dir: join(dir, node.dataDir) }, env: {} }).database.read_indexes);
  }

  it("--no-read-indexes writes read_indexes = false into the validators' configs; the full nodes keep theirs", () => {
    const dir = join(root, "without");
    const made = runLedgerd(["testnet", "--validators", "2", "--full-nodes", "1", "--dir", dir, "--no-read-indexes"]);
    assert.equal(made.status, 0, made.stderr);
    assert.deepEqual(readIndexesOf(dir), [false, false, true]);
  });

  it("without it every node keeps its read indexes", () => {
    const dir = join(root, "with");
    const made = runLedgerd(["testnet", "--validators", "1", "--dir", dir]);
    assert.equal(made.status, 0, made.stderr);
    assert.deepEqual(readIndexesOf(dir), [true]);
  });
});
