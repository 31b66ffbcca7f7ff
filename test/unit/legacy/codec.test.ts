// The cc:/cf: text forms of cryptoconditions 0.4.1 (docs/legacy-variants.md §1.4): conditions,
// fingerprints, max fulfillment lengths, fulfillment payloads, strict decoding, and verification.
import assert from "node:assert/strict";
import { createHash, sign } from "node:crypto";
import { describe, it } from "node:test";
import { CryptoConditionError } from "../../../src/crypto-conditions/cryptoConditionError.js";
import { decodePublicKey } from "../../../src/crypto-conditions/decodePublicKey.js";
import { privateKeyFromSeed } from "../../../src/crypto-conditions/privateKeyFromSeed.js";
import { decodeLegacyCondition } from "../../../src/legacy/decodeLegacyCondition.js";
import { decodeLegacyFulfillment } from "../../../src/legacy/decodeLegacyFulfillment.js";
import { encodeLegacyCondition } from "../../../src/legacy/encodeLegacyCondition.js";
import { encodeLegacyFulfillment } from "../../../src/legacy/encodeLegacyFulfillment.js";
import { legacyConditionOfFulfillment } from "../../../src/legacy/legacyConditionOfFulfillment.js";
import { legacyDetailsOfOwners } from "../../../src/legacy/legacyDetailsOfOwners.js";
import { legacyEd25519Condition } from "../../../src/legacy/legacyEd25519Condition.js";
import { legacyThresholdCondition } from "../../../src/legacy/legacyThresholdCondition.js";
import { readLegacyDetails } from "../../../src/legacy/readLegacyDetails.js";
import type {
  LegacyEd25519Fulfillment,
  LegacyFulfillment,
  LegacyThresholdBranch,
} from "../../../src/legacy/types.js";
import { verifyLegacyFulfillment } from "../../../src/legacy/verifyLegacyFulfillment.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { keypairOf } from "../../helpers/txFactory.js";

const [alice, bob, carol] = ["alice", "bob", "carol"].map(keypairOf) as [
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
];
const raw = (key: { publicKey: string }) => decodePublicKey(key.publicKey)!;
const message = Buffer.from('{"a legacy":"message"}', "utf8");

function signed(key: { seed: Uint8Array; publicKey: string }, text: Uint8Array = message): LegacyEd25519Fulfillment {
  return { typeId: 4, publicKey: raw(key), signature: new Uint8Array(sign(null, text, privateKeyFromSeed(key.seed))) };
}

function throwsReason(run: () => unknown, reason: string): void {
  assert.throws(run, (error: unknown) => error instanceof CryptoConditionError && error.reason === reason);
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const ed25519ConditionBinary = (key: { publicKey: string }) =>
  Buffer.concat([Buffer.from("0004012020", "hex"), raw(key), Buffer.from("0160", "hex")]);

describe("Ed25519", () => {
  it("condition: cc:4:20:<base64url(key)>:96, the key itself as the hash", () => {
    const uri = encodeLegacyCondition(legacyEd25519Condition(raw(alice)));
    assert.equal(uri, `cc:4:20:${b64(raw(alice))}:96`);
    assert.equal(uri.split(":")[3]!.length, 43);
    const decoded = decodeLegacyCondition(uri);
    assert.deepEqual([decoded.typeId, decoded.bitmask, decoded.maxFulfillmentLength], [4, 0x20, 96]);
    assert.deepEqual(Buffer.from(decoded.hash), Buffer.from(raw(alice)));
  });

  it("fulfillment: cf:4:<base64url(key ‖ signature)>, a 128-character payload, round trip, verifies", () => {
    const fulfillment = signed(alice);
    const uri = encodeLegacyFulfillment(fulfillment);
    assert.equal(uri.length, "cf:4:".length + 128);
    assert.equal(uri, `cf:4:${b64(Buffer.concat([fulfillment.publicKey, fulfillment.signature]))}`);
    const decoded = decodeLegacyFulfillment(uri) as LegacyEd25519Fulfillment;
    assert.deepEqual(Buffer.from(decoded.publicKey), Buffer.from(fulfillment.publicKey));
    assert.deepEqual(Buffer.from(decoded.signature), Buffer.from(fulfillment.signature));
    assert.equal(verifyLegacyFulfillment(decodeLegacyFulfillment(uri), message), true);
    assert.equal(verifyLegacyFulfillment(signed(alice, Buffer.from("other")), message), false);
    assert.equal(encodeLegacyCondition(legacyConditionOfFulfillment(fulfillment)), `cc:4:20:${b64(raw(alice))}:96`);
  });

  it("details: the ones create_tx writes, and nothing else", () => {
    const details = legacyDetailsOfOwners([alice.publicKey]);
    assert.deepEqual(details, { bitmask: 32, public_key: alice.publicKey, signature: null, type: "fulfillment", type_id: 4 });
    assert.deepEqual(readLegacyDetails(details).publicKeys, [alice.publicKey]);
    throwsReason(() => readLegacyDetails({ ...details, signature: "x" }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, bitmask: 33 }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, extra: 1 }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, public_key: "0OIl" }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, type_id: 0 }), "unsupported");
    const { signature: _, ...missing } = details;
    throwsReason(() => readLegacyDetails(missing), "parse");
  });
});

