// Legacy transactions end to end through the pure flow: the node's CREATE (remakeCreate), our
// builders for both variants (single owner and threshold), prepareLegacy + validateLegacy
// against a view holding both dialects, and every rejection (issue #6).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { codes } from "../../../src/errors/codes.js";
import { toLedgerError, type Rejection } from "../../../src/errors/ledgerError.js";
import { makeLegacyCreate } from "../../../src/legacy/builders/makeLegacyCreate.js";
import { makeLegacyTransfer } from "../../../src/legacy/builders/makeLegacyTransfer.js";
import { classifyLegacy } from "../../../src/legacy/classifyLegacy.js";
import { createLegacyTx } from "../../../src/legacy/createLegacyTx.js";
import { keccak256Hex } from "../../../src/legacy/keccak256Hex.js";
import { legacyDetailsOfOwners } from "../../../src/legacy/legacyDetailsOfOwners.js";
import { legacyTxId } from "../../../src/legacy/legacyTxId.js";
import { prepareLegacy } from "../../../src/legacy/prepareLegacy.js";
import { remakeCreate } from "../../../src/legacy/remakeCreate.js";
import { signLegacyTx } from "../../../src/legacy/signLegacyTx.js";
import type { LegacyTx, LegacyVariant, PreparedLegacyTx } from "../../../src/legacy/types.js";
import { validateLegacy } from "../../../src/legacy/validateLegacy.js";
import { JsonNumber, type JsonObject, type JsonValue } from "../../../src/json/jsonValue.js";
import { readJson } from "../../../src/json/readJson.js";
import { clientLegacyCreate } from "../../helpers/legacyFactory.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { LegacyMemoryView } from "./legacyMemoryView.js";

const node = keypairOf("legacy node");
const otherValidator = keypairOf("other validator");
const [alice, bob, carol, mallory] = ["alice", "bob", "carol", "mallory"].map(keypairOf) as [
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
];
const federation = [node.publicKey, otherValidator.publicKey];
const variants: readonly LegacyVariant[] = ["A", "B"];
const timestamp = "1700000000";
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const names = (variant: LegacyVariant) =>
  variant === "A" ? { before: "owners_before", after: "owners_after" } : { before: "current_owners", after: "new_owners" };

const bodyOf = (tx: LegacyTx) => tx["transaction"] as JsonObject;
const fulfillmentsOf = (tx: LegacyTx) => bodyOf(tx)["fulfillments"] as JsonObject[];
const conditionsOf = (tx: LegacyTx) => bodyOf(tx)["conditions"] as JsonObject[];

function prepared(tx: JsonValue): PreparedLegacyTx {
  const result = prepareLegacy(tx);
  assert.ok(!("code" in result), `rejected: ${(result as Rejection).message}`);
  return result;
}

/** What the POST flow does with a client's CREATE: re-make it, then check it like any other. */
function nodeCreate(variant: LegacyVariant, owners: readonly string[], n: number, payload: JsonObject | null = null): LegacyTx {
  const client = clientLegacyCreate(variant, owners, payload, uuid(1000 + n));
  assert.equal(classifyLegacy(client), variant);
  return remakeCreate(client, variant, node, timestamp, uuid(n));
}

function ledgerWith(...txs: LegacyTx[]): LegacyMemoryView {
  const view = new LegacyMemoryView(federation);
  for (const tx of txs) {
    const ready = prepared(tx);
    assert.equal(validateLegacy(ready, view), null);
    view.commit(ready);
  }
  return view;
}

