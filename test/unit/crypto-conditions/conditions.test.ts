// Condition URIs, costs and subtypes, key lists, threshold building and verification.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { conditionOfDetails } from "../../../src/crypto-conditions/conditionOfDetails.js";
import { conditionUriAndKeysOfDetails, conditionUriOfDetails } from "../../../src/crypto-conditions/conditionUriOfDetails.js";
import { conditionUriOfFulfillment } from "../../../src/crypto-conditions/conditionUriOfFulfillment.js";
import { CryptoConditionError } from "../../../src/crypto-conditions/cryptoConditionError.js";
import { decodeFulfillment } from "../../../src/crypto-conditions/decodeFulfillment.js";
import { ed25519PublicKey } from "../../../src/crypto-conditions/ed25519PublicKey.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import { encodeFulfillment } from "../../../src/crypto-conditions/encodeFulfillment.js";
import { publicKeyFromSeed } from "../../../src/crypto-conditions/publicKeyFromSeed.js";
import { publicKeysOfDetails } from "../../../src/crypto-conditions/publicKeysOfDetails.js";
import { publicKeysOfFulfillment } from "../../../src/crypto-conditions/publicKeysOfFulfillment.js";
import { signEd25519Fulfillment } from "../../../src/crypto-conditions/signEd25519Fulfillment.js";
import { signThresholdFulfillment } from "../../../src/crypto-conditions/signThresholdFulfillment.js";
import type { Fulfillment, ThresholdFulfillment } from "../../../src/crypto-conditions/types.js";
import { verifyFulfillment } from "../../../src/crypto-conditions/verifyFulfillment.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { loadKeys } from "../../helpers/vectors.js";
import { seededBytes } from "./seededRandom.js";

const vectorKeys = loadKeys();
const seeds = [vectorKeys.alice, vectorKeys.bob, vectorKeys.carol].map((k) => Buffer.from(k.seed_hex, "hex"));
const [alice, bob, carol] = [vectorKeys.alice.public_key, vectorKeys.bob.public_key, vectorKeys.carol.public_key];
const signersOf = (...names: string[]) =>
  new Map(names.map((name) => [name, seeds[[alice, bob, carol].indexOf(name)]!] as const));
const ed = (public_key: string): JsonObject => ({ type: "ed25519-sha-256", public_key });
const th = (threshold: number, ...subconditions: JsonObject[]): JsonObject => ({
  type: "threshold-sha-256",
  threshold,
  subconditions,
});
const message = seededBytes("conditions message", 32);