describe("Threshold-SHA-256", () => {
  it("fingerprint: sha256(uint32(threshold) ‖ varuint(count) ‖ sorted[varuint(weight) ‖ condbin]) (docs/legacy-variants.md §1.4)", () => {
    // By hand, from the formula: both entries have the same length, so they sort by bytes.
    const entries = [alice, bob].map((key) => Buffer.concat([Buffer.from("0101", "hex"), ed25519ConditionBinary(key)]));
    entries.sort(Buffer.compare);
    const payload = Buffer.concat([Buffer.from("00000002" + "0102", "hex"), ...entries]);
    const fingerprint = createHash("sha256").update(payload).digest("base64url");
    const condition = readLegacyDetails(legacyDetailsOfOwners([alice.publicKey, bob.publicKey])).condition;
    assert.equal(encodeLegacyCondition(condition), `cc:2:29:${fingerprint}:206`);
    // The owners' order does not matter: the entries are sorted.
    const swapped = readLegacyDetails(legacyDetailsOfOwners([bob.publicKey, alice.publicKey])).condition;
    assert.equal(encodeLegacyCondition(swapped), encodeLegacyCondition(condition));
  });

  it("max fulfillment length follows calculate_max_fulfillment_length", () => {
    const ed = (key: { publicKey: string }, weight = 1) => ({ weight, condition: legacyEd25519Condition(raw(key)) });
    // header 4 + count 2 + presence bytes, + 39 per condition binary, + 60 per fulfilled Ed25519.
    assert.equal(legacyThresholdCondition(2, [ed(alice), ed(bob)]).maxFulfillmentLength, 206);
    assert.equal(legacyThresholdCondition(3, [ed(alice), ed(bob), ed(carol)]).maxFulfillmentLength, 306);
    assert.equal(legacyThresholdCondition(1, [ed(alice), ed(bob)]).maxFulfillmentLength, 146);
    // A weight other than 1 adds its varuint (2 bytes) to the header.
    assert.equal(legacyThresholdCondition(2, [ed(alice, 2), ed(bob)]).maxFulfillmentLength, 208);
    // Nested: the inner 2-of-2 has a 39-byte condition binary and a 210-byte fulfillment binary.
    const inner = { weight: 1, condition: legacyThresholdCondition(2, [ed(bob), ed(carol)]) };
    assert.equal(legacyThresholdCondition(2, [ed(alice), inner]).maxFulfillmentLength, 317);
    assert.equal(legacyThresholdCondition(2, [ed(alice), inner]).bitmask, 0x29);
    throwsReason(() => legacyThresholdCondition(3, [ed(alice), ed(bob)]), "parse");
    throwsReason(() => legacyThresholdCondition(1, []), "parse");
  });

  it("details: n-of-n of weight-1 subfulfillments, bitmask 41", () => {
    const details = legacyDetailsOfOwners([alice.publicKey, bob.publicKey, carol.publicKey]);
    assert.equal(details["bitmask"], 41);
    assert.equal(details["threshold"], 3);
    assert.deepEqual(readLegacyDetails(details).publicKeys, [alice.publicKey, bob.publicKey, carol.publicKey]);
    const subs = details["subfulfillments"] as JsonObject[];
    throwsReason(() => readLegacyDetails({ ...details, bitmask: 9 }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, threshold: 0 }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, threshold: 4 }), "parse");
    throwsReason(() => readLegacyDetails({ ...details, subfulfillments: [] }), "limit");
    throwsReason(() => readLegacyDetails({ ...details, subfulfillments: [{ ...subs[0]!, weight: 0 }] }), "parse");
    // Unfulfilled "condition" branches are not what create_tx writes.
    const asCondition = { type: "condition", type_id: 4, bitmask: 32, hash: alice.publicKey, max_fulfillment_length: 96, weight: 1 };
    throwsReason(() => readLegacyDetails({ ...details, subfulfillments: [asCondition] }), "parse");
    // Nesting is bounded.
    let deep: JsonObject = legacyDetailsOfOwners([alice.publicKey, bob.publicKey]);
    for (let i = 0; i < 9; i++) deep = { bitmask: 41, subfulfillments: [{ ...deep, weight: 1 }], threshold: 1, type: "fulfillment", type_id: 2 };
    throwsReason(() => readLegacyDetails(deep), "too-deep");
  });

  const fulfilled = (...keys: { seed: Uint8Array; publicKey: string }[]): LegacyThresholdBranch[] =>
    keys.map((key) => ({ weight: 1, fulfillment: signed(key) }));

  it("fulfillment: round trip; its condition is the details' condition; every owner must sign", () => {
    const full: LegacyFulfillment = { typeId: 2, threshold: 2, branches: fulfilled(alice, bob) };
    const uri = encodeLegacyFulfillment(full);
    assert.match(uri, /^cf:2:[A-Za-z0-9_-]+$/);
    const decoded = decodeLegacyFulfillment(uri);
    assert.equal(encodeLegacyFulfillment(decoded), uri);
    const expected = readLegacyDetails(legacyDetailsOfOwners([alice.publicKey, bob.publicKey])).condition;
    assert.equal(encodeLegacyCondition(legacyConditionOfFulfillment(decoded)), encodeLegacyCondition(expected));
    assert.equal(verifyLegacyFulfillment(decoded, message), true);
    // One of two signed, the other as its condition: the same condition, but below the threshold.
    const half: LegacyFulfillment = {
      typeId: 2,
      threshold: 2,
      branches: [...fulfilled(alice), { weight: 1, condition: legacyEd25519Condition(raw(bob)) }],
    };
    const halfDecoded = decodeLegacyFulfillment(encodeLegacyFulfillment(half));
    assert.equal(encodeLegacyCondition(legacyConditionOfFulfillment(halfDecoded)), encodeLegacyCondition(expected));
    assert.equal(verifyLegacyFulfillment(halfDecoded, message), false);
    // 1-of-2 with one signature is enough.
    assert.equal(verifyLegacyFulfillment({ ...half, threshold: 1 }, message), true);
    // A bad subsignature fails the whole.
    const bad = { typeId: 2, threshold: 2, branches: [...fulfilled(alice), { weight: 1, fulfillment: signed(bob, Buffer.from("x")) }] } as const;
    assert.equal(verifyLegacyFulfillment(bad, message), false);
  });

  it("weights add up as the original added them: the running minimum", () => {
    const branches: LegacyThresholdBranch[] = [
      { weight: 1, fulfillment: signed(alice) },
      { weight: 2, fulfillment: signed(bob) },
    ];
    // Honest sum 3, original sum 1 + min(1, 2) = 2.
    assert.equal(verifyLegacyFulfillment({ typeId: 2, threshold: 3, branches }, message), false);
    assert.equal(verifyLegacyFulfillment({ typeId: 2, threshold: 3, branches: [...branches].reverse() }, message), true);
  });
});

