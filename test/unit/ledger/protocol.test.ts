// Height-gated rules (docs/upgrades.md): a rule change named in the genesis switches on at
// exactly its height, the same on every node, and the protocol version follows it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { protocolVersion, protocolVersionAt, ruleHeightsFor, ruleHeightsOf, rulesAt, ruleChanges, type RuleChange } from "../../../src/ledger/protocol.js";

/** A toy rule change: from its height, an amount above 100 is refused. */
const toyChanges: readonly RuleChange[] = [{ name: "toy_amount_cap", protocolVersion: protocolVersion + 1n }];
const amountValidAt = (height: number, heights: ReturnType<typeof ruleHeightsOf>, amount: bigint): boolean =>
  !rulesAt(height, heights).has("toy_amount_cap") || amount <= 100n;

describe("rules by height", () => {
  const heights = ruleHeightsOf({ toy_amount_cap: 7 }, toyChanges);

  it("switches a toy rule on at exactly the height the genesis names", () => {
    assert.deepEqual([5, 6, 7, 8].map((h) => amountValidAt(h, heights, 500n)), [true, true, false, false]);
    assert.equal(amountValidAt(7, heights, 100n), true);
    assert.equal(amountValidAt(1_000_000, ruleHeightsOf(undefined, toyChanges), 500n), true, "unscheduled: never on");
  });

  it("moves the protocol version to the change's at that height", () => {
    assert.deepEqual([6, 7].map((h) => protocolVersionAt(h, protocolVersion, heights, toyChanges)), [protocolVersion, protocolVersion + 1n]);
  });

  it("starts from the genesis's protocol version, which may be older than this release's", () => {
    assert.deepEqual([6, 7].map((h) => protocolVersionAt(h, 0n, heights, toyChanges)), [0n, protocolVersion + 1n]);
    assert.equal(protocolVersionAt(7, 0n, ruleHeightsOf(undefined, toyChanges), toyChanges), 0n);
  });

  it("takes a running chain's height from the release, by chain id, where its genesis names none", () => {
    const byRelease: readonly RuleChange[] = [{ ...toyChanges[0]!, heightsByChain: { "running-chain": 12 } }];
    assert.deepEqual(ruleHeightsFor("running-chain", ruleHeightsOf(undefined, byRelease), byRelease), new Map([["toy_amount_cap", 12]]));
    assert.deepEqual(ruleHeightsFor("running-chain", heights, byRelease), heights, "the genesis's height wins");
    assert.deepEqual(ruleHeightsFor("another-chain", ruleHeightsOf(undefined, byRelease), byRelease), new Map());
    assert.deepEqual(ruleHeightsFor(null, ruleHeightsOf(undefined, byRelease), byRelease), new Map(), "no chain yet");
  });

  it("refuses a schedule naming a rule this release does not know, or a height below 1", () => {
    assert.deepEqual(ruleChanges, [], "this release schedules nothing yet");
    assert.throws(() => ruleHeightsOf({ toy_amount_cap: 7 }), /"toy_amount_cap", which this ledgerd does not know: use a newer ledgerd/);
    assert.throws(() => ruleHeightsOf({ toy_amount_cap: 0 }, toyChanges), /rule_heights\.toy_amount_cap must be a height of 1 or more: 0/);
    assert.throws(() => ruleHeightsOf({ toy_amount_cap: "7" }, toyChanges), /must be a height of 1 or more: "7"/);
    assert.throws(() => ruleHeightsOf([7], toyChanges), /must be an object/);
  });
});
