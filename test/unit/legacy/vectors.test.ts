// The verified legacy examples (legacy-variants.md §6): ids, signatures and condition URIs of the
// three Variant B examples, the v0.3 multisig example, and what the Variant A doc examples are.
import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { classifyLegacy } from "../../../src/legacy/classifyLegacy.js";
import { decodeLegacyFulfillment } from "../../../src/legacy/decodeLegacyFulfillment.js";
import { encodeLegacyCondition } from "../../../src/legacy/encodeLegacyCondition.js";
import { keccak256Hex } from "../../../src/legacy/keccak256Hex.js";
import { legacyConditionOfFulfillment } from "../../../src/legacy/legacyConditionOfFulfillment.js";
import { legacySigningMessage } from "../../../src/legacy/legacySigningMessage.js";
import { legacySigningMessageV03 } from "../../../src/legacy/legacySigningMessageV03.js";
import { legacyTxId } from "../../../src/legacy/legacyTxId.js";
import { prepareLegacy } from "../../../src/legacy/prepareLegacy.js";
import { readLegacyDetails } from "../../../src/legacy/readLegacyDetails.js";
import type { LegacyTx, PreparedLegacyTx } from "../../../src/legacy/types.js";
import { validateLegacy } from "../../../src/legacy/validateLegacy.js";
import { verifyLegacyFulfillment } from "../../../src/legacy/verifyLegacyFulfillment.js";
import type { Rejection } from "../../../src/errors/ledgerError.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { readJson } from "../../../src/json/readJson.js";
import { LegacyMemoryView } from "./legacyMemoryView.js";

// Copies of the published examples (docs/legacy-variants.md §6), byte for byte.
const examples = new URL("./examples/", import.meta.url);
const text = (name: string) => readFileSync(new URL(name, examples), "utf8");
const example = (name: string) => readJson(text(name)) as LegacyTx;

const bCreate = example("legacy-variantB-create.json");
const bCreatePosted = example("legacy-variantB-create-post-response.json");
const bTransferPosted = example("legacy-variantB-transfer-post-response.json");
const bMultisig = example("legacy-variantB-create-multisig-v0.3.json");

function prepared(tx: LegacyTx): PreparedLegacyTx {
  const result = prepareLegacy(tx);
  assert.ok(!("code" in result), `rejected: ${(result as Rejection).message}`);
  return result;
}

const fulfillmentOf = (tx: LegacyTx, i = 0) =>
  ((tx["transaction"] as JsonObject)["fulfillments"] as JsonObject[])[i]!;
const conditionOf = (tx: LegacyTx, i = 0) =>
  (((tx["transaction"] as JsonObject)["conditions"] as JsonObject[])[i]!["condition"] as JsonObject);

