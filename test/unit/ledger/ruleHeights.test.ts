// A chain's rule heights as the ledger keeps them (docs/upgrades.md "A rule change at a height"):
// a chain already running when a release with a rule change comes out gets the height the
// release names for its chain id, read at every open, and the protocol version moves there.
// The genesis's heights are in engine-cometbft/abciApp.test.ts and e2e/cometbft/ruleHeight.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { protocolVersion, registerRuleChange } from "../../../src/ledger/protocol.js";
import { openLedger } from "../engine-cometbft/ledgerFixture.js";

describe("rule heights a release names for a running chain", () => {
  it("switch the chain at that height once the node runs the release, read at every open", async () => {
    const fixture = await openLedger();
    try {
      // Begun and run by a release that knew no rule change.
      await fixture.ledger.initChain("running-chain", [{ publicKey: "ab".repeat(32), power: 1 }]);
      for (const height of [1, 2]) {
        await fixture.ledger.finalizeBlock(height, []);
        await fixture.ledger.commit();
      }
      // The next release names height 4 for this chain; the node restarts on it.
      registerRuleChange({ name: "toy_for_running_chain", protocolVersion: protocolVersion + 1n, heightsByChain: { "running-chain": 4 } });
      const upgraded = await LedgerApp.open({}, { store: fixture.store, pool: fixture.pool });
      assert.deepEqual([3, 4].map((h) => upgraded.protocolVersionAt(h)), [protocolVersion, protocolVersion + 1n]);
      assert.deepEqual([3, 4].map((h) => upgraded.rulesAt(h).has("toy_for_running_chain")), [false, true]);
      assert.equal(upgraded.info().appVersion, protocolVersion, "block 3's");
      await upgraded.finalizeBlock(3, []);
      await upgraded.commit();
      assert.equal(upgraded.info().appVersion, protocolVersion + 1n, "block 4's");
      // Not written to the store: the genesis's heights are; the release's are the release's.
      assert.deepEqual((await fixture.store.getChainState()).ruleHeights, new Map());
    } finally {
      await fixture.close();
    }
  });
});
