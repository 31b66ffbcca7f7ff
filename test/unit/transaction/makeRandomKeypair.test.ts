import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { makeKeypair } from "../../../src/transaction/builders/makeKeypair.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { makeCreate } from "../../../src/transaction/builders/makeCreate.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { prepareTx } from "../../../src/transaction/prepareTx.js";

/** A seed whose public key has a 42-character base58 form (found by search; 1 key in ~1,400). */
function seedOf(n: number): Uint8Array {
  const seed = Buffer.alloc(32);
  seed.writeUInt32BE(n, 28);
  return seed;
}
const shortKeySeed = seedOf(123_120);

function createBy(seed: Uint8Array) {
  const owner = makeKeypair(seed);
  return prepareTx(signTx(makeCreate({ issuers: [owner.publicKey], outputs: [{ publicKeys: [owner.publicKey], amount: 1n }], assetData: null, metadata: null }), [owner]));
}

describe("makeRandomKeypair", () => {
  it("a key with a 42-character base58 form is refused by the schema, as by BigchainDB", () => {
    assert.equal(makeKeypair(shortKeySeed).publicKey.length, 42);
    const result = createBy(shortKeySeed);
    assert.ok("code" in result);
    assert.equal(result.code, "SchemaValidationError");
  });

  it("draws again until the key is one the schema accepts", () => {
    const seeds = [shortKeySeed, seedOf(1)];
    let draws = 0;
    const keypair = makeRandomKeypair(() => seeds[draws++]!);
    assert.equal(draws, 2);
    assert.equal(keypair.publicKey, makeKeypair(seedOf(1)).publicKey);
    assert.ok(!("code" in createBy(keypair.seed)));
  });

  it("draws from node:crypto by default", () => {
    const a = makeRandomKeypair();
    const b = makeRandomKeypair();
    assert.notEqual(a.publicKey, b.publicKey);
    assert.ok(a.publicKey.length >= 43 && b.publicKey.length >= 43);
  });
});
