// Every CryptoConditionError reason, from the wire text and from details.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conditionUriOfDetails } from "../../../src/crypto-conditions/conditionUriOfDetails.js";
import {
  CryptoConditionError,
  type CryptoConditionErrorReason,
} from "../../../src/crypto-conditions/cryptoConditionError.js";
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
import type { Condition } from "../../../src/crypto-conditions/condition.js";
import type { Fulfillment, ThresholdFulfillment } from "../../../src/crypto-conditions/types.js";
import { JsonNumber, type JsonObject, type JsonValue } from "../../../src/json/jsonValue.js";
import { seededBytes } from "./seededRandom.js";

const message = seededBytes("message", 32);
const leaf = signEd25519Fulfillment(seededBytes("seed", 32), message);
const leafDer = encodeFulfillmentBinary(leaf);
const cat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const bytes = (...octets: number[]) => Uint8Array.of(...octets);

/** A decode of the base64url text of `der`, to hand to `rejects`. */
const decoding = (der: Uint8Array) => () => decodeFulfillment(Buffer.from(der).toString("base64url"));

/** The DER of a threshold fulfillment with these (already encoded) members, in the order given. */
const thresholdDer = (subfulfillments: Uint8Array[], subconditions: Uint8Array[] = []) =>
  derTlv(0xa2, derTlv(0xa0, ...subfulfillments), derTlv(0xa1, ...subconditions));

const threshold = (subfulfillments: Fulfillment[], subconditions: Condition[] = []): ThresholdFulfillment => ({
  type: "threshold-sha-256",
  subfulfillments,
  subconditions,
});

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
function nestedFulfillment(levels: number, inner: Fulfillment = leaf): Fulfillment {
  let f = inner;
  for (let i = 0; i < levels; i++) f = threshold([f]);
  return f;
}

const key = encodeBase58(leaf.publicKey.bytes);
const ed = (public_key: JsonValue = key): JsonObject => ({ type: "ed25519-sha-256", public_key });
const th = (n: JsonValue, subconditions: JsonValue): JsonObject => ({
  type: "threshold-sha-256",
  threshold: n,
  subconditions,
});

function nestedDetails(levels: number, inner: JsonValue = ed()): JsonValue {
  let d = inner;
  for (let i = 0; i < levels; i++) d = th(1, [d]);
  return d;
}

const someCondition: Condition = {
  type: "ed25519-sha-256",
  fingerprint: seededBytes("fp", 32),
  cost: 131072,
  subtypes: [],
};
const fingerprintDer = derTlv(0x80, someCondition.fingerprint);

