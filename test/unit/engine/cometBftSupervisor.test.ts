// CometBFT run by the node: when it exits by itself, the node's fatal error carries the line
// CometBFT refused with (here a stand-in binary that ends as v0.38 does when its handshake finds
// the ledger ahead of its own data), not only where its output is.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CometBftSupervisor } from "../../../src/engine/cometbft/cometBftSupervisor.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-supervisor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const refusal = "ERROR: failed to create node: error during handshake: error on replay: app block height (7) is higher than core (4)";

function standIn(lines: readonly string[]): string {
  const binary = join(dir, `cometbft-${lines.length}`);
  writeFileSync(binary, `#!/bin/sh\n${lines.map((line) => `echo '${line}'`).join("\n")}\nexit 1\n`);
  chmodSync(binary, 0o755);
  return binary;
}

async function exitError(binary: string, logPath: string): Promise<Error> {
  return new Promise((resolve, reject) => {
    CometBftSupervisor.start(binary, dir, { logPath, onUnexpectedExit: resolve }).catch(reject);
  });
}

describe("CometBFT exiting by itself", () => {
  it("names the line CometBFT refused with, and where its output is", async () => {
    const logPath = join(dir, "refused.log");
    const binary = standIn(["I[2026-11-27|16:42:23.005] service start module=blocksync", refusal, ""]);
    const error = await exitError(binary, logPath);
    assert.equal(error.message, `CometBFT exited by itself (code 1): ${refusal}; its output is in ${logPath}`);
  });

  it("without such a line, says where its output is", async () => {
    const logPath = join(dir, "quiet.log");
    const error = await exitError(standIn(["I[2026-11-27|16:42:23.005] service stop"]), logPath);
    assert.equal(error.message, `CometBFT exited by itself (code 1); its output is in ${logPath}`);
  });
});
