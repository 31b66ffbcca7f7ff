// The proofs' SHA-256 takes node:crypto in Node and @noble/hashes elsewhere (a browser): both
// must give the same bytes, as the same type, or a proof made by the node would not verify in
// a browser.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { sha256, sha256Implementation, sha256Js } from "../../../src/proofs/sha256.js";

function reference(parts: Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

describe("the proofs' SHA-256", () => {
  it("uses node:crypto in Node", () => {
    assert.equal(sha256Implementation, "node:crypto");
  });

  it("gives the same bytes either way, as a plain Uint8Array, for no part, empty parts and many", () => {
    const cases: Uint8Array[][] = [[], [new Uint8Array(0)], [Uint8Array.of(0x01), randomBytes(32), randomBytes(32)], [randomBytes(1000)]];
    for (let n = 0; n < 50; n++) cases.push(Array.from({ length: 1 + (n % 5) }, (_, i) => randomBytes((n * 7 + i * 13) % 97)));
    for (const parts of cases) {
      const expected = reference(parts);
      assert.deepStrictEqual(sha256(...parts), expected);
      assert.deepStrictEqual(sha256Js(...parts), expected);
    }
  });
});