describe("decodeFulfillment rejections", () => {
  it("parse: not base64url, or not its canonical form", () => {
    const text = encodeFulfillment(leaf);
    rejects("parse", () => decodeFulfillment("!!!"), "garbage");
    rejects("parse", () => decodeFulfillment(text + "="), "padding");
    rejects("parse", () => decodeFulfillment(Buffer.from(leafDer).toString("base64")), "base64 with + or /");
    rejects("parse", () => decodeFulfillment(text + "A"), "length 4n+1");
    // "oAKAAB" has stray low bits in its last character ("oAKAAA" is the canonical text).
    rejects("parse", () => decodeFulfillment("oAKAAB"), "stray trailing bits");
    rejects("parse", () => decodeFulfillment(""), "empty");
  });

  it("parse: truncated DER, trailing bytes, wrong lengths, wrong fields", () => {
    rejects("parse", decoding(leafDer.subarray(0, leafDer.length - 1)), "truncated");
    rejects("parse", decoding(leafDer.subarray(0, 1)), "one byte");
    rejects("parse", decoding(cat(leafDer, bytes(0))), "trailing byte");
    rejects("parse", decoding(cat(leafDer, leafDer)), "two fulfillments");
    const publicKey = derTlv(0x80, leaf.publicKey.bytes);
    const signature = derTlv(0x81, leaf.signature);
    rejects("parse", decoding(derTlv(0xa4, derTlv(0x80, leaf.publicKey.bytes.subarray(1)), signature)), "31-byte key");
    const longSignature = derTlv(0x81, cat(leaf.signature, bytes(1)));
    rejects("parse", decoding(derTlv(0xa4, publicKey, longSignature)), "65-byte signature");
    rejects("parse", decoding(derTlv(0xa4, publicKey, signature, derTlv(0x82, bytes(0)))), "extra field");
    rejects("parse", decoding(derTlv(0xa4, signature, publicKey)), "fields swapped");
    rejects("parse", decoding(derTlv(0x30, leafDer.subarray(2))), "a universal SEQUENCE is not a type");
  });

  it("parse: non-minimal and indefinite lengths", () => {
    // The key's length 0x20 written in the long form 81 20.
    const longForm = cat(bytes(0xa4, 0x65, 0x80, 0x81, 0x20), leaf.publicKey.bytes, derTlv(0x81, leaf.signature));
    rejects("parse", decoding(longForm), "long form for 32");
    rejects("parse", decoding(cat(bytes(0xa4, 0x80), leafDer.subarray(2), bytes(0, 0))), "indefinite length");
  });

  it("parse: a threshold without subfulfillments, or with its SETs out of DER order", () => {
    rejects("parse", decoding(bytes(0xa2, 0x04, 0xa0, 0x00, 0xa1, 0x00)), "0 subfulfillments");
    const other = encodeFulfillmentBinary(signEd25519Fulfillment(seededBytes("other", 32), message));
    const [low, high] = Buffer.compare(leafDer, other) < 0 ? [leafDer, other] : [other, leafDer];
    assert.doesNotThrow(decoding(thresholdDer([low, high])));
    rejects("parse", decoding(thresholdDer([high, low])), "unsorted subfulfillments");
    rejects("parse", decoding(derTlv(0xa2, derTlv(0xa0, leafDer))), "no subconditions field");
  });

  it("parse: malformed subcondition costs and subtypes", () => {
    const ed25519Condition = (cost: Uint8Array) => thresholdDer([leafDer], [derTlv(0xa4, fingerprintDer, cost)]);
    assert.doesNotThrow(decoding(ed25519Condition(derTlv(0x81, bytes(2, 0, 0)))));
    rejects("parse", decoding(ed25519Condition(derTlv(0x81, bytes(0x80)))), "negative");
    rejects("parse", decoding(ed25519Condition(derTlv(0x81, bytes(0, 1)))), "padded");
    rejects("parse", decoding(ed25519Condition(derTlv(0x81))), "empty cost");
    const cost = derTlv(0x81, bytes(2, 0x0c, 0));
    const withSubtypes = (...fields: Uint8Array[]) => thresholdDer([leafDer], [derTlv(0xa2, fingerprintDer, cost, ...fields)]);
    assert.doesNotThrow(decoding(withSubtypes(derTlv(0x82, bytes(3, 0x08)))));
    rejects("parse", decoding(withSubtypes(derTlv(0x82, bytes(2, 0x08)))), "unused bits");
    rejects("parse", decoding(withSubtypes(derTlv(0x82, bytes(3, 0x08, 0)))), "extra octet");
    rejects("parse", decoding(withSubtypes()), "no subtypes");
  });

  it("unsupported: preimage, prefix, rsa and unknown types, at the root or inside a threshold", () => {
    rejects("unsupported", () => decodeFulfillment("oAKAAA"), "preimage-sha-256 (A0 02 80 00)");
    const prefix = derTlv(0xa1, derTlv(0x80), derTlv(0x81, bytes(0)), derTlv(0xa2, leafDer));
    rejects("unsupported", decoding(prefix), "prefix");
    const rsa = derTlv(0xa3, derTlv(0x80, new Uint8Array(128)), derTlv(0x81, new Uint8Array(128)));
    rejects("unsupported", decoding(rsa), "rsa");
    rejects("unsupported", decoding(derTlv(0xa5, derTlv(0x80))), "type 5");
    rejects("unsupported", decoding(thresholdDer([bytes(0xa0, 0x02, 0x80, 0x00)])), "preimage subfulfillment");
    const preimageCondition = derTlv(0xa0, fingerprintDer, derTlv(0x81, bytes(0)));
    rejects("unsupported", decoding(thresholdDer([leafDer], [preimageCondition])), "preimage subcondition");
    const preimageSubtype = derTlv(0xa2, fingerprintDer, derTlv(0x81, bytes(1)), derTlv(0x82, bytes(3, 0x88)));
    rejects("unsupported", decoding(thresholdDer([leafDer], [preimageSubtype])), "preimage subtype");
  });

  it(`too-deep: a leaf at depth ${nestingDepthMax} passes, one at ${nestingDepthMax + 1} is refused`, () => {
    const deepest = encodeFulfillment(nestedFulfillment(nestingDepthMax));
    assert.equal(encodeFulfillment(decodeFulfillment(deepest)), deepest);
    const tooDeep = encodeFulfillment(nestedFulfillment(nestingDepthMax + 1));
    rejects("too-deep", () => decodeFulfillment(tooDeep), "depth 100");
    rejects("too-deep", () => decodeFulfillment(encodeFulfillment(nestedFulfillment(500))), "depth 500");
    // An unfulfilled subcondition at depth 100 counts too.
    const withCondition = encodeFulfillment(nestedFulfillment(nestingDepthMax, threshold([leaf], [someCondition])));
    rejects("too-deep", () => decodeFulfillment(withCondition), "subcondition at depth 100");
  });

  it("limit: too many subfulfillments, too many children, too many bytes", () => {
    const leaves = (n: number) => Array.from({ length: n }, () => leaf);
    const conditions = (n: number) => Array.from({ length: n }, () => someCondition);
    assert.doesNotThrow(() => decodeFulfillment(encodeFulfillment(threshold(leaves(subfulfillmentsMax)))));
    const overSigned = encodeFulfillment(threshold(leaves(subfulfillmentsMax + 1)));
    rejects("limit", () => decodeFulfillment(overSigned), "subfulfillments");
    const atMax = encodeFulfillment(threshold([leaf], conditions(subconditionsMax - 1)));
    assert.doesNotThrow(() => decodeFulfillment(atMax));
    const overChildren = encodeFulfillment(threshold([leaf], conditions(subconditionsMax)));
    rejects("limit", () => decodeFulfillment(overChildren), "children");
    const overBytes = "A".repeat(Math.ceil((fulfillmentBytesMax * 4) / 3) + 4);
    rejects("limit", () => decodeFulfillment(overBytes), "bytes");
  });
});