describe("strict decoding", () => {
  const edPayload = (bytes: Uint8Array) => `cf:4:${b64(bytes)}`;
  const good = signed(alice);
  const goodBytes = Buffer.concat([good.publicKey, good.signature]);

  it("fulfillment URIs: the pattern, the types, the lengths", () => {
    throwsReason(() => decodeLegacyFulfillment(edPayload(goodBytes.subarray(0, 95))), "parse");
    throwsReason(() => decodeLegacyFulfillment(edPayload(Buffer.concat([goodBytes, Buffer.of(0)]))), "parse");
    throwsReason(() => decodeLegacyFulfillment(`cf:0:${b64(goodBytes)}`), "unsupported");
    throwsReason(() => decodeLegacyFulfillment(`cf:04:${b64(goodBytes)}`), "parse");
    throwsReason(() => decodeLegacyFulfillment(`CF:4:${b64(goodBytes)}`), "parse");
    throwsReason(() => decodeLegacyFulfillment(`cf:4:${Buffer.from(goodBytes).toString("base64")}`), "parse");
    throwsReason(() => decodeLegacyFulfillment(`cf:4:${b64(goodBytes)}=`), "parse");
    throwsReason(() => decodeLegacyFulfillment("cf:4:"), "parse");
    throwsReason(() => decodeLegacyFulfillment(`cf:4:${"A".repeat(70_000)}`), "limit");
  });

  // A threshold payload by hand: threshold, count, entries as given (not sorted).
  const thresholdUri = (threshold: number, entries: Buffer[]) =>
    `cf:2:${b64(Buffer.concat([Buffer.of(1, threshold, 1, entries.length), ...entries]))}`;
  const edBinary = (f: LegacyEd25519Fulfillment) =>
    Buffer.concat([Buffer.from("000460", "hex"), f.publicKey, f.signature]);
  const entry = (fulfillment: Buffer, condition: Buffer) =>
    Buffer.concat([Buffer.of(1, 1), varOctets(fulfillment), varOctets(condition)]);
  const varOctets = (bytes: Buffer) =>
    bytes.length <= 127 ? Buffer.concat([Buffer.of(bytes.length), bytes]) : Buffer.concat([Buffer.of(0x81, bytes.length), bytes]);
  const none = Buffer.alloc(0);

  it("threshold payloads: the hand-made canonical form decodes", () => {
    const entries = [entry(edBinary(signed(alice)), none), entry(edBinary(signed(bob)), none)].sort(Buffer.compare);
    const uri = thresholdUri(2, entries);
    assert.equal(encodeLegacyFulfillment(decodeLegacyFulfillment(uri)), uri);
    assert.equal(verifyLegacyFulfillment(decodeLegacyFulfillment(uri), message), true);
  });

  it("threshold payloads: order, both or neither, minimal varuints, limits", () => {
    const entries = [entry(edBinary(signed(alice)), none), entry(edBinary(signed(bob)), none)].sort(Buffer.compare);
    throwsReason(() => decodeLegacyFulfillment(thresholdUri(2, [...entries].reverse())), "parse");
    throwsReason(() => decodeLegacyFulfillment(thresholdUri(1, [entry(edBinary(good), ed25519ConditionBinary(alice))])), "parse");
    throwsReason(() => decodeLegacyFulfillment(thresholdUri(1, [entry(none, none)])), "parse");
    throwsReason(() => decodeLegacyFulfillment(thresholdUri(0, entries)), "parse");
    // Threshold 2 written as the two-byte varuint 00 02.
    const padded = `cf:2:${b64(Buffer.concat([Buffer.of(2, 0, 2, 1, 2), ...entries]))}`;
    throwsReason(() => decodeLegacyFulfillment(padded), "parse");
    // A subcondition of an unsupported type (0, preimage).
    const preimage = Buffer.concat([Buffer.from("0000010320", "hex"), Buffer.alloc(32), Buffer.from("0100", "hex")]);
    throwsReason(() => decodeLegacyFulfillment(thresholdUri(1, [entry(edBinary(good), none), entry(none, preimage)].sort(Buffer.compare))), "unsupported");
  });

  it("threshold payloads: nesting is bounded", () => {
    let fulfillment: LegacyFulfillment = signed(alice);
    for (let depth = 0; depth < 8; depth++) fulfillment = { typeId: 2, threshold: 1, branches: [{ weight: 1, fulfillment }] };
    assert.equal(verifyLegacyFulfillment(decodeLegacyFulfillment(encodeLegacyFulfillment(fulfillment)), message), true);
    const deeper: LegacyFulfillment = { typeId: 2, threshold: 1, branches: [{ weight: 1, fulfillment }] };
    throwsReason(() => decodeLegacyFulfillment(encodeLegacyFulfillment(deeper)), "too-deep");
  });

  it("condition URIs: the strict pattern, the types, canonical base64url, Ed25519's fixed fields", () => {
    const hash = b64(raw(alice));
    assert.equal(encodeLegacyCondition(decodeLegacyCondition(`cc:2:29:${hash}:206`)), `cc:2:29:${hash}:206`);
    throwsReason(() => decodeLegacyCondition(`cc:4:20:${hash}:97`), "parse");
    throwsReason(() => decodeLegacyCondition(`cc:4:21:${hash}:96`), "parse");
    throwsReason(() => decodeLegacyCondition(`cc:2:20:${hash}:206`), "parse");
    throwsReason(() => decodeLegacyCondition(`cc:2:29:${hash}:0206`), "parse");
    throwsReason(() => decodeLegacyCondition(`cc:2:2A:${hash}:206`), "parse");
    throwsReason(() => decodeLegacyCondition(`cc:0:3:${hash}:0`), "unsupported");
    throwsReason(() => decodeLegacyCondition(`cc:4:20:${hash.slice(0, 42)}:96`), "parse");
    throwsReason(() => decodeLegacyCondition(`cc:4:20:${hash}=:96`), "parse");
    throwsReason(() => decodeLegacyCondition(`ni:///sha-256;${hash}?fpt=ed25519-sha-256&cost=131072`), "parse");
  });
});
