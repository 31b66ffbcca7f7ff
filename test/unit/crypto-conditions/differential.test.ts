// Differential test against the JS reference, crypto-conditions 2.2.1 (the one bigchaindb-driver
// 4.3.0 uses): random ed25519 and threshold fulfillments (m-of-n, nested to depth 3, some
// branches unsigned) built by the reference and by us give the same fulfillment text, the same
// condition URIs and the same verification results, also after a random byte is changed.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { conditionUriOfDetails } from "../../../src/crypto-conditions/conditionUriOfDetails.js";
import { conditionUriOfFulfillment } from "../../../src/crypto-conditions/conditionUriOfFulfillment.js";
import { CryptoConditionError } from "../../../src/crypto-conditions/cryptoConditionError.js";
import { decodeFulfillment } from "../../../src/crypto-conditions/decodeFulfillment.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import { encodeFulfillment } from "../../../src/crypto-conditions/encodeFulfillment.js";
import { publicKeyFromSeed } from "../../../src/crypto-conditions/publicKeyFromSeed.js";
import { signEd25519Fulfillment } from "../../../src/crypto-conditions/signEd25519Fulfillment.js";
import { signThresholdFulfillment } from "../../../src/crypto-conditions/signThresholdFulfillment.js";
import { verifyFulfillment } from "../../../src/crypto-conditions/verifyFulfillment.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { SeededRandom } from "./seededRandom.js";

// The reference's API as used here (its bundled typings do not fit a strict NodeNext build).
interface JsCondition {
  serializeUri(): string;
}
interface JsFulfillment {
  getCondition(): JsCondition;
  getConditionUri(): string;
  serializeUri(): string;
  serializeBinary(): Buffer;
  validate(message: Buffer): boolean;
}
interface JsEd25519 extends JsFulfillment {
  sign(message: Buffer, seed: Buffer): void;
  setPublicKey(publicKey: Buffer): void;
}
interface JsThreshold extends JsFulfillment {
  setThreshold(threshold: number): void;
  addSubfulfillment(f: JsFulfillment): void;
  addSubcondition(c: JsCondition): void;
}
interface CryptoConditionsJs {
  Ed25519Sha256: new () => JsEd25519;
  ThresholdSha256: new () => JsThreshold;
  Fulfillment: { fromBinary(data: Buffer): JsFulfillment };
}
const cc = createRequire(import.meta.url)("crypto-conditions") as CryptoConditionsJs;

const thresholdCases = 300;
const ed25519Cases = 100;
const flipsPerCase = 3;
const random = new SeededRandom("crypto-conditions differential");

// A pool of 8 keys, so that keys repeat inside one tree now and then.
const seeds = Array.from({ length: 8 }, (_, i) => Buffer.alloc(32, i + 1));
const publicKeys = seeds.map((seed) => Buffer.from(publicKeyFromSeed(seed)));
const keys = publicKeys.map((publicKey) => encodeBase58(publicKey));

function randomDetails(depth: number): JsonObject {
  if (depth === 3 || (depth > 0 && random.int(3) === 0)) {
    return { type: "ed25519-sha-256", public_key: keys[random.int(keys.length)]! };
  }
  const n = 1 + random.int(4);
  const subconditions = Array.from({ length: n }, () => randomDetails(depth + 1));
  return { type: "threshold-sha-256", threshold: 1 + random.int(n), subconditions };
}

function depthOf(details: JsonObject): number {
  if (details["type"] !== "threshold-sha-256") return 0;
  return 1 + Math.max(...(details["subconditions"] as JsonObject[]).map(depthOf));
}

type JsBranch = { fulfillment: JsFulfillment } | { condition: JsCondition };

/** The reference's fulfillment (or, short of signers, condition) for details, built its own way. */
function jsBranch(details: JsonObject, signers: Map<string, Buffer>, message: Buffer): JsBranch {
  if (details["type"] === "ed25519-sha-256") {
    const key = details["public_key"] as string;
    const f = new cc.Ed25519Sha256();
    const seed = signers.get(key);
    if (seed !== undefined) {
      f.sign(message, seed);
      return { fulfillment: f };
    }
    f.setPublicKey(publicKeys[keys.indexOf(key)]!);
    return { condition: f.getCondition() };
  }
  const threshold = details["threshold"] as number;
  const children = (details["subconditions"] as JsonObject[]).map((d) => jsBranch(d, signers, message));
  const fulfilled = children.filter((c) => "fulfillment" in c).length;
  const th = new cc.ThresholdSha256();
  th.setThreshold(threshold);
  for (const child of children) {
    if ("fulfillment" in child && fulfilled >= threshold) th.addSubfulfillment(child.fulfillment);
    else th.addSubcondition("fulfillment" in child ? child.fulfillment.getCondition() : child.condition);
  }
  return fulfilled >= threshold ? { fulfillment: th } : { condition: th.getCondition() };
}

const ours = (text: string, message: Buffer): boolean => {
  try {
    return verifyFulfillment(decodeFulfillment(text), message);
  } catch (error) {
    if (error instanceof CryptoConditionError) return false;
    throw error;
  }
};

