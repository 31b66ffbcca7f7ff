// The error catalog and docs/errors.md must list the same codes with the same statuses and
// frames (STYLE rule 4; Fastify's errors doc test).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { codes, rejectionCodes, type ErrorCode } from "../../../src/errors/codes.js";
import { LedgerError } from "../../../src/errors/ledgerError.js";

interface DocRow {
  readonly status: number;
  readonly frame: string;
  readonly meaning: string;
}

/** The rows of the `## Codes` table: | `Code` | status | frame | meaning |. */
function documentedCodes(): Map<string, DocRow> {
  const text = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");
  const section = text.split(/^## Codes$/m)[1];
  assert.ok(section !== undefined, "docs/errors.md has a `## Codes` section");
  const rows = new Map<string, DocRow>();
  for (const line of section.split("\n")) {
    const match = /^\| `([A-Za-z]+)` \| (\d{3}) \| ([a-z]+) \| (.+) \|$/.exec(line);
    if (match === null) continue;
    const [, code, status, frame, meaning] = match as unknown as [string, string, string, string, string];
    assert.ok(!rows.has(code), `${code} is documented twice`);
    rows.set(code, { status: Number(status), frame, meaning });
  }
  return rows;
}

test("every catalog code is documented with its status and frame", () => {
  const documented = documentedCodes();
  for (const [code, spec] of Object.entries(codes)) {
    const row = documented.get(code);
    assert.ok(row !== undefined, `${code} is missing from docs/errors.md`);
    assert.equal(row.status, spec.status, `${code}: status in docs/errors.md`);
    assert.equal(row.frame, spec.frame, `${code}: frame in docs/errors.md`);
    assert.ok(row.meaning.trim().length > 0, `${code}: meaning in docs/errors.md`);
  }
});

test("every documented code is in the catalog", () => {
  for (const code of documentedCodes().keys()) {
    assert.ok(Object.hasOwn(codes, code), `docs/errors.md lists ${code}, which src/errors/codes.ts does not have`);
  }
});

test("the table is read at all (the parser cannot pass vacuously)", () => {
  assert.equal(documentedCodes().size, Object.keys(codes).length);
});

test("statuses are client or server errors, and rejections are 400", () => {
  for (const [code, spec] of Object.entries(codes)) {
    assert.ok(spec.status >= 400 && spec.status < 600, `${code}: ${spec.status}`);
  }
  for (const code of rejectionCodes) assert.equal(codes[code].status, 400, code);
});

test("LedgerError frames its HTTP message as the catalog says", () => {
  const framed = (code: ErrorCode) => new LedgerError(code, "text").httpMessage;
  assert.equal(framed("DoubleSpend"), "Invalid transaction (DoubleSpend): text");
  assert.equal(framed("SchemaValidationError"), "Invalid transaction schema: text");
  assert.equal(framed("NotFound"), "text");
  assert.equal(new LedgerError("BodyTooLarge", "x").status, 413);
});
