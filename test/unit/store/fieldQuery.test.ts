// The pure side of queries by field: which leaves a document is indexed under.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldKey, fieldLeafKeys, fieldLeavesMax, fieldsMatch } from "../../../src/store/fieldQuery.js";

describe("fieldLeafKeys", () => {
  it("gives each scalar leaf once, arrays transparent, the root not a field", () => {
    const keys = fieldLeafKeys("assets", JSON.stringify({ a: [1, [1, 2]], b: { c: "x" } }));
    assert.deepEqual(keys, [
      fieldKey("assets", { path: ["a"], value: 1 }),
      fieldKey("assets", { path: ["a"], value: 2 }),
      fieldKey("assets", { path: ["b", "c"], value: "x" }),
    ]);
    assert.deepEqual(fieldLeafKeys("assets", '"just a string"'), []);
  });

  it("kinds never share a key", () => {
    const filter = { path: ["a"], value: 1 };
    assert.notEqual(fieldKey("assets", filter), fieldKey("metadata", filter));
    assert.ok(!fieldsMatch("metadata", '{"a": 1}', [{ path: ["a"], value: "1" }]));
  });

  it("handles arrays nested 100,000 deep without overflowing the stack", () => {
    const json = `{"a": ${"[".repeat(100_000)}7${"]".repeat(100_000)}}`;
    assert.deepEqual(fieldLeafKeys("metadata", json), [fieldKey("metadata", { path: ["a"], value: 7 })]);
  });

  it("stops at fieldLeavesMax leaves", () => {
    const doc = { list: Array.from({ length: fieldLeavesMax * 2 }, (_, i) => i) };
    assert.equal(fieldLeafKeys("assets", JSON.stringify(doc)).length, fieldLeavesMax);
  });
});
