import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CryptoConditionError } from "../../../src/crypto-conditions/cryptoConditionError.js";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";
import { decodeBase64Url } from "../../../src/crypto-conditions/decodeBase64Url.js";
import { decodePublicKey } from "../../../src/crypto-conditions/decodePublicKey.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import { base58CharsMax } from "../../../src/crypto-conditions/limits.js";
import { publicKeyFromSeed } from "../../../src/crypto-conditions/publicKeyFromSeed.js";
import { loadKeys } from "../../helpers/vectors.js";
import { SeededRandom, seededBytes } from "./seededRandom.js";

const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** The textbook definition with BigInt, as the reference the fast limb code is checked against. */
function referenceEncode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let text = "";
  while (n > 0n) {
    text = alphabet[Number(n % 58n)] + text;
    n /= 58n;
  }
  return "1".repeat(zeros) + text;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("base58", () => {
  it("gives the driver's keys for the vector seeds (keys.json)", () => {
    for (const [name, key] of Object.entries(loadKeys())) {
      const seed = Buffer.from(key.seed_hex, "hex");
      assert.equal(encodeBase58(seed), key.private_key, `${name} private key`);
      assert.equal(encodeBase58(publicKeyFromSeed(seed)), key.public_key, `${name} public key`);
      assert.equal(hex(decodeBase58(key.private_key)), key.seed_hex, `${name} seed`);
      assert.equal(hex(decodePublicKey(key.public_key)!), hex(publicKeyFromSeed(seed)), `${name} decodePublicKey`);
    }
  });

  it("matches known values, leading zeros included", () => {
    assert.equal(encodeBase58(new Uint8Array()), "");
    assert.equal(encodeBase58(Uint8Array.of(0)), "1");
    assert.equal(encodeBase58(Uint8Array.of(0, 0, 1)), "112");
    assert.equal(encodeBase58(Uint8Array.of(57)), "z");
    assert.equal(encodeBase58(Uint8Array.of(58)), "21");
    assert.equal(encodeBase58(Buffer.from("hello world")), "StV1DL6CwTryKyV");
    assert.equal(encodeBase58(new Uint8Array(32)), "1".repeat(32));
    assert.equal(hex(decodeBase58("")), "");
    assert.equal(hex(decodeBase58("111")), "000000");
    assert.equal(hex(decodeBase58("11z")), "000039");
    assert.equal(Buffer.from(decodeBase58("StV1DL6CwTryKyV")).toString(), "hello world");
  });

  it("round-trips random bytes of every length up to 80 and agrees with BigInt", () => {
    for (let i = 0; i < 2_000; i++) {
      const bytes = seededBytes(i, i % 81);
      if (i % 5 === 0 && bytes.length > 1) bytes.fill(0, 0, 1 + (i % 3)); // leading zeros
      const text = encodeBase58(bytes);
      assert.equal(text, referenceEncode(bytes), `encode ${hex(bytes)}`);
      assert.equal(hex(decodeBase58(text)), hex(bytes), `decode ${text}`);
    }
  });

  it("refuses characters outside the alphabet and texts over the limit", () => {
    for (const bad of ["0", "O", "I", "l", "+", " 2", "2 ", "é", "abc\u0000", "\u{1F511}"]) {
      assert.throws(() => decodeBase58(bad), (e: unknown) => e instanceof Error, bad);
    }
    assert.doesNotThrow(() => decodeBase58("2".repeat(base58CharsMax)));
    assert.throws(() => decodeBase58("2".repeat(base58CharsMax + 1)), /longer than/);
  });

  it("decodePublicKey accepts exactly 32 bytes and nothing else", () => {
    const key = seededBytes(7, 32);
    assert.equal(hex(decodePublicKey(encodeBase58(key))!), hex(key));
    assert.equal(hex(decodePublicKey("1".repeat(32))!), "00".repeat(32));
    assert.equal(decodePublicKey(encodeBase58(seededBytes(8, 31))), null);
    assert.equal(decodePublicKey(encodeBase58(seededBytes(9, 33))), null);
    assert.equal(decodePublicKey("1".repeat(31)), null);
    assert.equal(decodePublicKey(encodeBase58(key).replace(/.$/, "0")), null);
    assert.equal(decodePublicKey(""), null);
    assert.equal(decodePublicKey("z".repeat(44)), null); // 44 digits but more than 32 bytes
  });
});

describe("base64url (fulfillment texts)", () => {
  const base64Url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  it("accepts exactly the texts that are the canonical encoding of their bytes", () => {
    const random = new SeededRandom("base64url");
    let accepted = 0;
    for (let n = 0; n < 5_000; n++) {
      const length = random.int(14);
      let text = "";
      for (let i = 0; i < length; i++) text += base64Url[random.int(64)];
      const canonical = Buffer.from(text, "base64url").toString("base64url") === text;
      if (canonical) {
        assert.deepEqual(Buffer.from(decodeBase64Url(text)), Buffer.from(text, "base64url"), text);
        accepted++;
      } else {
        assert.throws(() => decodeBase64Url(text), CryptoConditionError, text);
      }
    }
    assert.ok(accepted > 1_000 && accepted < 4_500, `${accepted} accepted`);
  });

  it("refuses padding and characters outside the URL alphabet", () => {
    for (const text of ["AA==", "AA+/", "A A", "AAA=", "ÄA"]) assert.throws(() => decodeBase64Url(text), CryptoConditionError, text);
  });
});