/** What the reference makes of `bytes`: whether it validates, and whether it writes them back unchanged. */
function theirs(bytes: Buffer, message: Buffer): { valid: boolean; canonical: boolean } {
  // asn1.js throws and reads `.stack` for every CHOICE alternative it tries; without frames that
  // costs nothing, with tsx's source maps it was half of this test's time.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return referenceResult(bytes, message);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function referenceResult(bytes: Buffer, message: Buffer): { valid: boolean; canonical: boolean } {
  let parsed: JsFulfillment;
  try {
    parsed = cc.Fulfillment.fromBinary(bytes);
  } catch {
    return { valid: false, canonical: false };
  }
  let valid = false;
  try {
    valid = parsed.validate(message);
  } catch {
    // The reference throws where the fulfillment is invalid.
  }
  let canonical = false;
  try {
    canonical = parsed.serializeBinary().equals(bytes);
  } catch {
    // Some parsed values cannot be written back.
  }
  return { valid, canonical };
}

/** Changes one random byte and compares both sides; returns whether we refused a form they validate. */
function compareFlipped(text: string, message: Buffer): boolean {
  const bytes = Buffer.from(text, "base64url");
  bytes[random.int(bytes.length)]! ^= 1 + random.int(255);
  const flipped = bytes.toString("base64url");
  const reference = theirs(bytes, message);
  try {
    const fulfillment = decodeFulfillment(flipped);
    assert.equal(reference.canonical, true, `accepted a form the reference would not write: ${flipped}`);
    assert.equal(verifyFulfillment(fulfillment, message), reference.valid, `verification of flipped ${flipped}`);
    return false;
  } catch (error) {
    if (!(error instanceof CryptoConditionError)) throw error;
    // Where we refuse and the reference validates, it must be a form the reference would never
    // write (we only take canonical DER) or a type we do not support (docs/compatibility.md #8).
    if (reference.valid && error.reason !== "unsupported") {
      assert.equal(reference.canonical, false, `refused a canonical fulfillment: ${flipped} (${error.message})`);
    }
    return reference.valid;
  }
}

describe("differential against crypto-conditions 2.2.1", () => {
  it(`${ed25519Cases} ed25519 fulfillments`, () => {
    for (let i = 0; i < ed25519Cases; i++) {
      const seed = Buffer.from(random.bytes(32));
      const message = Buffer.from(random.bytes(32));
      const js = new cc.Ed25519Sha256();
      js.sign(message, seed);
      const text = encodeFulfillment(signEd25519Fulfillment(seed, message));
      assert.equal(text, js.serializeUri());
      const decoded = decodeFulfillment(text);
      assert.equal(conditionUriOfFulfillment(decoded), js.getConditionUri());
      const details = { type: "ed25519-sha-256", public_key: encodeBase58(publicKeyFromSeed(seed)) };
      assert.equal(conditionUriOfDetails(details), js.getConditionUri());
      assert.equal(verifyFulfillment(decoded, message), true);
      assert.equal(js.validate(message), true);
      const otherMessage = Buffer.from(random.bytes(32));
      assert.equal(ours(text, otherMessage), false);
      assert.equal(theirs(Buffer.from(text, "base64url"), otherMessage).valid, false);
      for (let f = 0; f < flipsPerCase; f++) compareFlipped(text, message);
    }
  });

  it(`${thresholdCases} random threshold trees (m-of-n, depth up to 3, partial signers)`, (t) => {
    let signedCases = 0;
    let unmetCases = 0;
    let nestedCases = 0;
    let refusedNonCanonical = 0;
    for (let i = 0; i < thresholdCases; i++) {
      const details = randomDetails(0);
      const signers = new Map<string, Buffer>();
      for (const [k, key] of keys.entries()) if (random.int(3) !== 0) signers.set(key, seeds[k]!);
      const message = Buffer.from(random.bytes(32));
      const js = jsBranch(details, signers, message);
      const uri = "fulfillment" in js ? js.fulfillment.getConditionUri() : js.condition.serializeUri();
      assert.equal(conditionUriOfDetails(details), uri, JSON.stringify(details));
      if (!("fulfillment" in js)) {
        unmetCases++;
        assert.throws(() => signThresholdFulfillment(details, signers, message), /do not meet the threshold/);
        continue;
      }
      signedCases++;
      if (depthOf(details) >= 2) nestedCases++;
      const text = encodeFulfillment(signThresholdFulfillment(details, signers, message));
      assert.equal(text, js.fulfillment.serializeUri(), JSON.stringify(details));
      const decoded = decodeFulfillment(text);
      assert.equal(encodeFulfillment(decoded), text);
      assert.equal(conditionUriOfFulfillment(decoded), uri);
      assert.equal(verifyFulfillment(decoded, message), true);
      assert.deepEqual(theirs(Buffer.from(text, "base64url"), message), { valid: true, canonical: true });
      const otherMessage = Buffer.from(random.bytes(32));
      assert.equal(ours(text, otherMessage), false);
      assert.equal(theirs(Buffer.from(text, "base64url"), otherMessage).valid, false);
      for (let f = 0; f < flipsPerCase; f++) if (compareFlipped(text, message)) refusedNonCanonical++;
    }
    // The random trees must cover each path, or this test proves little.
    assert.ok(signedCases >= 100, `only ${signedCases} signed cases`);
    assert.ok(unmetCases >= 10, `only ${unmetCases} cases short of signers`);
    assert.ok(nestedCases >= 30, `only ${nestedCases} nested cases`);
    t.diagnostic(`${signedCases} signed, ${unmetCases} short of signers, ${nestedCases} nested; ` +
      `${refusedNonCanonical} flips refused as non-canonical where the reference still validates`);
  });
});
