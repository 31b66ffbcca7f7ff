// The witness's wiring (src/node/witnessService.ts): the logs from `witness.logs`, refused when
// one is not a verifier key or when HTTP runs in several processes; a key of its own, made once
// in the data folder, apart from the node key; the default name under the checkpoints' origin.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ConfigError } from "../../../src/config/configError.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { createNodeKey, readNodeKey } from "../../../src/node/nodeKey.js";
import { witnessKeyFileName, witnessOf } from "../../../src/node/witnessService.js";
import { verifierKeyOf } from "../../../src/proofs/signedNote.js";
import { systemClock } from "../../../src/clock/clock.js";

const logKey = verifierKeyOf({ name: "log.example/a", publicKey: new Uint8Array(32).fill(3) });

describe("witnessOf", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-witness-service-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const configOf = (flags: Record<string, string>) => loadConfig({ flags: { data_dir: dir, ...flags }, env: {} });

  test("none without witness.logs", () => {
    assert.equal(witnessOf(configOf({}), systemClock), undefined);
  });

  test("a witness of the logs named, with a key of its own and the default name", () => {
    createNodeKey(dir);
    const witness = witnessOf(configOf({ "witness.logs": ` ${logKey} ` }), systemClock);
    assert.ok(witness !== undefined);
    assert.ok(existsSync(join(dir, witnessKeyFileName)));
    // Type 0x04 (a cosigner's), so its base64 starts with B; a checkpoint key's with A.
    assert.match(witness.verifierKey(), /^ledgerd\.invalid\/ledgerd-solo\/witness\+[0-9a-f]{8}\+B[A-P]/);
    assert.notEqual(readNodeKey(dir)?.publicKey, readNodeKey(dir, witnessKeyFileName)?.publicKey);
    assert.equal(witnessOf(configOf({ "witness.logs": logKey }), systemClock)?.verifierKey(), witness.verifierKey());
  });

  test("a log that is not a verifier key, or HTTP in several processes, is a ConfigError", () => {
    assert.throws(() => witnessOf(configOf({ "witness.logs": `${logKey},nonsense` }), systemClock), ConfigError);
    assert.throws(() => witnessOf(configOf({ "witness.logs": logKey, "server.workers": "2" }), systemClock), ConfigError);
  });
});
