// The evidence a block carried survives `export`/`import` and `migrate-store`: both turn a stored
// block into a line (blockLineOf) and re-execute it on another ledger (replayBlock), which
// records the evidence with the block; an import begins the chain with the protocol version and
// rule heights its header names. Real SQLite files on both sides.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chainRulesOfHeader, replayBlock } from "../../../src/tools/exportImport.js";
import { blockLineOf } from "../../../src/ledger/blockLine.js";
import { readBlock, readHeader } from "../../../src/tools/exportFormat.js";
import { openLedger } from "../engine-cometbft/ledgerFixture.js";

describe("evidence through export and import", () => {
  it("a block's evidence is written in its line only when it has some, and an import records it with the block", async () => {
    const source = await openLedger();
    const target = await openLedger();
    try {
      const misbehavior = { type: "duplicate_vote" as const, validatorAddress: "C0".repeat(20), power: 3, infractionHeight: 1, time: "2026-11-27T16:00:00.5Z", totalPower: 12 };
      await source.ledger.initChain("export-evidence", [{ publicKey: "ab".repeat(32), power: 3 }]);
      await target.ledger.initChain("export-evidence", [{ publicKey: "ab".repeat(32), power: 3 }]);
      await source.ledger.finalizeBlock(1, []);
      await source.ledger.commit();
      await source.ledger.finalizeBlock(2, [], undefined, [misbehavior]);
      await source.ledger.commit();
      for (const height of [1, 2]) {
        const line = JSON.stringify(blockLineOf((await source.store.getBlockContents(height))!));
        assert.equal(line.includes('"evidence"'), height === 2, line);
        await replayBlock(target.ledger, readBlock(line, height + 1), true);
      }
      assert.deepEqual((await target.store.getBlockContents(2))?.evidence, [{ height: 2, index: 0, ...misbehavior }]);
      assert.deepEqual((await target.store.getBlockContents(1))?.evidence, []);
    } finally {
      await source.close();
      await target.close();
    }
  });
});

describe("the chain's rules through export and import", () => {
  it("an import records the protocol version and rule heights the header names, and refuses a rule it does not know", async () => {
    const header = { format: "ledgerd-export", version: 1, chain_id: "rules", validators: [{ publicKey: "ab".repeat(32), power: 3 }], from: 1, to: 0 };
    const recorded = await importedRules({ ...header, app_version: "0" });
    assert.deepEqual([recorded.appVersion, recorded.ruleHeights], [0n, new Map()]);
    const unrecorded = await importedRules(header);
    assert.equal(unrecorded.appVersion, null, "an export of a chain that did not record it");
    await assert.rejects(importedRules({ ...header, rule_heights: { from_a_newer_release: 5 } }), /"from_a_newer_release", which this ledgerd does not know/);
  });
});

/** The chain state a ledger records when an import begins it from this header line. */
async function importedRules(header: object) {
  const fixture = await openLedger();
  try {
    const read = readHeader(JSON.stringify(header));
    await fixture.ledger.initChain(read.chain_id, read.validators, "v1", chainRulesOfHeader(read));
    return await fixture.store.getChainState();
  } finally {
    await fixture.close();
  }
}
