// Every rejection code has a test that triggers it (issue #2), with BigchainDB's message texts
// (docs/bigchaindb-behaviour.md §2.3, §2.5, §5.2). The vectors test covers the driver-made cases;
// these are the ones made by editing a transaction and re-signing or re-hashing it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeFulfillment } from "../../../src/crypto-conditions/encodeFulfillment.js";
import { signEd25519Fulfillment } from "../../../src/crypto-conditions/signEd25519Fulfillment.js";
import type { Fulfillment } from "../../../src/crypto-conditions/types.js";
import type { Rejection } from "../../../src/errors/ledgerError.js";
import { rejectionCodes } from "../../../src/errors/codes.js";
import { Buffer } from "node:buffer";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";
import { electionCheck } from "../../../src/ledger/kinds/v2/elections.js";
import { makeCreate } from "../../../src/transaction/builders/makeCreate.js";
import { makeValidatorElection, makeVote } from "../../../src/transaction/builders/makeElection.js";
import type { Keypair } from "../../../src/transaction/builders/makeKeypair.js";
import { electionRejection } from "../../../src/transaction/elections.js";
import { makeTransfer } from "../../../src/transaction/builders/makeTransfer.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { computeTxId } from "../../../src/transaction/computeTxId.js";
import type { JsonObject, JsonValue } from "../../../src/json/jsonValue.js";
import { prepareTxBytes } from "../../../src/transaction/prepareTxBytes.js";
import type { PreparedTx } from "../../../src/transaction/types.js";
import { validateTx } from "../../../src/transaction/validateTx.js";
import { MemoryView } from "../../helpers/memoryView.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { describeResult } from "../../helpers/vectors.js";

const alice = keypairOf("alice");
const bob = keypairOf("bob");

function check(tx: JsonValue, view = new MemoryView()): PreparedTx | Rejection {
  const prepared = prepareTxBytes(JSON.stringify(tx));
  if ("code" in prepared) return prepared;
  return validateTx(prepared, view) ?? prepared;
}

function rejection(tx: JsonValue, view?: MemoryView): Rejection {
  const result = check(tx, view);
  assert.ok("code" in result, `accepted: ${describeResult(result)}`);
  return result;
}

/** A CREATE with the given asset data and metadata, properly signed. */
function signedCreate(assetData: JsonObject | null, metadata: JsonObject | null, amount = "1"): JsonObject {
  return signTx(makeCreate({ issuers: [alice.publicKey], outputs: [{ publicKeys: [alice.publicKey], amount }], assetData, metadata }), [alice]);
}

/** Re-hash after an edit, so that the check under test is not InvalidHash. */
function rehash(tx: JsonObject): JsonObject {
  return { ...tx, id: computeTxId({ ...tx, id: null }, "python") };
}

const seen = new Set<string>();
function expect(code: string, result: Rejection, message?: string | RegExp): void {
  assert.equal(result.code, code, result.message);
  if (typeof message === "string") assert.equal(result.message, message);
  else if (message !== undefined) assert.match(result.message, message);
  seen.add(code);
}

