// The golden record of both transaction kinds (kindsScenario.ts): the same run today must give
// the same answers, app hashes, table contents and stream bytes as when the record was made.
// Any changed byte fails it; regenerate only for an intended change (writeKindsGolden.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { runGoldenScenario, type GoldenRecord } from "./kindsScenario.js";

test("both transaction kinds behave exactly as the golden record says", async () => {
  const golden = JSON.parse(readFileSync(new URL("./kinds.golden.json", import.meta.url), "utf8")) as GoldenRecord;
  const record = await runGoldenScenario();
  assert.deepEqual(record.steps, golden.steps);
  assert.deepEqual(record.tables, golden.tables);
  assert.equal(record.eventCount, golden.eventCount);
  assert.equal(record.events, golden.events);
});
