// Every fulfillment and condition in the official-driver vectors (bigchaindb-driver 4.3.0,
// crypto-conditions 2.2.1): decode, re-encode byte for byte, same condition URI, verification.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conditionUriOfDetails } from "../../../src/crypto-conditions/conditionUriOfDetails.js";
import { conditionUriOfFulfillment } from "../../../src/crypto-conditions/conditionUriOfFulfillment.js";
import { decodeFulfillment } from "../../../src/crypto-conditions/decodeFulfillment.js";
import { encodeFulfillment } from "../../../src/crypto-conditions/encodeFulfillment.js";
import { publicKeysOfDetails } from "../../../src/crypto-conditions/publicKeysOfDetails.js";
import { publicKeysOfFulfillment } from "../../../src/crypto-conditions/publicKeysOfFulfillment.js";
import { verifyFulfillment } from "../../../src/crypto-conditions/verifyFulfillment.js";
import type { JsonValue } from "../../../src/json/jsonValue.js";
import { loadKeys, loadVector, loadVectors, type DriverVector } from "../../helpers/vectors.js";

interface WireInput {
  fulfillment: string;
  fulfills: { transaction_id: string; output_index: number } | null;
  owners_before: string[];
}
interface WireOutput {
  condition: { details: JsonValue; uri: string };
  public_keys: string[];
}

const inputsOf = (tx: DriverVector["tx"]) => tx["inputs"] as WireInput[];
const outputsOf = (tx: DriverVector["tx"]) => tx["outputs"] as WireOutput[];
const problemsOf = (vector: DriverVector) => (vector as unknown as { local_check_problems: string[] }).local_check_problems;
const requiredFiles = (vector: DriverVector) =>
  (vector.requires_committed as readonly unknown[]).map((r) => (typeof r === "string" ? r : (r as { file: string }).file));

/** The output an input spends, from the vector's prerequisites; undefined if none has it. */
function spentOutput(vector: DriverVector, input: WireInput): WireOutput | undefined {
  if (input.fulfills === null) return undefined;
  for (const file of requiredFiles(vector)) {
    const tx = loadVector(file).tx;
    if (tx.id === input.fulfills.transaction_id) return outputsOf(tx)[input.fulfills.output_index];
  }
  return undefined;
}

describe("driver vectors", () => {
  const vectors = loadVectors();
  const names = Object.fromEntries(Object.values(loadKeys()).map((k) => [k.public_key, k]));

  it("are all present, with the threshold ones among them", () => {
    assert.ok(vectors.length >= 21);
    assert.ok(vectors.some((v) => v.file.startsWith("04_")) && vectors.some((v) => v.file.startsWith("05_")));
  });

  for (const vector of vectors) {
    it(`${vector.file}: fulfillments decode, re-encode, match and verify as the generator found`, () => {
      const txs = [vector.tx, ...(vector.conflicts_with === undefined ? [] : [vector.conflicts_with.tx])];
      for (const [t, tx] of txs.entries()) {
        for (const [i, input] of inputsOf(tx).entries()) {
          const fulfillment = decodeFulfillment(input.fulfillment);
          assert.equal(encodeFulfillment(fulfillment), input.fulfillment, `input ${i} re-encodes`);
          for (const key of publicKeysOfFulfillment(fulfillment)) assert.ok(key in names, `signer ${key} is a vector key`);
          if (t > 0) continue; // `signing` describes the main transaction only
          const digest = Buffer.from(vector.signing[i]!.message_sha3_256_hex, "hex");
          const expectValid = !problemsOf(vector).includes(`input ${i}: fulfillment does not validate`);
          assert.equal(verifyFulfillment(fulfillment, digest), expectValid, `input ${i} verifies`);
          const spent = spentOutput(vector, input);
          if (spent === undefined) continue;
          const expectMatch = !problemsOf(vector).includes(`input ${i}: condition mismatch`);
          assert.equal(conditionUriOfFulfillment(fulfillment) === spent.condition.uri, expectMatch, `input ${i} condition`);
          assert.equal(conditionUriOfDetails(spent.condition.details) === spent.condition.uri, true);
        }
      }
    });

    it(`${vector.file}: output condition URIs and keys come from their details`, () => {
      for (const output of outputsOf(vector.tx)) {
        assert.equal(conditionUriOfDetails(output.condition.details), output.condition.uri);
        assert.deepEqual(publicKeysOfDetails(output.condition.details), output.public_keys);
      }
    });
  }

  it("05's threshold fulfillment is 2-of-2 signed by alice and bob and matches 04's output", () => {
    const keys = loadKeys();
    const spend = loadVector("05_transfer_threshold_spend.json");
    const fulfillment = decodeFulfillment(inputsOf(spend.tx)[0]!.fulfillment);
    assert.equal(fulfillment.type, "threshold-sha-256");
    assert.deepEqual([...publicKeysOfFulfillment(fulfillment)].sort(), [keys.alice.public_key, keys.bob.public_key].sort());
    const output = outputsOf(loadVector("04_create_threshold_two_owners.json").tx)[0]!;
    assert.equal(
      output.condition.uri,
      "ni:///sha-256;oYFhwHaKjs_lD4HV3vzPGF-ZQ_AmZ9ssuhnJg0rlsT0?fpt=threshold-sha-256&cost=264192&subtypes=ed25519-sha-256",
    );
    assert.equal(conditionUriOfFulfillment(fulfillment), output.condition.uri);
    assert.equal(verifyFulfillment(fulfillment, Buffer.from(spend.signing[0]!.message_sha3_256_hex, "hex")), true);
  });

  it("93 (one signature bit flipped) decodes but does not verify; 01 does", () => {
    for (const [file, valid] of [["01_create_single_owner.json", true], ["93_invalid_signature_corrupted.json", false]] as const) {
      const vector = loadVector(file);
      const fulfillment = decodeFulfillment(inputsOf(vector.tx)[0]!.fulfillment);
      const digest = Buffer.from(vector.signing[0]!.message_sha3_256_hex, "hex");
      assert.equal(verifyFulfillment(fulfillment, digest), valid, file);
    }
  });

  it("94 (signed by bob) verifies but fulfills bob's condition, not alice's output", () => {
    const vector = loadVector("94_invalid_transfer_signed_by_wrong_key.json");
    const input = inputsOf(vector.tx)[0]!;
    const fulfillment = decodeFulfillment(input.fulfillment);
    assert.equal(verifyFulfillment(fulfillment, Buffer.from(vector.signing[0]!.message_sha3_256_hex, "hex")), true);
    assert.deepEqual(publicKeysOfFulfillment(fulfillment), [loadKeys().bob.public_key]);
    assert.notEqual(conditionUriOfFulfillment(fulfillment), spentOutput(vector, input)!.condition.uri);
  });
});