describe("condition URIs", () => {
  it("ed25519: sha-256 of 30 22 80 20 <pub32>, cost 131072 (§2.4)", () => {
    const publicKey = publicKeyFromSeed(seeds[0]!);
    const fingerprint = createHash("sha256").update(Buffer.from("30228020", "hex")).update(publicKey).digest("base64url");
    const uri = `ni:///sha-256;${fingerprint}?fpt=ed25519-sha-256&cost=131072`;
    assert.equal(uri, "ni:///sha-256;-OVIKcOeTJ7STzi8HtLIbFBlvEQMFx1BXCaxv7FWwts?fpt=ed25519-sha-256&cost=131072");
    assert.equal(conditionUriOfDetails(ed(alice)), uri);
    assert.equal(conditionUriOfFulfillment(signEd25519Fulfillment(seeds[0]!, message)), uri);
  });

  it("threshold: sha-256 of SEQUENCE { [0] threshold, [1] SET OF sorted conditions }", () => {
    const conditionDer = (b58: string) => {
      const fp = conditionOfDetails(ed(b58)).fingerprint;
      return Buffer.concat([Buffer.from("a4278020", "hex"), fp, Buffer.from("8103020000", "hex")]);
    };
    const sorted = [conditionDer(alice), conditionDer(bob)].sort(Buffer.compare);
    const set = Buffer.concat([Buffer.from([0xa1, 0x52]), ...sorted]);
    const contents = Buffer.concat([Buffer.from([0x30, 0x57, 0x80, 0x01, 0x02]), set]);
    const fingerprint = createHash("sha256").update(contents).digest();
    const condition = conditionOfDetails(th(2, ed(alice), ed(bob)));
    assert.equal(Buffer.from(condition.fingerprint).toString("hex"), fingerprint.toString("hex"));
    assert.equal(condition.cost, 2 * 131072 + 2 * 1024);
    assert.deepEqual(condition.subtypes, ["ed25519-sha-256"]);
  });

  it("costs: the `threshold` largest subcondition costs plus 1024 per subcondition", () => {
    assert.equal(conditionOfDetails(th(1, ed(alice), ed(bob), ed(carol))).cost, 131072 + 3 * 1024);
    assert.equal(conditionOfDetails(th(3, ed(alice), ed(bob), ed(carol))).cost, 3 * 131072 + 3 * 1024);
    const inner = 131072 + 2 * 1024; // 1-of-2
    assert.equal(conditionOfDetails(th(1, ed(alice), th(1, ed(bob), ed(carol)))).cost, inner + 2 * 1024);
    assert.equal(conditionOfDetails(th(2, ed(alice), th(1, ed(bob), ed(carol)))).cost, inner + 131072 + 2 * 1024);
  });

  it("subtypes never name threshold-sha-256, even with nested thresholds (both references drop it)", () => {
    const uri = conditionUriOfDetails(th(1, th(1, ed(alice)), ed(bob)));
    assert.match(uri, /\?fpt=threshold-sha-256&cost=\d+&subtypes=ed25519-sha-256$/);
    assert.match(conditionUriOfDetails(th(1, th(1, ed(alice)))), /&subtypes=ed25519-sha-256$/);
  });

  it("the order of subconditions in details does not change the URI (DER SET OF)", () => {
    const a = conditionUriOfDetails(th(2, ed(alice), ed(bob), th(1, ed(carol), ed(alice))));
    const b = conditionUriOfDetails(th(2, th(1, ed(alice), ed(carol)), ed(bob), ed(alice)));
    assert.equal(a, b);
    assert.notEqual(a, conditionUriOfDetails(th(1, ed(alice), ed(bob), th(1, ed(carol), ed(alice)))));
  });
});

describe("public key lists", () => {
  it("publicKeysOfDetails: every key, once, in order of appearance", () => {
    assert.deepEqual(publicKeysOfDetails(ed(bob)), [bob]);
    assert.deepEqual(publicKeysOfDetails(th(2, ed(carol), th(1, ed(alice), ed(carol)), ed(bob))), [carol, alice, bob]);
  });

  it("conditionUriAndKeysOfDetails: both in one walk, as the separate functions give them", () => {
    for (const details of [ed(bob), th(1, ed(alice)), th(2, ed(carol), th(1, ed(alice), ed(carol)), ed(bob))]) {
      const both = conditionUriAndKeysOfDetails(details);
      assert.equal(both.uri, conditionUriOfDetails(details));
      assert.deepEqual(both.publicKeys, publicKeysOfDetails(details));
    }
  });

  it("publicKeysOfFulfillment: only the keys that signed", () => {
    const details = th(2, ed(alice), ed(bob), th(1, ed(carol), ed(alice)));
    const fulfillment = signThresholdFulfillment(details, signersOf(alice, carol), message);
    assert.deepEqual([...publicKeysOfFulfillment(fulfillment)].sort(), [alice, carol].sort());
    assert.deepEqual(publicKeysOfFulfillment(signEd25519Fulfillment(seeds[1]!, message)), [bob]);
  });
});

