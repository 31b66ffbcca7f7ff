// The checks an import makes of an export's lines (src/tools/exportFormat.ts, issue 36 #11): a
// line that is not the header or a block, or a header that would give a ledger no node can
// start on, is refused naming the line and the field.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exportValidatorsMax, readBlock, readHeader } from "../../../src/tools/exportFormat.js";

const key = (n: number): string => n.toString(16).padStart(64, "0");
const header = { format: "ledgerd-export", version: 1, chain_id: "c", validators: [{ publicKey: key(1), power: 10 }], commitment: "v1", from: 1, to: 2 };
const line = (value: unknown): string => JSON.stringify(value);
const withHeader = (change: Record<string, unknown>): string => line({ ...header, ...change });

describe("an export's header", () => {
  it("is read when well formed, with or without a commitment", () => {
    assert.deepEqual(readHeader(line(header)), header);
    const { commitment: _, ...old } = header;
    assert.deepEqual(readHeader(line(old)), old);
  });

  it("is read with the chain's protocol version and rule heights (docs/upgrades.md)", () => {
    const rules = { app_version: "18446744073709551615", rule_heights: { some_rule: 9 } };
    assert.deepEqual(readHeader(withHeader(rules)), { ...header, ...rules });
  });

  const refused: [string, string, RegExp][] = [
    ["not JSON", "{", /^line 1 is not JSON: /],
    ["null", "null", /^line 1: the header must be object$/],
    ["another format", withHeader({ format: "other" }), /^line 1: format must be "ledgerd-export"$/],
    ["another version", withHeader({ version: 2 }), /^line 1: version must be 1$/],
    ["no validators", withHeader({ validators: [] }), /^line 1: validators must NOT have fewer than 1 items$/],
    ["validators not a list", withHeader({ validators: "x" }), /^line 1: validators must be array$/],
    ["a key twice", withHeader({ validators: [{ publicKey: key(1), power: 1 }, { publicKey: key(2), power: 1 }, { publicKey: key(1), power: 2 }] }), /^line 1: validators\[2\]\.publicKey repeats validators\[0\]'s$/],
    ["a key not hex", withHeader({ validators: [{ publicKey: "zz", power: 1 }] }), /^line 1: validators\[0\]\.publicKey must match pattern/],
    ["power 0", withHeader({ validators: [{ publicKey: key(1), power: 0 }] }), /^line 1: validators\[0\]\.power must be >= 1$/],
    ["power not whole", withHeader({ validators: [{ publicKey: key(1), power: 1.5 }] }), /^line 1: validators\[0\]\.power must be integer$/],
    ["a total power past 2^53", withHeader({ validators: [{ publicKey: key(1), power: Number.MAX_SAFE_INTEGER }, { publicKey: key(2), power: 1 }] }), /^line 1: the validators' total power is more than 9007199254740991$/],
    ["too many validators", withHeader({ validators: Array.from({ length: exportValidatorsMax + 1 }, (_, i) => ({ publicKey: key(i + 1), power: 1 })) }), /^line 1: validators must NOT have more than 10000 items$/],
    ["a validator with more fields", withHeader({ validators: [{ publicKey: key(1), power: 1, x: 1 }] }), /^line 1: validators\[0\] must not have the field "x"$/],
    ["an empty chain id", withHeader({ chain_id: "" }), /^line 1: chain_id must NOT have fewer than 1 characters$/],
    ["a chain id no setting can name", withHeader({ chain_id: "c".repeat(51) }), /^line 1: chain_id must NOT have more than 50 characters$/],
    ["an unknown commitment", withHeader({ commitment: "v9" }), /^line 1: commitment must be \["bigchaindb","v1"\]$/],
    ["no `to`", line({ ...header, to: undefined }), /^line 1: the header must have required property 'to'$/],
    ["a negative `to`", withHeader({ to: -1 }), /^line 1: to must be >= 0$/],
    ["a protocol version not in decimal", withHeader({ app_version: "01" }), /^line 1: app_version must match pattern/],
    ["a protocol version as a number", withHeader({ app_version: 1 }), /^line 1: app_version must be string$/],
    ["a rule height of 0", withHeader({ rule_heights: { r: 0 } }), /^line 1: rule_heights\.r must be >= 1$/],
    ["an unknown field", withHeader({ extra: true }), /^line 1: the header must not have the field "extra"$/],
  ];
  for (const [what, text, message] of refused) {
    it(`is refused with ${what}`, () => assert.throws(() => readHeader(text), { message }));
  }
});

describe("a block's line", () => {
  const block = { height: 2, app_hash: "a".repeat(64), txs: ["{}"] };
  const evidence = { type: "duplicate_vote", validator_address: "AB".repeat(20), power: 1, infraction_height: 1, time: "1970-01-01T00:00:00Z", total_power: 4 };

  it("is read with the evidence its block carried", () => {
    assert.deepEqual(readBlock(line({ ...block, evidence: [evidence] }), 3), { ...block, evidence: [evidence] });
  });

  it("is read when well formed; an empty app hash is the v1 chain's before any transaction", () => {
    assert.deepEqual(readBlock(line(block), 3), block);
    assert.deepEqual(readBlock(line({ ...block, app_hash: "", txs: [] }), 3), { ...block, app_hash: "", txs: [] });
  });

  const refused: [string, unknown, RegExp][] = [
    ["null", null, /^line 7: a block's line must be object$/],
    ["a list", [], /^line 7: a block's line must be object$/],
    ["txs a string", { ...block, txs: "x" }, /^line 7: txs must be array$/],
    ["a transaction not a string", { ...block, txs: [1] }, /^line 7: txs\[0\] must be string$/],
    ["a transaction as an object", { ...block, txs: ["{}", {}] }, /^line 7: txs\[1\] must be string$/],
    ["no txs", { height: 2, app_hash: "" }, /^line 7: a block's line must have required property 'txs'$/],
    ["a height as text", { ...block, height: "2" }, /^line 7: height must be integer$/],
    ["height 0", { ...block, height: 0 }, /^line 7: height must be >= 1$/],
    ["an app hash not hex", { ...block, app_hash: "x" }, /^line 7: app_hash must match pattern/],
    ["an unknown field", { ...block, more: 1 }, /^line 7: a block's line must not have the field "more"$/],
    ["evidence of an unknown type", { ...block, evidence: [{ ...evidence, type: "x" }] }, /^line 7: evidence\[0\]\.type must be \["duplicate_vote","light_client_attack","unknown"\]$/],
    ["evidence without its time", { ...block, evidence: [{ ...evidence, time: undefined }] }, /must have required property 'time'$/],
  ];
  for (const [what, value, message] of refused) {
    it(`is refused with ${what}`, () => assert.throws(() => readBlock(line(value), 7), { message }));
  }
});
