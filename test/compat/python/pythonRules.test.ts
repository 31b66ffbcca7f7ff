// Differential test against BigchainDB's own Python rules (docs/bigchaindb-behaviour.md §2.1, §2.2,
// docs/compatibility.md #7): pythonRules.py (python-rapidjson, hashlib, cryptography) makes random
// asset-like values and signed v2.0 transactions; ledgerd must write the same canonical bytes, find
// the same ids and compute the same signing digests.
//
// It needs the venv CI creates (this test installs nothing and never skips):
//   python3 -m venv .venv && .venv/bin/pip install -r test/compat/python/requirements.txt

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { JsonError } from "../../../src/json/jsonError.js";
import { isJsonObject } from "../../../src/json/jsonValue.js";
import { matchTxId } from "../../../src/transaction/matchTxId.js";
import { readJson } from "../../../src/json/readJson.js";
import { serializeCanonical } from "../../../src/json/serializeCanonical.js";
import { signingDigests } from "../../../src/transaction/signingDigests.js";
import { vectorsDir } from "../../helpers/vectors.js";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const python = `${repoRoot}.venv/bin/python`;
const script = fileURLToPath(new URL("./pythonRules.py", import.meta.url));
const keysFile = `${vectorsDir}keys.json`;
const seed = 20240611;
const valueCount = 2000;
const txCount = 2000;

interface MetaCase {
  kind: "meta";
  rapidjson: string;
  python: string;
}
interface ValueCase {
  kind: "value";
  posted_b64: string;
  canonical_b64: string | null;
  error: string | null;
}
interface TxCase {
  kind: "tx";
  posted_b64: string;
  id: string;
  digests: string[];
}
type Case = MetaCase | ValueCase | TxCase;

function runPython(): Case[] {
  assert.ok(
    existsSync(python),
    `missing ${python}: create it with ` +
      "`python3 -m venv .venv && .venv/bin/pip install -r test/compat/python/requirements.txt`",
  );
  const args = [script, "--seed", String(seed), "--values", String(valueCount), "--txs", String(txCount)];
  const result = spawnSync(python, [...args, "--keys", keysFile], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  assert.equal(result.status, 0, `pythonRules.py failed: ${result.error?.message ?? ""}\n${result.stderr}`);
  return result.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Case);
}

const cases = runPython();

test("the Python side is BigchainDB 2.x's python-rapidjson line (0.9)", () => {
  const meta = cases[0];
  assert.equal(meta?.kind, "meta");
  assert.match((meta as MetaCase).rapidjson, /^0\.9\./);
});

test(`readJson + serializeCanonical "python" equal rapidjson.dumps byte for byte (${valueCount} values)`, () => {
  const values = cases.filter((c): c is ValueCase => c.kind === "value");
  assert.equal(values.length, valueCount);
  let unwritable = 0;
  for (const [n, c] of values.entries()) {
    const posted = Buffer.from(c.posted_b64, "base64");
    if (c.canonical_b64 === null) {
      // What rapidjson cannot write, ledgerd refuses to read (I-JSON, compatibility #17).
      unwritable++;
      assert.throws(
        () => readJson(new Uint8Array(posted)),
        (error: unknown) => error instanceof JsonError && error.code === "LoneSurrogate",
        `case ${n}: rapidjson raised ${c.error}, ledgerd read it`,
      );
      continue;
    }
    const value = readJson(new Uint8Array(posted));
    const ours = Buffer.from(serializeCanonical(value, "python"), "utf8");
    const theirs = Buffer.from(c.canonical_b64, "base64");
    if (!ours.equals(theirs)) {
      assert.fail(`case ${n}: posted ${posted.toString()}\n ours   ${ours.toString()}\n theirs ${theirs.toString()}`);
    }
  }
  // The generator mixes in values rapidjson cannot write (a lone surrogate); some must be there.
  assert.ok(unwritable > 0 && unwritable < values.length / 10, `unwritable values: ${unwritable}`);
});

test(`transactions made by Python rules match in form "python" with the digests Python signed (${txCount})`, () => {
  const txs = cases.filter((c): c is TxCase => c.kind === "tx");
  assert.equal(txs.length, txCount);
  let transfers = 0;
  for (const [n, c] of txs.entries()) {
    const tx = readJson(new Uint8Array(Buffer.from(c.posted_b64, "base64")));
    assert.ok(isJsonObject(tx));
    assert.equal(tx["id"], c.id, `case ${n}: id as posted`);
    assert.equal(matchTxId(tx), "python", `case ${n}: ${Buffer.from(c.posted_b64, "base64").toString()}`);
    const digests = signingDigests(tx, "python").map((d) => Buffer.from(d).toString("hex"));
    assert.deepEqual(digests, c.digests, `case ${n}: signing digests`);
    if (tx["operation"] === "TRANSFER") transfers++;
  }
  assert.ok(transfers > 0, "the generator also makes TRANSFERs, whose digests carry fulfills");
});