describe("details rejections (conditionUriOfDetails, publicKeysOfDetails)", () => {
  const both = (reason: CryptoConditionErrorReason, details: JsonValue, label: string) => {
    rejects(reason, () => conditionUriOfDetails(details), `uri: ${label}`);
    rejects(reason, () => publicKeysOfDetails(details), `keys: ${label}`);
  };

  it("unsupported: a type other than ed25519-sha-256 and threshold-sha-256", () => {
    both("unsupported", { type: "preimage-sha-256", preimage: "" }, "preimage");
    both("unsupported", { type: "zenroom-sha-256", public_key: key }, "zenroom");
    both("unsupported", th(1, [{ type: "rsa-sha-256" }]), "nested rsa");
  });

  it("parse: malformed details", () => {
    both("parse", null, "null");
    both("parse", [], "array");
    both("parse", { public_key: key }, "no type");
    both("parse", { type: 4, public_key: key }, "numeric type");
    both("parse", { type: "ed25519-sha-256" }, "no key");
    both("parse", ed(encodeBase58(leaf.publicKey.bytes.subarray(1))), "31-byte key");
    both("parse", ed(key.replace(/.$/, "0")), "not base58");
    both("parse", ed(5), "numeric key");
    both("parse", th(0, [ed()]), "threshold 0");
    both("parse", th(1.5, [ed()]), "threshold 1.5");
    both("parse", th(new JsonNumber("1.0", true), [ed()]), "threshold 1.0");
    both("parse", th("1", [ed()]), "threshold string");
    both("parse", th(true, [ed()]), "threshold true");
    both("parse", th(2, [ed()]), "2 of 1");
    both("parse", th(1, []), "1 of 0");
    both("parse", th(1, ed()), "subconditions not an array");
  });

  it(`too-deep: a node at depth ${nestingDepthMax + 1}, checked before anything else`, () => {
    assert.doesNotThrow(() => conditionUriOfDetails(nestedDetails(nestingDepthMax)));
    both("too-deep", nestedDetails(nestingDepthMax + 1), "depth 100");
    // BigchainDB checks the depth first: even a garbage node at depth 100 is ThresholdTooDeep.
    both("too-deep", nestedDetails(nestingDepthMax + 1, "garbage"), "garbage at depth 100");
  });

  it("limit: threshold over the schema's 100, too many subconditions", () => {
    const many = (n: number) => Array.from({ length: n }, () => ed());
    assert.doesNotThrow(() => conditionUriOfDetails(th(subfulfillmentsMax, many(subfulfillmentsMax))));
    both("limit", th(subfulfillmentsMax + 1, many(subfulfillmentsMax + 1)), "threshold");
    assert.doesNotThrow(() => conditionUriOfDetails(th(1, many(subconditionsMax))));
    both("limit", th(1, many(subconditionsMax + 1)), "subconditions");
  });
});