describe("Keccak-256", () => {
  it("is the pre-standard Keccak, not FIPS SHA3-256 (docs/legacy-variants.md §1.2)", () => {
    assert.equal(keccak256Hex(""), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    assert.equal(keccak256Hex("abc"), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
    assert.notEqual(keccak256Hex(""), hash("sha3-256", "", "hex"));
  });

  it("hashes the UTF-8 bytes of the text", () => {
    assert.equal(keccak256Hex("é"), keccak256Hex(Buffer.from([0xc3, 0xa9]).toString("utf8")));
    assert.notEqual(keccak256Hex("é"), keccak256Hex("\u00e9\u0000"));
  });
});

describe("Variant B examples (verified in docs/legacy-variants.md §6)", () => {
  for (const [name, tx] of [
    ["legacy-variantB-create.json", bCreate],
    ["legacy-variantB-create-post-response.json", bCreatePosted],
    ["legacy-variantB-transfer-post-response.json", bTransferPosted],
  ] as const) {
    it(`${name}: the id is Keccak-256 of the body and the signature verifies`, () => {
      assert.equal(classifyLegacy(tx), "B");
      assert.equal(legacyTxId(tx), tx["id"]);
      const fulfillment = decodeLegacyFulfillment(fulfillmentOf(tx)["fulfillment"] as string);
      const message = Buffer.from(legacySigningMessage(tx, "B", 0), "utf8");
      assert.equal(verifyLegacyFulfillment(fulfillment, message), true);
      // The same signature does not verify over any other message.
      assert.equal(verifyLegacyFulfillment(fulfillment, Buffer.concat([message, Buffer.from(" ")])), false);
      const result = prepared(tx);
      assert.equal(result.id, tx["id"]);
      assert.equal(result.variant, "B");
    });
  }

  it("each output's uri is the one its details give", () => {
    for (const tx of [bCreate, bCreatePosted, bTransferPosted]) {
      const condition = conditionOf(tx);
      assert.equal(encodeLegacyCondition(readLegacyDetails(condition["details"]!).condition), condition["uri"]);
    }
  });

  it("the TRANSFER spends the CREATE: its fulfillment fulfils the CREATE's condition", () => {
    const create = prepared(bCreatePosted);
    const transfer = prepared(bTransferPosted);
    assert.deepEqual(transfer.spends, [{ txid: create.id, cid: 0 }]);
    assert.equal(transfer.fulfilledUris[0], conditionOf(bCreatePosted)["uri"]);
    assert.equal(transfer.fulfilledUris[0], create.outputs[0]!.conditionUri);
    // And the whole flow accepts it against a ledger holding the CREATE.
    const federation = (fulfillmentOf(bCreatePosted)["current_owners"] as string[])[0]!;
    const view = new LegacyMemoryView([federation]);
    assert.equal(validateLegacy(create, view), null);
    view.commit(create);
    assert.equal(validateLegacy(transfer, view), null);
  });

  it("the posted CREATE is signed by its assignee, the single node's key (docs/legacy-variants.md §6)", () => {
    assert.equal(prepared(bCreatePosted).creator, bCreatePosted["assignee"]);
  });

  it("the stored JSON drops the POST response's assignee and keeps everything else", () => {
    const stored = JSON.parse(prepared(bTransferPosted).json) as JsonObject;
    const { assignee: _, ...expected } = JSON.parse(text("legacy-variantB-transfer-post-response.json")) as JsonObject;
    assert.deepEqual(stored, expected);
    assert.equal("assignee" in stored, false);
  });

  it("the top-level version is outside the id, and inside the signature", () => {
    const changed = { ...bCreate, version: 2 };
    assert.equal(legacyTxId(changed), bCreate["id"]);
    assert.notEqual(legacySigningMessage(changed, "B", 0), legacySigningMessage(bCreate, "B", 0));
  });
});

describe("the v0.3 multisig example (B0 dialect)", () => {
  it("has a Keccak id over its body", () => {
    assert.equal(legacyTxId(bMultisig), "a9a6e5c74ea02b8885c83125f1b74a2ba8ca42236ec5e1c358aa1053ec721ccb");
    assert.equal(legacyTxId(bMultisig), bMultisig["id"]);
  });

  it("its 2-of-2 threshold details give cc:2:29:DpflJzUSlnTUBx8lD8QUolOA-M9nQnrGwvWSk7f3REc:206", () => {
    const condition = conditionOf(bMultisig);
    const details = readLegacyDetails(condition["details"]!);
    assert.equal(encodeLegacyCondition(details.condition), "cc:2:29:DpflJzUSlnTUBx8lD8QUolOA-M9nQnrGwvWSk7f3REc:206");
    assert.equal(encodeLegacyCondition(details.condition), condition["uri"]);
    assert.deepEqual(details.publicKeys, (((bMultisig["transaction"] as JsonObject)["conditions"] as JsonObject[])[0]!["new_owners"]));
  });

  it("its signature verifies under the v0.3 message, not the v0.4+ one", () => {
    const fulfillment = decodeLegacyFulfillment(fulfillmentOf(bMultisig)["fulfillment"] as string);
    const v03 = Buffer.from(legacySigningMessageV03(bMultisig, 0, null), "utf8");
    assert.equal(verifyLegacyFulfillment(fulfillment, v03), true);
    const v04 = Buffer.from(legacySigningMessage(bMultisig, "B", 0), "utf8");
    assert.equal(verifyLegacyFulfillment(fulfillment, v04), false);
  });

  it("is refused when posted for validation: its data is B0's null, not {payload, uuid}", () => {
    const result = prepareLegacy(bMultisig);
    assert.ok("code" in result);
    assert.equal(result.code, "LegacyInvalid");
  });
});

describe("Variant A doc examples (docs/legacy-variants.md §6: not self-consistent)", () => {
  const aGet = example("legacy-variantA-transfer-get-response.json");

  it("classify as A; the id does not match, so real v0.6.0 and ledgerd refuse them (InvalidHash)", () => {
    assert.equal(classifyLegacy(aGet), "A");
    const result = prepareLegacy(aGet);
    assert.ok("code" in result);
    assert.equal(result.code, "InvalidHash");
    const posted = prepareLegacy(example("legacy-variantA-transfer-post-response.json"));
    assert.ok("code" in posted);
    assert.equal(posted.code, "InvalidHash");
  });

  it("written back with the old owner names, id and signature both check, with transaction.version inside", () => {
    // The doc snapshot predates the renaming (docs/legacy-variants.md §6): this pins the A rules
    // for the id (version inside the hashed body) and the message (version from
    // transaction.version).
    const renamed = readJson(
      text("legacy-variantA-transfer-get-response.json")
        .replaceAll("owners_before", "current_owners")
        .replaceAll("owners_after", "new_owners"),
    ) as LegacyTx;
    assert.equal(legacyTxId(renamed), renamed["id"]);
    const fulfillment = decodeLegacyFulfillment(fulfillmentOf(renamed)["fulfillment"] as string);
    assert.equal(verifyLegacyFulfillment(fulfillment, Buffer.from(legacySigningMessage(renamed, "A", 0), "utf8")), true);
    assert.equal(verifyLegacyFulfillment(fulfillment, Buffer.from(legacySigningMessage(aGet, "A", 0), "utf8")), false);
    // Its input was never a real transaction: the fulfillment's condition is just the signer's key.
    assert.match(encodeLegacyCondition(legacyConditionOfFulfillment(fulfillment)), /^cc:4:20:[A-Za-z0-9_-]{43}:96$/);
  });

  it("the hybrid A example is the B example with renamed fields: a mixed shape", () => {
    const result = classifyLegacy(example("legacy-variantA-create-post-response-hybrid.json"));
    assert.ok(typeof result !== "string");
    assert.equal(result.code, "LegacyInvalid");
    assert.match(result.message, /^mixed transaction shape/);
  });
});
