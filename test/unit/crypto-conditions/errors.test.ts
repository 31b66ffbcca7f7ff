// Every CryptoConditionError reason, from the wire text and from details.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conditionUriOfDetails } from "../../../src/crypto-conditions/conditionUriOfDetails.js";
import { CryptoConditionError, type CryptoConditionErrorReason } from "../../../src/crypto-conditions/cryptoConditionError.js";
import { decodeFulfillment } from "../../../src/crypto-conditions/decodeFulfillment.js";
import { derTlv } from "../../../src/crypto-conditions/derTlv.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import { encodeFulfillment } from "../../../src/crypto-conditions/encodeFulfillment.js";
import { encodeFulfillmentBinary } from "../../../src/crypto-conditions/encodeFulfillmentBinary.js";
import {
  fulfillmentBytesMax,
  nestingDepthMax,
  subconditionsMax,
  subfulfillmentsMax,
} from "../../../src/crypto-conditions/limits.js";
import { publicKeysOfDetails } from "../../../src/crypto-conditions/publicKeysOfDetails.js";
import { signEd25519Fulfillment } from "../../../src/crypto-conditions/signEd25519Fulfillment.js";
import type { Condition, Fulfillment } from "../../../src/crypto-conditions/types.js";
import { JsonNumber, type JsonValue } from "../../../src/transaction/jsonValue.js";
import { seededBytes } from "./seededRandom.js";

const message = seededBytes("message", 32);
const leaf = signEd25519Fulfillment(seededBytes("seed", 32), message);
const leafDer = encodeFulfillmentBinary(leaf);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const cat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

function rejects(reason: CryptoConditionErrorReason, run: () => unknown, label: string): void {
  assert.throws(
    run,
    (e: unknown) => {
      assert.ok(e instanceof CryptoConditionError, `${label}: not a CryptoConditionError: ${String(e)}`);
      assert.equal(e.reason, reason, `${label}: ${e.message}`);
      return true;
    },
    label,
  );
}

/** `levels` thresholds of 1-of-1 around the ed25519 leaf, which ends up at depth `levels`. */
function nestedFulfillment(levels: number): Fulfillment {
  let f: Fulfillment = leaf;
  for (let i = 0; i < levels; i++) f = { type: "threshold-sha-256", subfulfillments: [f], subconditions: [] };
  return f;
}

function nestedDetails(levels: number): JsonValue {
  let d: JsonValue = { type: "ed25519-sha-256", public_key: encodeBase58(leaf.publicKey) };
  for (let i = 0; i < levels; i++) d = { type: "threshold-sha-256", threshold: 1, subconditions: [d] };
  return d;
}

const someCondition: Condition = {
  type: "ed25519-sha-256",
  fingerprint: seededBytes("fp", 32),
  cost: 131072,
  subtypes: [],
};