describe("signThresholdFulfillment", () => {
  it("2-of-3 with three signers sends the 2 cheapest (first) as fulfillments, the third as a condition", () => {
    const details = th(2, ed(alice), ed(bob), ed(carol));
    const fulfillment = signThresholdFulfillment(details, signersOf(alice, bob, carol), message);
    assert.equal(fulfillment.subfulfillments.length, 2);
    assert.equal(fulfillment.subconditions.length, 1);
    assert.deepEqual([...publicKeysOfFulfillment(fulfillment)].sort(), [alice, bob].sort());
    assert.equal(conditionUriOfFulfillment(fulfillment), conditionUriOfDetails(details));
    const text = encodeFulfillment(fulfillment);
    assert.equal(verifyFulfillment(decodeFulfillment(text), message), true);
  });

  it("n-of-n, m-of-n and nested trees fulfill the details' condition", () => {
    const cases: [JsonObject, string[]][] = [
      [th(3, ed(alice), ed(bob), ed(carol)), [alice, bob, carol]],
      [th(1, ed(alice), ed(bob), ed(carol)), [carol]],
      [th(2, ed(alice), th(2, ed(bob), ed(carol))), [alice, bob, carol]],
      [th(1, th(2, ed(alice), ed(bob)), ed(carol)), [alice, bob]],
      [th(2, ed(alice), ed(alice)), [alice]],
    ];
    for (const [details, names] of cases) {
      const fulfillment = decodeFulfillment(encodeFulfillment(signThresholdFulfillment(details, signersOf(...names), message)));
      assert.equal(conditionUriOfFulfillment(fulfillment), conditionUriOfDetails(details), JSON.stringify(details));
      assert.equal(verifyFulfillment(fulfillment, message), true);
      assert.equal(verifyFulfillment(fulfillment, seededBytes("another message", 32)), false);
    }
  });

  it("refuses signers short of the threshold, a seed of another key, and non-threshold details", () => {
    assert.throws(() => signThresholdFulfillment(th(2, ed(alice), ed(bob)), signersOf(alice), message), /do not meet/);
    const wrongSeed = new Map([[alice, seeds[1]!]]);
    assert.throws(() => signThresholdFulfillment(th(1, ed(alice)), wrongSeed, message), /another key's/);
    assert.throws(
      () => signThresholdFulfillment(ed(alice), signersOf(alice), message),
      (e: unknown) => e instanceof CryptoConditionError && e.reason === "unsupported",
    );
  });
});

describe("verifyFulfillment", () => {
  const signedBy = (i: number, m: Uint8Array = message) => signEd25519Fulfillment(seeds[i]!, m);

  it("a threshold is valid only if every subfulfillment is (both references)", () => {
    const good: ThresholdFulfillment = { type: "threshold-sha-256", subfulfillments: [signedBy(0), signedBy(1)], subconditions: [] };
    assert.equal(verifyFulfillment(good, message), true);
    const oneBad: ThresholdFulfillment = {
      type: "threshold-sha-256",
      subfulfillments: [signedBy(0), signedBy(1, seededBytes("other", 32))],
      subconditions: [],
    };
    assert.equal(verifyFulfillment(oneBad, message), false);
    const nestedBad: Fulfillment = { type: "threshold-sha-256", subfulfillments: [oneBad, signedBy(2)], subconditions: [] };
    assert.equal(verifyFulfillment(nestedBad, message), false);
    const empty: ThresholdFulfillment = { type: "threshold-sha-256", subfulfillments: [], subconditions: [] };
    assert.equal(verifyFulfillment(empty, message), false);
  });

  it("ed25519: a changed message, key or signature fails; odd lengths are false, not errors", () => {
    const f = signedBy(0);
    assert.equal(verifyFulfillment(f, message), true);
    const flippedSignature = new Uint8Array(f.signature);
    flippedSignature[10]! ^= 1;
    assert.equal(verifyFulfillment({ ...f, signature: flippedSignature }, message), false);
    const withKey = (bytes: Uint8Array) => ({ ...f, publicKey: ed25519PublicKey(bytes) });
    assert.equal(verifyFulfillment(withKey(publicKeyFromSeed(seeds[1]!)), message), false);
    assert.equal(verifyFulfillment(withKey(f.publicKey.bytes.subarray(1)), message), false);
    assert.equal(verifyFulfillment({ ...f, signature: f.signature.subarray(1) }, message), false);
    assert.equal(verifyFulfillment(withKey(new Uint8Array(32).fill(0xff)), message), false);
    assert.equal(encodeBase58(f.publicKey.bytes), alice);
    assert.equal(f.publicKey.base58, alice);
  });
});