/** prepare + validate; the rejection, checked to be a 400 that leaves the view as it was. */
function rejection(tx: JsonValue, view: LegacyMemoryView = ledgerWith()): Rejection {
  const before = view.snapshot();
  const copy = JSON.stringify(tx);
  const ready = prepareLegacy(tx);
  const result = "code" in ready ? ready : validateLegacy(ready, view);
  assert.ok(result !== null, "accepted");
  assert.equal(codes[result.code].status, 400, result.code);
  assert.match(toLedgerError(result).httpMessage, /^Invalid transaction \(/);
  assert.equal(view.snapshot(), before, "the view changed");
  assert.equal(JSON.stringify(tx), copy, "the transaction was modified");
  return result;
}

function expectCode(code: string, result: Rejection, message?: RegExp): void {
  assert.equal(result.code, code, result.message);
  if (message !== undefined) assert.match(result.message, message);
}

describe("the node re-makes a posted CREATE (docs/legacy-variants.md §1.6, docs/compatibility.md #15)", () => {
  for (const variant of variants) {
    it(`variant ${variant}: new id, uuid and timestamp, the node's signature, the client's owners and payload`, () => {
      const client = makeLegacyCreate({
        variant,
        creator: alice,
        ownersAfter: [alice.publicKey],
        payload: { title: "The Winds of Plast" },
        timestamp: "1466676327",
        uuid: uuid(1),
      });
      const remade = remakeCreate(client, variant, node, timestamp, uuid(2));
      assert.notEqual(remade["id"], client["id"]);
      assert.equal(legacyTxId(remade), remade["id"]);
      assert.equal(classifyLegacy(remade), variant);
      const { before, after } = names(variant);
      assert.deepEqual(fulfillmentsOf(remade)[0]![before], [node.publicKey]);
      assert.equal(fulfillmentsOf(remade)[0]!["input"], null);
      assert.deepEqual(conditionsOf(remade)[0]![after], [alice.publicKey]);
      assert.deepEqual(bodyOf(remade)["data"], { payload: { title: "The Winds of Plast" }, uuid: uuid(2) });
      assert.equal(bodyOf(remade)["timestamp"], timestamp);
      assert.equal(variant === "A" ? bodyOf(remade)["version"] : remade["version"], 1);
      assert.equal(variant === "A" ? "version" in remade : "version" in bodyOf(remade), false);
      const ready = prepared(remade);
      assert.equal(ready.creator, node.publicKey);
      assert.equal(validateLegacy(ready, ledgerWith()), null);
      // Pure: the same inputs give the same transaction (Ed25519 signatures are deterministic).
      assert.deepEqual(remakeCreate(client, variant, node, timestamp, uuid(2)), remade);
    });

    it(`variant ${variant}: the client's own signature is never checked`, () => {
      const client = makeLegacyCreate({ variant, creator: alice, ownersAfter: [alice.publicKey], timestamp, uuid: uuid(3) });
      const unsigned = { ...client, transaction: { ...bodyOf(client), fulfillments: [{ ...fulfillmentsOf(client)[0]!, fulfillment: null }] } };
      assert.equal(classifyLegacy(unsigned), variant);
      const remade = remakeCreate(unsigned, variant, node, timestamp, uuid(4));
      assert.equal(validateLegacy(prepared(remade), ledgerWith()), null);
    });

    it(`variant ${variant}: several client owners get an n-of-n threshold`, () => {
      const remade = nodeCreate(variant, [alice.publicKey, bob.publicKey, carol.publicKey], 5);
      const condition = conditionsOf(remade)[0]!["condition"] as JsonObject;
      assert.match(condition["uri"] as string, /^cc:2:29:[A-Za-z0-9_-]{43}:306$/);
      assert.deepEqual(condition["details"], legacyDetailsOfOwners([alice.publicKey, bob.publicKey, carol.publicKey]));
      const ready = prepared(remade);
      assert.deepEqual(ready.outputs[0]!.publicKeys, [alice.publicKey, bob.publicKey, carol.publicKey]);
      assert.equal(validateLegacy(ready, ledgerWith()), null);
    });
  }
});

describe("our builders make valid transactions with stable ids", () => {
  // Independent of serializeCanonical: sort keys, JSON.stringify (the data here is ASCII).
  const sortedJson = (value: JsonValue): string => {
    if (value === null || typeof value !== "object" || value instanceof JsonNumber) return JSON.stringify(value);
    if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${sortedJson(value[key]!)}`).join(",")}}`;
  };
  const independentId = (tx: LegacyTx) =>
    keccak256Hex(sortedJson({ ...bodyOf(tx), fulfillments: fulfillmentsOf(tx).map((f) => ({ ...f, fulfillment: null })) }));

  // Pinned from a first run: any change to the id rules, the builders or the signing shows here.
  const pinned: Record<LegacyVariant, { create: string; transfer: string }> = {
    A: {
      create: "ef0e22b7b2be1bc6dbc00b43ed43702094da58a4302e35eff2b993c49058a0e3",
      transfer: "a4f61ab9a00e1e195ed1a1926c49f4deb723b184c7f568025cb8ef89c45913c5",
    },
    B: {
      create: "66ea7ea32fa483684c586f772ed9425ff2842cad72d9693cf3317759ff82946f",
      transfer: "65b05bf9bef216d9c9b5172d896eaa481a58e631c2d8595158118ca038b84b51",
    },
  };

  for (const variant of variants) {
    it(`variant ${variant}: CREATE by the node, TRANSFER alice -> bob`, () => {
      const createTx = makeLegacyCreate({ variant, creator: node, ownersAfter: [alice.publicKey], payload: { n: 1 }, timestamp, uuid: uuid(10) });
      const transfer = makeLegacyTransfer({ variant, spends: [{ tx: createTx, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(11) });
      assert.equal(independentId(createTx), createTx["id"]);
      assert.equal(independentId(transfer), transfer["id"]);
      assert.deepEqual({ create: createTx["id"], transfer: transfer["id"] }, pinned[variant]);
      const view = ledgerWith(createTx);
      const ready = prepared(transfer);
      assert.deepEqual(ready.spends, [{ txid: createTx["id"], cid: 0 }]);
      assert.equal(validateLegacy(ready, view), null);
    });
  }

  it("the two variants of the same content have different ids (version inside A's body only)", () => {
    const [a, b] = variants.map((variant) =>
      makeLegacyCreate({ variant, creator: node, ownersAfter: [alice.publicKey], timestamp, uuid: uuid(12) }),
    );
    assert.notEqual(a!["id"], b!["id"]);
  });
});

describe("threshold owners in both variants", () => {
  for (const variant of variants) {
    it(`variant ${variant}: a 2-of-2 output is spent with both signatures, and not with one`, () => {
      const owned = nodeCreate(variant, [alice.publicKey, bob.publicKey], 20);
      const view = ledgerWith(owned);
      const both = makeLegacyTransfer({ variant, spends: [{ tx: owned, cid: 0 }], ownersAfter: [carol.publicKey], signers: [alice, bob], timestamp, uuid: uuid(21) });
      assert.match(fulfillmentsOf(both)[0]!["fulfillment"] as string, /^cf:2:/);
      assert.equal(validateLegacy(prepared(both), view), null);
      const one = makeLegacyTransfer({ variant, spends: [{ tx: owned, cid: 0 }], ownersAfter: [carol.publicKey], signers: [alice], timestamp, uuid: uuid(22) });
      expectCode("InvalidSignature", rejection(one, view), /signature is invalid/);
    });

    it(`variant ${variant}: threshold to threshold, then back to one owner`, () => {
      const owned = nodeCreate(variant, [alice.publicKey, bob.publicKey], 23);
      const toGroup = makeLegacyTransfer({ variant, spends: [{ tx: owned, cid: 0 }], ownersAfter: [carol.publicKey, mallory.publicKey], signers: [alice, bob], timestamp, uuid: uuid(24) });
      const back = makeLegacyTransfer({ variant, spends: [{ tx: toGroup, cid: 0 }], ownersAfter: [alice.publicKey], signers: [carol, mallory], timestamp, uuid: uuid(25) });
      ledgerWith(owned, toGroup, back);
    });
  }
});

describe("one spent-output index over both variants (docs/compatibility.md #14)", () => {
  it("a B output spent by an A TRANSFER, and an A output spent by a B TRANSFER", () => {
    const bCreate = nodeCreate("B", [alice.publicKey], 30);
    const aSpend = makeLegacyTransfer({ variant: "A", spends: [{ tx: bCreate, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(31) });
    const bSpend = makeLegacyTransfer({ variant: "B", spends: [{ tx: aSpend, cid: 0 }], ownersAfter: [carol.publicKey], signers: [bob], timestamp, uuid: uuid(32) });
    ledgerWith(bCreate, aSpend, bSpend);
  });

  it("double spend across variants: a B TRANSFER of what an A TRANSFER spent, and the reverse", () => {
    const bCreate = nodeCreate("B", [alice.publicKey], 33);
    const aSpend = makeLegacyTransfer({ variant: "A", spends: [{ tx: bCreate, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(34) });
    const bAgain = makeLegacyTransfer({ variant: "B", spends: [{ tx: bCreate, cid: 0 }], ownersAfter: [carol.publicKey], signers: [alice], timestamp, uuid: uuid(35) });
    expectCode("DoubleSpend", rejection(bAgain, ledgerWith(bCreate, aSpend)), /was already spent/);
    const aCreate = nodeCreate("A", [alice.publicKey], 36);
    const bFirst = makeLegacyTransfer({ variant: "B", spends: [{ tx: aCreate, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(37) });
    const aAgain = makeLegacyTransfer({ variant: "A", spends: [{ tx: aCreate, cid: 0 }], ownersAfter: [carol.publicKey], signers: [alice], timestamp, uuid: uuid(38) });
    expectCode("DoubleSpend", rejection(aAgain, ledgerWith(aCreate, bFirst)), /was already spent/);
  });

  it("double spend against a pending transaction (stricter than the originals, docs/legacy-variants.md §7.5)", () => {
    const owned = nodeCreate("A", [alice.publicKey], 39);
    const view = ledgerWith(owned);
    const first = makeLegacyTransfer({ variant: "B", spends: [{ tx: owned, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(40) });
    const second = makeLegacyTransfer({ variant: "A", spends: [{ tx: owned, cid: 0 }], ownersAfter: [carol.publicKey], signers: [alice], timestamp, uuid: uuid(41) });
    const pending = prepared(first);
    assert.equal(validateLegacy(pending, view), null);
    view.addPending(pending);
    expectCode("DoubleSpend", rejection(second, view), /was already spent/);
    // The same transaction posted again is a duplicate, not a double spend.
    expectCode("DuplicateTransaction", rejection(first, view), /already exists/);
  });
});

describe("rejections: each a coded 400, nothing changed", () => {
  const owned = nodeCreate("B", [alice.publicKey], 50);
  const view = () => ledgerWith(owned);
  const transfer = (variant: LegacyVariant, n: number) =>
    makeLegacyTransfer({ variant, spends: [{ tx: owned, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(n) });
  /** Re-sign after an edit (new id, new signatures), so the check under test is the one that fails. */
  const resign = (tx: LegacyTx, variant: LegacyVariant, signers = [alice], spent?: JsonValue[]) =>
    signLegacyTx(tx, variant, signers, spent ?? [(conditionsOf(owned)[0]!["condition"] as JsonObject)["details"]!]);
  const withBody = (tx: LegacyTx, changes: JsonObject): LegacyTx => ({ ...tx, transaction: { ...bodyOf(tx), ...changes } });

  for (const variant of variants) {
    it(`variant ${variant}: a wrong id (InvalidHash)`, () => {
      expectCode("InvalidHash", rejection({ ...transfer(variant, 51), id: "ab".repeat(32) }), /isn't equal to the hash/);
      // Any change to the hashed body changes the id.
      const edited = withBody(transfer(variant, 51), { timestamp: "1700000001" });
      expectCode("InvalidHash", rejection(edited));
    });

    it(`variant ${variant}: a bad signature (InvalidSignature)`, () => {
      // The body changed and the id was recomputed, but the signature is over the old message.
      const tx = transfer(variant, 52);
      const edited = withBody(tx, { data: { payload: { changed: true }, uuid: uuid(52) } });
      expectCode("InvalidSignature", rejection({ ...edited, id: legacyTxId(edited) }), /signature is invalid/);
      // Unsigned, or not a fulfillment URI.
      const unsigned = withBody(tx, { fulfillments: [{ ...fulfillmentsOf(tx)[0]!, fulfillment: null }] });
      expectCode("InvalidSignature", rejection(unsigned), /not signed/);
      const garbled = withBody(tx, { fulfillments: [{ ...fulfillmentsOf(tx)[0]!, fulfillment: "cf:4:AAAA" }] });
      expectCode("InvalidSignature", rejection(garbled), /couldn't been parsed/);
    });

    it(`variant ${variant}: a valid signature by a key that does not own the output (InvalidSignature)`, () => {
      const stolen = resign(transfer(variant, 53), variant, [mallory], [legacyDetailsOfOwners([mallory.publicKey])]);
      const ready = prepared(stolen);
      expectCode("InvalidSignature", rejection(stolen, view()), /does not fulfill the condition/);
      assert.equal(ready.fulfilledUris.length, 1);
    });

    it(`variant ${variant}: a missing input (InputDoesNotExist)`, () => {
      expectCode("InputDoesNotExist", rejection(transfer(variant, 54), ledgerWith()), /doesn't exist/);
      const pastTheEnd = withBody(transfer(variant, 55), {
        fulfillments: [{ ...fulfillmentsOf(transfer(variant, 55))[0]!, input: { cid: 1, txid: owned["id"]! } }],
      });
      expectCode("InputDoesNotExist", rejection(resign(pastTheEnd, variant), view()), /cid 1\) doesn't exist/);
    });

    it(`variant ${variant}: one output spent twice in one transaction (DoubleSpend)`, () => {
      const twice = makeLegacyTransfer({ variant, spends: [{ tx: owned, cid: 0 }, { tx: owned, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(56) });
      expectCode("DoubleSpend", rejection(twice, view()), /spends inputs twice/);
    });

    it(`variant ${variant}: a CREATE not signed by a federation key (LegacyOperationError)`, () => {
      const byClient = makeLegacyCreate({ variant, creator: mallory, ownersAfter: [mallory.publicKey], timestamp, uuid: uuid(57) });
      expectCode("LegacyOperationError", rejection(byClient), /^Only federation nodes can use the operation `CREATE`$/);
      // The other validator is in the federation too.
      const byValidator = makeLegacyCreate({ variant, creator: otherValidator, ownersAfter: [bob.publicKey], timestamp, uuid: uuid(58) });
      assert.equal(validateLegacy(prepared(byValidator), ledgerWith()), null);
    });

    it(`variant ${variant}: a CREATE signed by someone other than its owners_before[0] (InvalidSignature)`, () => {
      const unsigned = createLegacyTx({ variant, operation: "CREATE", fulfillments: [{ ownersBefore: [node.publicKey], input: null }], ownersAfter: [mallory.publicKey], payload: null, timestamp, uuid: uuid(59) });
      const forged = signLegacyTx(unsigned, variant, [mallory], [legacyDetailsOfOwners([mallory.publicKey])]);
      expectCode("InvalidSignature", rejection(forged), /not signed by (owners_before|current_owners)\[0\]/);
    });

    it(`variant ${variant}: an output whose uri is not the one its details give (LegacyInvalid)`, () => {
      const tx = transfer(variant, 60);
      const condition = conditionsOf(tx)[0]!;
      const otherUri = ((conditionsOf(owned)[0]!["condition"] as JsonObject)["uri"]) as string;
      const edited = withBody(tx, { conditions: [{ ...condition, condition: { ...(condition["condition"] as JsonObject), uri: otherUri } }] });
      expectCode("LegacyInvalid", rejection(resign(edited, variant), view()), /the uri is not the one its details give/);
    });
  }

  it("mixed and unknown shapes (LegacyInvalid, docs/compatibility.md #13)", () => {
    const a = transfer("A", 61);
    const b = transfer("B", 62);
    expectCode("LegacyInvalid", rejection({ ...a, version: 1 }), /^mixed transaction shape/);
    expectCode("LegacyInvalid", rejection(withBody(b, { version: 1 })), /^mixed transaction shape/);
    const renamed = JSON.parse(JSON.stringify(b).replace('"new_owners"', '"owners_after"')) as JsonObject;
    expectCode("LegacyInvalid", rejection(renamed), /^mixed transaction shape: owners_after \(variant A\) with a top-level version, current_owners/);
    expectCode("LegacyInvalid", rejection(create(alice)), /^unknown transaction shape/);
    expectCode("LegacyInvalid", rejection({}), /^unknown transaction shape/);
    expectCode("LegacyInvalid", rejection({ transaction: {} }), /^unknown transaction shape/);
    expectCode("LegacyInvalid", rejection([a]), /must be a JSON object/);
    expectCode("LegacyInvalid", rejection("x"), /must be a JSON object/);
    const { version: _, ...noVersion } = b;
    expectCode("LegacyInvalid", rejection(noVersion), /variant B needs version/);
  });

  it("malformed fields of a known shape (LegacyInvalid)", () => {
    const b = transfer("B", 63);
    const a = transfer("A", 64);
    const f = fulfillmentsOf(b)[0]!;
    const cases: [LegacyTx, RegExp][] = [
      [{ ...b, version: 2 }, /^version must be the integer 1$/],
      [withBody(a, { version: "1" }), /^transaction.version must be the integer 1$/],
      [{ ...b, extra: 1 }, /unknown member "extra"/],
      [withBody(b, { asset: {} }), /unknown member "asset"/],
      [withBody(b, { operation: "GENESIS" }), /operation must be/],
      [withBody(b, { timestamp: 1466676463 }), /timestamp/],
      [withBody(b, { data: null }), /data must be an object/],
      [withBody(b, { data: { payload: 5, uuid: uuid(1) } }), /payload must be an object or null/],
      [withBody(b, { data: { payload: null, uuid: "not-a-uuid" } }), /uuid/],
      [withBody(b, { fulfillments: [] }), /must list 1 to/],
      [withBody(b, { fulfillments: [{ ...f, fid: 1 }] }), /fid must be 0/],
      [withBody(b, { fulfillments: [{ ...f, input: null }] }), /must be \{cid, txid\} in a TRANSFER/],
      [withBody(b, { fulfillments: [{ ...f, input: { cid: 0, txid: "XYZ" } }] }), /txid must be 64 lowercase hex/],
      [withBody(b, { fulfillments: [{ ...f, input: { cid: -1, txid: owned["id"]! } }] }), /cid must be an integer/],
      [withBody(b, { fulfillments: [{ ...f, current_owners: ["not a key"] }] }), /not a base58 Ed25519 public key/],
      [withBody(b, { fulfillments: [{ ...f, current_owners: [] }] }), /must list 1 to/],
      [withBody(b, { conditions: [] }), /conditions must list 1 to/],
      [withBody(b, { conditions: [{ ...conditionsOf(b)[0]!, cid: 3 }] }), /cid must be 0/],
      [{ ...b, assignee: 7 }, /assignee must be a string/],
    ];
    for (const [tx, message] of cases) expectCode("LegacyInvalid", rejection(tx), message);
    // A CREATE has one fulfillment and spends nothing.
    const c = makeLegacyCreate({ variant: "A", creator: node, ownersAfter: [alice.publicKey], timestamp, uuid: uuid(65) });
    const cf = fulfillmentsOf(c)[0]!;
    expectCode("LegacyInvalid", rejection(withBody(c, { fulfillments: [{ ...cf, input: { cid: 0, txid: owned["id"]! } }] })), /input must be null in a CREATE/);
    expectCode("LegacyInvalid", rejection(withBody(c, { fulfillments: [cf, { ...cf, fid: 1 }] })), /exactly one fulfillment/);
  });

  it("numbers the id cannot be computed for exactly (LegacyInvalid, see legacyTxId.ts)", () => {
    const text = JSON.stringify(transfer("B", 66));
    const withPayload = (payload: string) => readJson(text.replace('"payload":null', `"payload":${payload}`));
    expectCode("LegacyInvalid", rejection(withPayload('{"price":1.5}')), /fraction or exponent/);
    expectCode("LegacyInvalid", rejection(withPayload('{"n":1e3}')), /fraction or exponent/);
    expectCode("LegacyInvalid", rejection(withPayload('{"n":[123456789012345678901]}')), /fraction or exponent, or beyond 2\^53/);
    // readJson refuses a lone surrogate (LoneSurrogate); a value made otherwise is refused here.
    const lone = JSON.parse(text.replace('"payload":null', '"payload":{"s":"\\ud800"}')) as JsonValue;
    expectCode("LegacyInvalid", rejection(lone), /lone surrogate/);
    expectCode("LegacyInvalid", rejection(withPayload('{"a\\u0000b":1}')), /NUL/);
  });

  it("non-ASCII payloads are hashed and signed as UTF-8 (the documented extension)", () => {
    const owner = nodeCreate("A", [alice.publicKey], 67);
    const tx = makeLegacyTransfer({ variant: "A", spends: [{ tx: owner, cid: 0 }], ownersAfter: [bob.publicKey], signers: [alice], timestamp, uuid: uuid(68), payload: { title: "Flüsse 🌊" } });
    assert.equal(validateLegacy(prepared(readJson(JSON.stringify(tx))), ledgerWith(owner)), null);
  });

  it("the stored JSON is the posted text when given, minus any assignee", () => {
    const tx = transfer("A", 69);
    const text = JSON.stringify(tx);
    assert.equal(prepared(tx).json, text);
    const result = prepareLegacy(readJson(text), text);
    assert.ok(!("code" in result));
    assert.equal(result.json, text);
    const posted = { ...tx, assignee: node.publicKey };
    assert.equal(prepared(posted).json, text);
  });
});
