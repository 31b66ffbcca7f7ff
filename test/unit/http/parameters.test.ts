// Query-parameter rules of BigchainDB's parameters.py and reqparse, one function at a time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import {
  firstValue,
  parseBool,
  parseHeight,
  parseLimit,
  parseMode,
  parseOperation,
  parsePublicKey,
  parseTxId,
  rejectRepeated,
  rejectUnknown,
  requiredValue,
} from "../../../src/http/parameters.js";

function throwsParameter(fn: () => unknown, message: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof LedgerError);
    assert.equal(error.code, "BadParameter");
    assert.equal(error.status, 400);
    assert.equal(error.httpMessage, message);
    return true;
  });
}

test("a parameter's value; a repeated parameter is refused, named", () => {
  assert.equal(firstValue({ mode: "commit" }, "mode"), "commit");
  assert.equal(firstValue({}, "mode"), undefined);
  // Not fooled by the prototype.
  assert.equal(firstValue({}, "toString"), undefined);
  const message = (name: string) => `${name}: given more than once; give each parameter once`;
  throwsParameter(() => firstValue({ mode: ["sync", "commit"] }, "mode"), message("mode"));
  rejectRepeated({ asset_id: "a", spent: "true" });
  throwsParameter(() => rejectRepeated({ asset_id: "a", spent: ["true", "false"] }), message("spent"));
  throwsParameter(() => rejectRepeated({ foo: ["1", "1"] }), message("foo"));
  throwsParameter(() => requiredValue({ asset_id: ["a", "b"] }, "asset_id"), message("asset_id"));
  throwsParameter(() => requiredValue({}, "asset_id"), "asset_id: Missing required parameter in the JSON body or the post body or the query string");
  assert.equal(requiredValue({ asset_id: "" }, "asset_id"), "");
});

test("unknown arguments are listed in the order they came", () => {
  rejectUnknown({ public_key: "k", spent: "true" }, ["public_key", "spent"]);
  throwsParameter(() => rejectUnknown({ b: "", public_key: "k", a: "" }, ["public_key"]), "Unknown arguments: b, a");
});

test("mode: absent is async; exactly async, sync or commit", () => {
  assert.equal(parseMode("mode", undefined), "async");
  for (const mode of ["async", "sync", "commit"]) assert.equal(parseMode("mode", mode), mode);
  for (const mode of ["", "Sync", "COMMIT", " async"]) {
    throwsParameter(() => parseMode("mode", mode), 'mode: Mode must be "async", "sync" or "commit"');
  }
});

test("operation is uppercased; booleans are lowercased", () => {
  assert.equal(parseOperation("operation", "tRaNsFeR"), "TRANSFER");
  throwsParameter(() => parseOperation("operation", "VOTE"), 'operation: Operation must be "CREATE" or "TRANSFER"');
  assert.equal(parseBool("spent", "FALSE"), false);
  assert.equal(parseBool("spent", "True"), true);
  throwsParameter(() => parseBool("spent", "1"), 'spent: Boolean value must be "true" or "false" (lowercase)');
});

test("ids are 64 hex digits in any case, answered lowercase", () => {
  assert.equal(parseTxId("asset_id", "AB".repeat(32)), "ab".repeat(32));
  for (const id of ["a".repeat(63), "a".repeat(65), "g".repeat(64), ` ${"a".repeat(63)}`]) {
    throwsParameter(() => parseTxId("asset_id", id), "asset_id: Invalid hash");
  }
});

test("public keys: 43 or 44 base58 characters", () => {
  const key = "9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj";
  assert.equal(parsePublicKey("public_key", key), key);
  for (const bad of [key.slice(0, 42), `${key}zz`, key.replace("9", "0"), key.replace("C", "O"), key.replace("h", "l"), key.replace("h", "I")]) {
    throwsParameter(() => parsePublicKey("public_key", bad), "public_key: Invalid base58 ed25519 key");
  }
});

test("limit: absent and 0 are all (undefined); 1 to the maximum as is; no sign; over the maximum is 400", () => {
  assert.equal(parseLimit("limit", undefined, 50), undefined);
  assert.equal(parseLimit("limit", "0", 50), undefined);
  assert.equal(parseLimit("limit", "000", 50), undefined);
  assert.equal(parseLimit("limit", "7", 50), 7);
  assert.equal(parseLimit("limit", " 007 ", 50), 7);
  assert.equal(parseLimit("limit", "50", 50), 50);
  for (const signed of ["-1", "+5", "-0", " -3 "]) {
    const message = `limit: must be a whole number from 0 to 50 without a sign, 0 for all results (got '${signed}')`;
    throwsParameter(() => parseLimit("limit", signed, 50), message);
  }
  throwsParameter(() => parseLimit("limit", "51", 50), "limit: 51 is over the maximum of 50; 0 gives all results");
  throwsParameter(() => parseLimit("limit", "0099", 50), "limit: 99 is over the maximum of 50; 0 gives all results");
  const huge = "99999999999999999999";
  throwsParameter(() => parseLimit("limit", huge, 50), `limit: ${huge} is over the maximum of 50; 0 gives all results`);
  for (const bad of ["", "abc", "1.0", "1e3", "0x10", "--1"]) {
    throwsParameter(() => parseLimit("limit", bad, 50), `limit: invalid literal for int() with base 10: '${bad}'`);
  }
});

test("block heights: digits only; past the safe range names no block", () => {
  assert.equal(parseHeight("block_height", "42"), 42);
  assert.equal(parseHeight("block_height", "0042"), 42);
  assert.equal(parseHeight("block_height", "9".repeat(30)), null);
  for (const bad of ["", "-1", "+1", "1.0", "latest", " 1"]) {
    throwsParameter(() => parseHeight("block_height", bad), "block_height: Block height must be a non-negative integer");
  }
});
