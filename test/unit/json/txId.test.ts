// Ids and signing digests against every official-driver vector (test/vectors/driver;
// its README.md: `id_preimage` and `signing[].message_preimage` are the exact
// strings bigchaindb-driver 4.3.0 hashed).

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { JsonError } from "../../../src/json/jsonError.js";
import { computeTxId } from "../../../src/transaction/computeTxId.js";
import { isJsonObject, type JsonObject } from "../../../src/json/jsonValue.js";
import { matchTxId } from "../../../src/transaction/matchTxId.js";
import { sha3Hex, sha3HexJs } from "../../../src/transaction/sha3Hex.js";
import { readJson } from "../../../src/json/readJson.js";
import { serializeCanonical } from "../../../src/json/serializeCanonical.js";
import { signingDigests } from "../../../src/transaction/signingDigests.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { loadVectors, vectorsDir } from "../../helpers/vectors.js";

const vectors = loadVectors();

/** The vector's `tx` exactly as the file has it, read by our reader (not JSON.parse). */
function readTx(file: string): JsonObject {
  const whole = readJson(new Uint8Array(readFileSync(vectorsDir + file)));
  assert.ok(isJsonObject(whole));
  const tx = whole["tx"];
  assert.ok(isJsonObject(tx));
  return tx;
}

function withNullId(tx: JsonObject): JsonObject {
  return Object.assign(Object.create(null) as JsonObject, tx, { id: null });
}

const sha3 = (text: string) => createHash("sha3-256").update(text, "utf8").digest("hex");
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

test("there are vectors to check", () => {
  assert.ok(vectors.length >= 20);
});

describe("every driver vector", () => {
  for (const vector of vectors) {
    test(vector.file, () => {
      const tx = readTx(vector.file);
      // The js form is byte for byte what the driver hashed for the id and for each input.
      assert.equal(serializeCanonical(withNullId(tx), "js"), vector.id_preimage);
      assert.equal(computeTxId(tx, "js"), vector.computed_id);
      assert.equal(sha3(vector.id_preimage), vector.computed_id);
      // The JavaScript SHA3 the client uses in a browser gives the same id as node:crypto.
      assert.equal(sha3HexJs(vector.id_preimage), vector.computed_id);
      assert.equal(sha3Hex(vector.id_preimage), vector.computed_id);
      const digests = signingDigests(tx, "js").map(hex);
      assert.deepEqual(digests, vector.signing.map((s) => s.message_sha3_256_hex));
      for (const [i, signing] of vector.signing.entries()) {
        const preimage = (signing as unknown as { message_preimage: string }).message_preimage;
        assert.equal(sha3(preimage), digests[i]);
      }
    });
  }
});

describe("matchTxId on the vectors", () => {
  test("valid vectors match; 07 needs the js form (code point order differs)", () => {
    for (const vector of vectors) {
      if (vector.file === "90_invalid_amount_tampered.json" || vector.file === "92_invalid_wrong_id.json") continue;
      const expected = vector.file.startsWith("07_") ? "js" : "python";
      assert.equal(matchTxId(readTx(vector.file)), expected, vector.file);
    }
  });

  test("07: the python id differs, the js id is the posted one", () => {
    const tx = readTx("07_create_key_order_edge.json");
    assert.notEqual(computeTxId(tx, "python"), tx["id"]);
    assert.equal(computeTxId(tx, "js"), tx["id"]);
    assert.notDeepEqual(signingDigests(tx, "python").map(hex), signingDigests(tx, "js").map(hex));
  });

  test("90 (tampered amount) and 92 (wrong id) match neither form", () => {
    assert.equal(matchTxId(readTx("90_invalid_amount_tampered.json")), null);
    assert.equal(matchTxId(readTx("92_invalid_wrong_id.json")), null);
  });

  test("null when the id is missing or not a string", () => {
    const tx = readTx("01_create_single_owner.json");
    const id = tx["id"];
    for (const bad of [undefined, null, 1, [id], { id }]) {
      const copy = Object.assign(Object.create(null) as JsonObject, tx);
      if (bad === undefined) delete copy["id"];
      else copy["id"] = bad as JsonObject;
      assert.equal(matchTxId(copy), null);
    }
  });

  test("a Python-made id over floats matches python, and its js id differs", () => {
    // Vector 01 with metadata {"n": 1.0}: Python keeps 1.0, the driver would write 1.
    const tx = readTx("01_create_single_owner.json");
    tx["metadata"] = readJson('{"n": 1.0}');
    tx["id"] = computeTxId(tx, "python");
    assert.equal(matchTxId(tx), "python");
    assert.notEqual(computeTxId(tx, "js"), tx["id"]);
  });

  // readJson refuses a lone surrogate; the id functions still handle one given otherwise.
  test("a lone surrogate: python cannot serialize it, a js-form id still matches", () => {
    const tx = readTx("01_create_single_owner.json");
    tx["metadata"] = JSON.parse('{"s": "\\ud800"}') as JsonObject;
    assert.throws(() => computeTxId(tx, "python"), (e: unknown) => e instanceof JsonError && e.code === "BadJson");
    tx["id"] = computeTxId(tx, "js");
    assert.equal(matchTxId(tx), "js");
  });
});