describe("decodeFulfillment rejections", () => {
  it("parse: not base64url, or not its canonical form", () => {
    rejects("parse", () => decodeFulfillment("!!!"), "garbage");
    rejects("parse", () => decodeFulfillment(b64(leafDer) + "="), "padding");
    rejects("parse", () => decodeFulfillment(Buffer.from(leafDer).toString("base64")), "base64 with + or /");
    rejects("parse", () => decodeFulfillment(b64(leafDer) + "A"), "length 4n+1");
    // "oAKAAB" has stray low bits in its last character ("oAKAAA" is the canonical text).
    rejects("parse", () => decodeFulfillment("oAKAAB"), "stray trailing bits");
    rejects("parse", () => decodeFulfillment(""), "empty");
  });

  it("parse: truncated DER, trailing bytes, wrong lengths", () => {
    rejects("parse", () => decodeFulfillment(b64(leafDer.subarray(0, leafDer.length - 1))), "truncated");
    rejects("parse", () => decodeFulfillment(b64(leafDer.subarray(0, 1))), "one byte");
    rejects("parse", () => decodeFulfillment(b64(cat(leafDer, Uint8Array.of(0)))), "trailing byte");
    rejects("parse", () => decodeFulfillment(b64(cat(leafDer, leafDer))), "two fulfillments");
    const shortKey = derTlv(0xa4, derTlv(0x80, leaf.publicKey.subarray(1)), derTlv(0x81, leaf.signature));
    rejects("parse", () => decodeFulfillment(b64(shortKey)), "31-byte key");
    const longSig = derTlv(0xa4, derTlv(0x80, leaf.publicKey), derTlv(0x81, cat(leaf.signature, Uint8Array.of(1))));
    rejects("parse", () => decodeFulfillment(b64(longSig)), "65-byte signature");
    const extraField = derTlv(0xa4, derTlv(0x80, leaf.publicKey), derTlv(0x81, leaf.signature), derTlv(0x82, Uint8Array.of(0)));
    rejects("parse", () => decodeFulfillment(b64(extraField)), "extra field");
    const swapped = derTlv(0xa4, derTlv(0x81, leaf.signature), derTlv(0x80, leaf.publicKey));
    rejects("parse", () => decodeFulfillment(b64(swapped)), "fields swapped");
  });

  it("parse: non-minimal lengths and indefinite lengths", () => {
    // The key's length 0x20 written in the long form 81 20.
    const longForm = cat(Uint8Array.of(0xa4, 0x65, 0x80, 0x81, 0x20), leaf.publicKey, derTlv(0x81, leaf.signature));
    rejects("parse", () => decodeFulfillment(b64(longForm)), "long form for 32");
    const indefinite = cat(Uint8Array.of(0xa4, 0x80), leafDer.subarray(2), Uint8Array.of(0, 0));
    rejects("parse", () => decodeFulfillment(b64(indefinite)), "indefinite length");
  });

  it("parse: a threshold without subfulfillments, or with its SETs out of DER order", () => {
    rejects("parse", () => decodeFulfillment(b64(Uint8Array.of(0xa2, 0x04, 0xa0, 0x00, 0xa1, 0x00))), "0 subfulfillments");
    const other = encodeFulfillmentBinary(signEd25519Fulfillment(seededBytes("other", 32), message));
    const [low, high] = Buffer.compare(leafDer, other) < 0 ? [leafDer, other] : [other, leafDer];
    const sorted = derTlv(0xa2, derTlv(0xa0, low, high), derTlv(0xa1));
    assert.doesNotThrow(() => decodeFulfillment(b64(sorted)));
    const unsorted = derTlv(0xa2, derTlv(0xa0, high, low), derTlv(0xa1));
    rejects("parse", () => decodeFulfillment(b64(unsorted)), "unsorted subfulfillments");
    const missingSet = derTlv(0xa2, derTlv(0xa0, leafDer));
    rejects("parse", () => decodeFulfillment(b64(missingSet)), "no subconditions field");
  });

  it("parse: malformed subcondition costs and subtypes", () => {
    const withCondition = (condition: Uint8Array) => b64(derTlv(0xa2, derTlv(0xa0, leafDer), derTlv(0xa1, condition)));
    const fp = derTlv(0x80, someCondition.fingerprint);
    assert.doesNotThrow(() => decodeFulfillment(withCondition(derTlv(0xa4, fp, derTlv(0x81, Uint8Array.of(2, 0, 0))))));
    rejects("parse", () => decodeFulfillment(withCondition(derTlv(0xa4, fp, derTlv(0x81, Uint8Array.of(0x80))))), "negative");
    rejects("parse", () => decodeFulfillment(withCondition(derTlv(0xa4, fp, derTlv(0x81, Uint8Array.of(0, 1))))), "padded");
    rejects("parse", () => decodeFulfillment(withCondition(derTlv(0xa4, fp, derTlv(0x81)))), "empty cost");
    const cost = derTlv(0x81, Uint8Array.of(2, 0x0c, 0));
    assert.doesNotThrow(() => decodeFulfillment(withCondition(derTlv(0xa2, fp, cost, derTlv(0x82, Uint8Array.of(3, 0x08))))));
    rejects("parse", () => decodeFulfillment(withCondition(derTlv(0xa2, fp, cost, derTlv(0x82, Uint8Array.of(2, 0x08))))), "unused bits");
    rejects("parse", () => decodeFulfillment(withCondition(derTlv(0xa2, fp, cost, derTlv(0x82, Uint8Array.of(3, 0x08, 0))))), "extra octet");
    rejects("parse", () => decodeFulfillment(withCondition(derTlv(0xa2, fp, cost))), "no subtypes");
  });

  it("unsupported: preimage, prefix, rsa and unknown types, at the root or inside a threshold", () => {
    rejects("unsupported", () => decodeFulfillment("oAKAAA"), "preimage-sha-256 (A0 02 80 00)");
    rejects("unsupported", () => decodeFulfillment(b64(derTlv(0xa1, derTlv(0x80), derTlv(0x81, Uint8Array.of(0)), derTlv(0xa2, leafDer)))), "prefix");
    rejects("unsupported", () => decodeFulfillment(b64(derTlv(0xa3, derTlv(0x80, new Uint8Array(128)), derTlv(0x81, new Uint8Array(128))))), "rsa");
    rejects("unsupported", () => decodeFulfillment(b64(derTlv(0xa5, derTlv(0x80)))), "type 5");
    const preimageInside = derTlv(0xa2, derTlv(0xa0, Uint8Array.of(0xa0, 0x02, 0x80, 0x00)), derTlv(0xa1));
    rejects("unsupported", () => decodeFulfillment(b64(preimageInside)), "preimage subfulfillment");
    const fp = derTlv(0x80, someCondition.fingerprint);
    const preimageCondition = derTlv(0xa0, fp, derTlv(0x81, Uint8Array.of(0)));
    rejects("unsupported", () => decodeFulfillment(b64(derTlv(0xa2, derTlv(0xa0, leafDer), derTlv(0xa1, preimageCondition)))), "preimage subcondition");
    const preimageSubtype = derTlv(0xa2, fp, derTlv(0x81, Uint8Array.of(1)), derTlv(0x82, Uint8Array.of(3, 0x88)));
    rejects("unsupported", () => decodeFulfillment(b64(derTlv(0xa2, derTlv(0xa0, leafDer), derTlv(0xa1, preimageSubtype)))), "preimage subtype");
    rejects("parse", () => decodeFulfillment(b64(derTlv(0x30, leafDer.subarray(2)))), "a universal SEQUENCE is not a type");
  });

  it(`too-deep: a leaf at depth ${nestingDepthMax} passes, one at ${nestingDepthMax + 1} is refused`, () => {
    const deepest = encodeFulfillment(nestedFulfillment(nestingDepthMax));
    assert.equal(encodeFulfillment(decodeFulfillment(deepest)), deepest);
    rejects("too-deep", () => decodeFulfillment(encodeFulfillment(nestedFulfillment(nestingDepthMax + 1))), "depth 100");
    rejects("too-deep", () => decodeFulfillment(encodeFulfillment(nestedFulfillment(500))), "depth 500");
    // An unfulfilled subcondition at depth 100 counts too.
    let f: Fulfillment = { type: "threshold-sha-256", subfulfillments: [leaf], subconditions: [someCondition] };
    for (let i = 0; i < nestingDepthMax; i++) f = { type: "threshold-sha-256", subfulfillments: [f], subconditions: [] };
    rejects("too-deep", () => decodeFulfillment(encodeFulfillment(f)), "subcondition at depth 100");
  });

  it("limit: too many subfulfillments, too many children, too many bytes", () => {
    const signed = (n: number) => Array.from({ length: n }, () => leaf);
    const atMax: Fulfillment = { type: "threshold-sha-256", subfulfillments: signed(subfulfillmentsMax), subconditions: [] };
    assert.doesNotThrow(() => decodeFulfillment(encodeFulfillment(atMax)));
    const over: Fulfillment = { type: "threshold-sha-256", subfulfillments: signed(subfulfillmentsMax + 1), subconditions: [] };
    rejects("limit", () => decodeFulfillment(encodeFulfillment(over)), "subfulfillments");
    const conditions = (n: number) => Array.from({ length: n }, () => someCondition);
    const childrenAtMax: Fulfillment = { type: "threshold-sha-256", subfulfillments: [leaf], subconditions: conditions(subconditionsMax - 1) };
    assert.doesNotThrow(() => decodeFulfillment(encodeFulfillment(childrenAtMax)));
    const childrenOver: Fulfillment = { type: "threshold-sha-256", subfulfillments: [leaf], subconditions: conditions(subconditionsMax) };
    rejects("limit", () => decodeFulfillment(encodeFulfillment(childrenOver)), "children");
    rejects("limit", () => decodeFulfillment("A".repeat(Math.ceil((fulfillmentBytesMax * 4) / 3) + 4)), "bytes");
  });
});

