// The model's keys, which the JSON reader interns and the writers quote from a table.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { txModelKeys } from "../../../src/json/modelKeys.js";
import { quoteJsonKey, quoteJsonString } from "../../../src/json/quoteJsonString.js";
import { createSchema, transferSchema } from "../../../src/transaction/schemas.js";

/** Every name under a `properties` anywhere in a schema. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) propertyNames(item, into);
  } else if (schema !== null && typeof schema === "object") {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties") for (const name of Object.keys(value as object)) into.add(name);
      propertyNames(value, into);
    }
  }
  return into;
}

describe("txModelKeys", () => {
  test("are exactly the property names of the CREATE and TRANSFER schemas", () => {
    const names = propertyNames([createSchema, transferSchema]);
    assert.deepEqual([...txModelKeys].sort(), [...names].sort());
  });

  test("quoteJsonKey quotes as quoteJsonString does, model keys or not", () => {
    for (const key of [...txModelKeys, "", "x", "é", "a\"b", "\u001f", "🔑", "__proto__"]) {
      for (const form of ["python", "js"] as const) assert.equal(quoteJsonKey(key, form), quoteJsonString(key, form), key);
    }
  });
});