describe("computeTxId and signingDigests", () => {
  test("do not change their input", () => {
    for (const file of ["03_transfer_to_second_key.json", "08_create_two_issuers.json"]) {
      const tx = readTx(file);
      const before = writeJson(tx);
      computeTxId(tx, "python");
      signingDigests(tx, "python");
      signingDigests(tx, "js");
      assert.equal(writeJson(tx), before);
    }
  });

  test("the id covers the fulfillments; the signing message does not", () => {
    const tx = readTx("01_create_single_owner.json");
    const inputs = tx["inputs"] as JsonObject[];
    const changed = Object.assign(Object.create(null) as JsonObject, tx, {
      inputs: [Object.assign(Object.create(null) as JsonObject, inputs[0], { fulfillment: "AAAA" })],
    });
    assert.notEqual(computeTxId(changed, "python"), computeTxId(tx, "python"));
    assert.deepEqual(signingDigests(changed, "python"), signingDigests(tx, "python"));
  });

  test("a spending input's digest appends fulfills.transaction_id and the decimal output_index", () => {
    const tx = readTx("09_transfer_divisible_with_change.json");
    const inputs = tx["inputs"] as JsonObject[];
    const fulfills = inputs[0]?.["fulfills"] as JsonObject;
    const message = serializeCanonical(
      Object.assign(Object.create(null) as JsonObject, tx, {
        id: null,
        inputs: inputs.map((input) => Object.assign(Object.create(null) as JsonObject, input, { fulfillment: null })),
      }),
      "python",
    );
    const expected = sha3(`${message}${String(fulfills["transaction_id"])}${String(fulfills["output_index"])}`);
    assert.equal(hex(signingDigests(tx, "python")[0] as Uint8Array), expected);
    assert.equal(String(fulfills["output_index"]), "1");
  });

  test("each digest is 32 bytes, one per input", () => {
    const tx = readTx("08_create_two_issuers.json");
    const digests = signingDigests(tx, "python");
    assert.equal(digests.length, 2);
    for (const digest of digests) assert.equal(digest.length, 32);
  });

  test("a shape it cannot read fails as a coded error", () => {
    const tx = readTx("03_transfer_to_second_key.json");
    const bad = (patch: string) => Object.assign(Object.create(null) as JsonObject, tx, readJson(patch) as JsonObject);
    for (const patch of [
      '{"inputs": 1}',
      '{"inputs": [1]}',
      '{"inputs": [{"fulfills": 5}]}',
      '{"inputs": [{"fulfills": {"transaction_id": 1, "output_index": 0}}]}',
      '{"inputs": [{"fulfills": {"transaction_id": "ab", "output_index": "0"}}]}',
    ]) {
      assert.throws(
        () => signingDigests(bad(patch), "python"),
        (e: unknown) => e instanceof LedgerError && e.code === "SchemaValidationError",
        patch,
      );
    }
  });
});
