// Entry bundles (src/ledger/tiles.ts) read their blocks side by side, a bounded number at once,
// and give the same bytes: each entry its block's leaf data, blocks without a valid transaction
// (no leaf) skipped. A real ledger on SQLite.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readTile, tileBlockReadsAtOnceMax } from "../../../src/ledger/tiles.js";
import { leafHash } from "../../../src/proofs/merkle.js";
import type { ChainReads } from "../../../src/store/store.js";
import { openLedger, type LedgerFixture } from "../engine-cometbft/ledgerFixture.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";

const owner = keypairOf("tiles-owner");
/** Blocks 1 to 60: a transaction in every other (more leaves than reads at once), the others empty. */
const leafBlocks = Array.from({ length: 60 }, (_, i) => i + 1).filter((height) => height % 2 === 1);

describe("entry bundles", () => {
  let fx: LedgerFixture;
  before(async () => {
    fx = await openLedger();
    await fx.ledger.initChain("tiles", [{ publicKey: "ab".repeat(32), power: 10 }], "v1");
    for (let height = 1; height <= 60; height++) {
      const txs = leafBlocks.includes(height) ? [bytesOf(create(owner, 1n, { height }))] : [];
      await fx.ledger.finalizeBlock(height, txs);
      await fx.ledger.commit();
    }
  });
  after(() => fx.close());

  it("read the blocks holding the leaves side by side, at most a bound at once, each entry its block's leaf", async () => {
    let running = 0;
    let most = 0;
    const counted = new Proxy(fx.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== "getBlockIds" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          most = Math.max(most, ++running);
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            running--;
          }
        };
      },
    }) as ChainReads;
    const size = leafBlocks.length;
    assert.equal((await fx.store.getChainState()).historySize, size);
    const bytes = await readTile(counted, { level: "entries", index: 0, width: size }, size);
    const leaves = await fx.store.getHistoryNodes(leafBlocks.map((_, index) => ({ level: 0, index })));
    assert.equal(bytes.length, size * 47);
    leafBlocks.forEach((height, i) => {
      const entry = Buffer.from(bytes.subarray(i * 47, (i + 1) * 47));
      assert.equal(entry.readUInt16BE(0), 45);
      assert.equal(Number(entry.readBigUInt64BE(3)), height, `entry ${i} is block ${height}'s`);
      assert.deepEqual(leafHash(entry.subarray(2)), leaves[i]);
    });
    assert.ok(leafBlocks.length > tileBlockReadsAtOnceMax && most > 1, "side by side");
    assert.ok(most <= tileBlockReadsAtOnceMax, `at most ${tileBlockReadsAtOnceMax} at once (${most})`);
  });
});