describe("details rejections (conditionUriOfDetails, publicKeysOfDetails)", () => {
  const key = encodeBase58(leaf.publicKey);
  const both = (reason: CryptoConditionErrorReason, details: JsonValue, label: string) => {
    rejects(reason, () => conditionUriOfDetails(details), `uri: ${label}`);
    rejects(reason, () => publicKeysOfDetails(details), `keys: ${label}`);
  };

  it("unsupported: a type other than ed25519-sha-256 and threshold-sha-256", () => {
    both("unsupported", { type: "preimage-sha-256", preimage: "" }, "preimage");
    both("unsupported", { type: "zenroom-sha-256", public_key: key }, "zenroom");
    both("unsupported", { type: "threshold-sha-256", threshold: 1, subconditions: [{ type: "rsa-sha-256" }] }, "nested rsa");
  });

  it("parse: malformed details", () => {
    both("parse", null, "null");
    both("parse", [], "array");
    both("parse", { public_key: key }, "no type");
    both("parse", { type: 4, public_key: key }, "numeric type");
    both("parse", { type: "ed25519-sha-256" }, "no key");
    both("parse", { type: "ed25519-sha-256", public_key: encodeBase58(leaf.publicKey.subarray(1)) }, "31-byte key");
    both("parse", { type: "ed25519-sha-256", public_key: key.replace(/.$/, "0") }, "not base58");
    const sub = { type: "ed25519-sha-256", public_key: key };
    both("parse", { type: "threshold-sha-256", threshold: 0, subconditions: [sub] }, "threshold 0");
    both("parse", { type: "threshold-sha-256", threshold: 1.5, subconditions: [sub] }, "threshold 1.5");
    both("parse", { type: "threshold-sha-256", threshold: new JsonNumber("1.0", true), subconditions: [sub] }, "threshold 1.0");
    both("parse", { type: "threshold-sha-256", threshold: "1", subconditions: [sub] }, "threshold string");
    both("parse", { type: "threshold-sha-256", threshold: true, subconditions: [sub] }, "threshold true");
    both("parse", { type: "threshold-sha-256", threshold: 2, subconditions: [sub] }, "2 of 1");
    both("parse", { type: "threshold-sha-256", threshold: 1, subconditions: [] }, "1 of 0");
    both("parse", { type: "threshold-sha-256", threshold: 1, subconditions: sub }, "subconditions not an array");
  });

  it(`too-deep: a node at depth ${nestingDepthMax + 1}, checked before anything else`, () => {
    assert.doesNotThrow(() => conditionUriOfDetails(nestedDetails(nestingDepthMax)));
    both("too-deep", nestedDetails(nestingDepthMax + 1), "depth 100");
    // BigchainDB checks the depth first: even a garbage node at depth 100 is ThresholdTooDeep.
    let d: JsonValue = "garbage";
    for (let i = 0; i <= nestingDepthMax; i++) d = { type: "threshold-sha-256", threshold: 1, subconditions: [d] };
    both("too-deep", d, "garbage at depth 100");
  });

  it("limit: threshold over the schema's 100, too many subconditions", () => {
    const sub = { type: "ed25519-sha-256", public_key: key };
    const many = (n: number) => Array.from({ length: n }, () => sub);
    assert.doesNotThrow(() => conditionUriOfDetails({ type: "threshold-sha-256", threshold: subfulfillmentsMax, subconditions: many(subfulfillmentsMax) }));
    both("limit", { type: "threshold-sha-256", threshold: subfulfillmentsMax + 1, subconditions: many(subfulfillmentsMax + 1) }, "threshold");
    assert.doesNotThrow(() => conditionUriOfDetails({ type: "threshold-sha-256", threshold: 1, subconditions: many(subconditionsMax) }));
    both("limit", { type: "threshold-sha-256", threshold: 1, subconditions: many(subconditionsMax + 1) }, "subconditions");
  });
});