describe("rejection codes", () => {
  it("InvalidHash: missing id, wrong id", () => {
    const { id: _, ...noId } = create(alice);
    expect("InvalidHash", rejection(noId), "No transaction id found!");
    expect("InvalidHash", rejection({ ...create(alice), id: "0".repeat(64) }), `The transaction's id '${"0".repeat(64)}' isn't equal to the hash of its body, i.e. it's not valid.`);
  });

  it("SchemaValidationError: checked after the id (a missing version with the id recomputed)", () => {
    const { version: _, ...noVersion } = create(alice);
    expect("SchemaValidationError", rejection(rehash(noVersion)), "'version' is a required property");
    expect("SchemaValidationError", rejection(rehash({ ...create(alice), metadata: {} })), /does not have enough properties|is not valid under any/);
    expect("SchemaValidationError", rejection(rehash({ ...create(alice), extra: 1 })), "Additional properties are not allowed ('extra' was unexpected)");
    expect("SchemaValidationError", rejection(rehash({ ...create(alice), operation: "MINT" })), /'MINT' is not one of/);
  });

  it("ValidationError: key rules in asset and metadata, the language rule, elections", () => {
    for (const key of ["bad.key", "$bad.key", "$badkey", "bad\u0000key"]) {
      expect("ValidationError", rejection(signedCreate({ [key]: 1 }, null)), `Invalid key name "${key}" in asset object. The key name cannot contain characters ".", "$" or null characters`);
      expect("ValidationError", rejection(signedCreate(null, { [key]: 1 })), new RegExp(`in metadata object`));
    }
    expect("ValidationError", rejection(signedCreate({ good_key: { "bad.key": 1 } }, null)), /Invalid key name "bad.key"/);
    expect("ValidationError", rejection(signedCreate({ list: [{ "x.y": 1 }] }, null)), /Invalid key name "x.y"/);
    assert.ok(!("code" in check(signedCreate({ "mid$dle": 1, good_key: 2 }, null))), "a $ inside a key is fine");
    expect("ValidationError", rejection(signedCreate({ language: "any" }, null)), 'MongoDB does not support text search for the language "any". If you do not understand this error message then please rename key/field "language" to something else like "lang".');
    expect("ValidationError", rejection(signedCreate({ root: { language: "any" } }, null)), /language "any"/);
    assert.ok(!("code" in check(signedCreate({ language: "english", root: { language: "de" } }, null))));
    expect("ValidationError", rejection(rehash({ ...create(alice), operation: "CHAIN_MIGRATION_ELECTION" })), /CHAIN_MIGRATION_ELECTION is not supported/);
  });

  it("elections: the proposer, the voters, the power, the key; a vote after the conclusion", () => {
    const set = [alice, bob].map((v) => ({ publicKey: Buffer.from(decodeBase58(v.publicKey)).toString("hex"), power: 10 }));
    const carolKey = Buffer.from(decodeBase58(keypairOf("carol").publicKey)).toString("base64");
    const made = (proposer: Keypair, voters: { publicKey: string; power: number }[], power: number, key = carolKey): JsonObject =>
      signTx(makeValidatorElection({ proposer: proposer.publicKey, voters, validatorKeyBase64: key, power, nodeId: "n", seed: "s" }), [proposer]);
    const voters = [alice, bob].map((v) => ({ publicKey: v.publicKey, power: 10 }));
    const againstSet = (tx: JsonObject): Rejection => {
      const prepared = prepareTxBytes(JSON.stringify(tx));
      assert.ok(!("code" in prepared), describeResult(prepared));
      const result = electionRejection(prepared.election!, prepared.outputs, set);
      assert.ok(result !== null, "accepted");
      return result;
    };
    expect("InvalidProposer", againstSet(made(keypairOf("carol"), voters, 1)), "Public key is not a part of the validator set");
    expect("UnequalValidatorSet", againstSet(made(alice, voters.slice(0, 1), 1)), "Validator set much be exactly same to the outputs of election");
    expect("InvalidPowerChange", againstSet(made(alice, voters, 7)), "`power` change must be less than 1/3 of total power");
    const twoSigners = signTx({ ...made(alice, voters, 1), id: null, inputs: [...(made(alice, voters, 1)["inputs"] as JsonObject[]).map((input) => ({ ...input, owners_before: [alice.publicKey, bob.publicKey], fulfillment: { type: "threshold-sha-256", threshold: 2, subconditions: [{ type: "ed25519-sha-256", public_key: alice.publicKey }, { type: "ed25519-sha-256", public_key: bob.publicKey }] } }))] }, [alice, bob]);
    expect("MultipleInputsError", againstSet(twoSigners), "`tx_signers` must be a list instance of length one");
    expect("InvalidPublicKey", rejection(made(alice, voters, 1, "AAAA")), "Public key should be of size 32 bytes");
    const election = prepareTxBytes(JSON.stringify(made(alice, voters, 1))) as PreparedTx;
    const vote = prepareTxBytes(JSON.stringify(signTx(makeVote(made(alice, voters, 1), alice.publicKey), [alice]))) as PreparedTx;
    const concluded = { id: election.id, height: 2, validatorKey: "", power: 1, nodeId: "n", total: 20n, votes: 20n, concludedAt: 3 };
    const state = { height: 4, validatorSet: { height: 4, validators: set }, records: new Map([[election.id, concluded]]) };
    expect("ElectionConcluded", electionCheck(vote, state)!, `election \`${election.id}\` concluded at height 3`);
  });

  it("InvalidSignature: unparseable, unsupported type, unsigned, URI not from details, signed by another key", () => {
    const tx = create(alice);
    const inputs = tx["inputs"] as JsonObject[];
    const withFulfillment = (fulfillment: JsonValue) => rehash({ ...tx, inputs: [{ ...inputs[0]!, fulfillment }] });
    expect("InvalidSignature", rejection(withFulfillment("0".repeat(64))), "Fulfillment URI couldn't been parsed");
    expect("InvalidSignature", rejection(withFulfillment("oAKAAA")), /preimage|not supported|unsupported/i);
    expect("InvalidSignature", rejection(withFulfillment({ type: "ed25519-sha-256", public_key: alice.publicKey })), "Transaction signature is invalid.");
    const outputs = tx["outputs"] as JsonObject[];
    const wrongUri = { ...outputs[0]!, condition: { ...(outputs[0]!["condition"] as JsonObject), uri: "ni:///sha-256;AAAA?fpt=ed25519-sha-256&cost=131072" } };
    expect("InvalidSignature", rejection(signTx({ ...tx, id: null, inputs: [{ ...inputs[0]!, fulfillment: { type: "ed25519-sha-256", public_key: alice.publicKey } }], outputs: [wrongUri] }, [alice])), "Transaction signature is invalid.");
    // docs/compatibility.md #8: a CREATE is signed by its owners_before.
    const unsigned = makeCreate({ issuers: [alice.publicKey], outputs: [{ publicKeys: [alice.publicKey], amount: 1n }], assetData: null, metadata: null });
    const byBob = signTx({ ...unsigned, inputs: [{ ...(unsigned["inputs"] as JsonObject[])[0]!, fulfillment: { type: "ed25519-sha-256", public_key: bob.publicKey } }] }, [bob]);
    const forged = rehash({ ...byBob, inputs: [{ ...(byBob["inputs"] as JsonObject[])[0]!, owners_before: [alice.publicKey] }] });
    expect("InvalidSignature", rejection(forged), "Transaction signature is invalid.");
  });

  it("AmountError: zero, leading zero, above the maximum, not conserved", () => {
    expect("AmountError", rejection(signedCreate(null, null, "0")), "`amount` must be greater than 0");
    expect("AmountError", rejection(signedCreate(null, null, "007")), "Invalid amount: 007");
    expect("AmountError", rejection(signedCreate(null, null, "9000000000000000001")), "`amount` must be <= 9000000000000000000");
    assert.ok(!("code" in check(signedCreate(null, null, "9000000000000000000"))));
  });

  it("DuplicateTransaction, InputDoesNotExist, DoubleSpend, AssetIdMismatch", () => {
    const view = new MemoryView();
    const asset = create(alice, 2n);
    const other = create(bob);
    for (const tx of [asset, other]) view.apply(prepareTxBytes(JSON.stringify(tx)) as PreparedTx);
    expect("DuplicateTransaction", rejection(asset, view), `transaction \`${asset["id"] as string}\` already exists`);
    const base = makeTransfer({ spends: [{ tx: asset, outputIndex: 0 }], outputs: [{ publicKeys: [bob.publicKey], amount: 2n }], metadata: null });
    const baseInput = (base["inputs"] as JsonObject[])[0]!;
    const missing = signTx({ ...base, inputs: [{ ...baseInput, fulfills: { transaction_id: asset["id"] ?? null, output_index: 1 } }] }, [alice]);
    expect("InputDoesNotExist", rejection(missing, view), `input \`${asset["id"] as string}\` doesn't exist`);
    const spend = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 2n }]);
    view.apply(prepareTxBytes(JSON.stringify(spend)) as PreparedTx);
    expect("DoubleSpend", rejection(spend, view), `input \`${asset["id"] as string}\` was already spent`);
    const mixed = transfer([{ tx: other, outputIndex: 0 }], [bob], [{ publicKeys: [alice.publicKey], amount: 1n }]);
    const wrongAsset = signTx({ ...mixed, id: null, asset: { id: asset["id"] ?? null }, inputs: (mixed["inputs"] as JsonObject[]).map((i) => ({ ...i, fulfillment: { type: "ed25519-sha-256", public_key: bob.publicKey } })) }, [bob]);
    expect("AssetIdMismatch", rejection(wrongAsset, view), "The asset id of the input does not match the asset id of the transaction");
  });

  it("ThresholdTooDeep: a fulfillment nested 100 thresholds deep", () => {
    const tx = create(alice);
    let fulfillment: Fulfillment = signEd25519Fulfillment(alice.seed, new Uint8Array(32));
    for (let i = 0; i < 100; i++) fulfillment = { type: "threshold-sha-256", subfulfillments: [fulfillment], subconditions: [] };
    const inputs = tx["inputs"] as JsonObject[];
    const deep = rehash({ ...tx, inputs: [{ ...inputs[0]!, fulfillment: encodeFulfillment(fulfillment) }] });
    expect("ThresholdTooDeep", rejection(deep));
  });

  it("covers every rejection code of the catalog", () => {
    // Runs last in this file: the codes above, plus the driver vectors (test/vectors).
    for (const code of rejectionCodes) assert.ok(seen.has(code), `no test triggers ${code}`);
  });
});
