// The genesis's protocol version read from CometBFT's RPC for a store that did not record it (a
// chain begun before schema 7): recorded once, Info follows, a failed read is tried again at the
// next poke, a genesis without a version is read once. The RPC is a stand-in answering as CometBFT's `genesis` does; the ledger and store
// are real. The real CometBFT reads it in e2e/cometbft/rollingUpgrade.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { GenesisVersionReader, genesisAppVersionOf } from "../../../src/engine/cometbft/genesisVersionReader.js";
import { openLedger } from "./ledgerFixture.js";

describe("the genesis's protocol version for a store that did not record it", () => {
  it("is read once CometBFT answers, recorded, and reported by Info from then on", async () => {
    const fixture = await openLedger();
    try {
      // A chain begun before schema 7: no version recorded.
      await fixture.ledger.initChain("old-chain", [{ publicKey: "ab".repeat(32), power: 1 }], "v1", { appVersion: null, ruleHeights: new Map() });
      const ledger = await LedgerApp.open({}, { store: fixture.store, pool: fixture.pool });
      assert.equal(ledger.info().appVersion, protocolVersion, "this release's until known");
      const answers: (() => unknown)[] = [
        () => {
          throw new Error("connect ECONNREFUSED");
        },
        () => ({ genesis: { chain_id: "old-chain", consensus_params: { version: {} } } }),
      ];
      let calls = 0;
      const reader = new GenesisVersionReader(ledger, { call: async () => answers[calls++]!() });
      reader.poke();
      await reader.settled();
      assert.equal(ledger.genesisVersionUnknown, true, "a failed read records nothing");
      reader.poke();
      await reader.settled();
      assert.equal(ledger.info().appVersion, 0n, "CometBFT's JSON leaves out a version 0");
      assert.equal((await fixture.store.getChainState()).appVersion, 0n);
      reader.poke();
      await reader.settled();
      assert.equal(calls, 2, "known: not read again");
    } finally {
      await fixture.close();
    }
  });

  it("reads no more once the genesis answered with a version it cannot take, saying so once", async () => {
    const fixture = await openLedger();
    try {
      await fixture.ledger.initChain("odd-chain", [{ publicKey: "ab".repeat(32), power: 1 }], "v1", { appVersion: null, ruleHeights: new Map() });
      const ledger = await LedgerApp.open({}, { store: fixture.store, pool: fixture.pool });
      let calls = 0;
      const said: string[] = [];
      const logger = { info: () => {}, warn: () => said.push("warn"), error: () => said.push("error") };
      const genesis = { genesis: { consensus_params: { version: { app: "x" } } } };
      const reader = new GenesisVersionReader(ledger, { call: async () => (calls++, genesis) }, logger);
      for (let block = 0; block < 3; block++) {
        reader.poke();
        await reader.settled();
      }
      assert.equal(calls, 1, "not read after every block");
      assert.deepEqual(said, ["error"]);
      assert.equal(ledger.genesisVersionUnknown, true);
    } finally {
      await fixture.close();
    }
  });

  it("takes the version as InitChain would, and refuses what is not one", () => {
    assert.equal(genesisAppVersionOf({ consensus_params: { version: { app: "1" } } }), 1n);
    assert.equal(genesisAppVersionOf({}), 0n);
    assert.throws(() => genesisAppVersionOf({ consensus_params: { version: { app: "x" } } }), /not a version/);
    assert.throws(() => genesisAppVersionOf({ consensus_params: { version: { app: String(protocolVersion + 1n) } } }), /use a newer ledgerd/);
  });
});
