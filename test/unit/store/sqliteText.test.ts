// The SQLite side of text search and keys: keyHash, searchText, toFtsMatch (pure helpers).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keyHash } from "../../../src/store/sqlite/keyHash.js";
import { searchText, valueBarrier } from "../../../src/store/searchText.js";
import { toFtsMatch } from "../../../src/store/sqlite/toFtsMatch.js";
import { hex64, publicKey } from "./fixtures.js";

describe("keyHash", () => {
  it("is a deterministic 48-bit non-negative integer", () => {
    for (const text of ["", "a", hex64("x"), publicKey("y"), "é😀"]) {
      const h = keyHash(text);
      assert.equal(keyHash(text), h);
      assert.ok(Number.isSafeInteger(h) && h >= 0 && h < 2 ** 48, `${text}: ${h}`);
    }
  });

  it("spreads ids and keys: no collision among 200,000 of each", () => {
    for (const make of [hex64, publicKey]) {
      const seen = new Set<number>();
      for (let i = 0; i < 200_000; i++) seen.add(keyHash(make(`k${i}`)));
      assert.equal(seen.size, 200_000);
    }
  });

  it("differs for near strings", () => {
    assert.notEqual(keyHash("ab"), keyHash("ba"));
    assert.notEqual(keyHash("a"), keyHash("a\u0000"));
  });
});

describe("searchText", () => {
  const b = ` ${valueBarrier} `;

  it("indexes the id and every string value, in document order, not keys or other values", () => {
    const document = { name: "x", n: 1, t: true, z: null, deep: { list: ["y", { k: "w" }] } };
    const json = JSON.stringify(document);
    assert.equal(searchText("ID", json), ["ID", "x", "y", "w"].join(b));
  });

  it("keeps a document's own barrier characters out", () => {
    assert.equal(searchText("ID", JSON.stringify({ a: `p${valueBarrier}q` })), `ID${b}p q`);
  });

  it("handles deep nesting without recursion", () => {
    const json = `${"[".repeat(10_000)}"bottom"${"]".repeat(10_000)}`;
    assert.equal(searchText("ID", json), `ID${b}bottom`);
  });
});

describe("toFtsMatch", () => {
  it("quotes every word and phrase", () => {
    assert.equal(toFtsMatch({ terms: ["a", "b"], phrases: [], excluded: [] }), '("a" OR "b")');
    assert.equal(
      toFtsMatch({ terms: ["a"], phrases: [["b", "c"]], excluded: [["d"], ["e", "f"]] }),
      '(("a") AND "b c") NOT ("d" OR "e f")',
    );
  });

  it("doubles a quote inside a word", () => {
    assert.equal(toFtsMatch({ terms: ['a"b'], phrases: [], excluded: [] }), '("a""b")');
  });

  it("gives null when no term can match", () => {
    assert.equal(toFtsMatch({ terms: [], phrases: [["the"]], excluded: [["x"]] }), null);
  });
});
