// The validator set a state-sync restore checks the snapshot's signed headers against
// (snapshotRestore.ts RestoreValidators): read from the store once, then followed through the
// changes of the blocks the restore commits, and read again at blocks a stopped restore wrote.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RestoreValidators } from "../../../src/ledger/snapshotRestore.js";
import type { Validator } from "../../../src/store/store.js";

const one: Validator[] = [{ publicKey: "aa".repeat(32), power: 10 }];
const two: Validator[] = [...one, { publicKey: "bb".repeat(32), power: 1 }];
/** A set as the header checks take it, written back as the store's. */
const storeForm = (set: readonly { publicKey: Uint8Array; power: bigint }[]): Validator[] =>
  set.map((v) => ({ publicKey: Buffer.from(v.publicKey).toString("hex"), power: Number(v.power) }));

describe("the validator sets of a restore", () => {
  it("reads the store once, follows a block's change from the next height, and reads again after held blocks", async () => {
    const reads: number[] = [];
    // The store's sets: `one` through 5, `two` from 6 (block 5 changed it).
    const store = { getValidators: async (h?: number) => (reads.push(h!), h! >= 6 ? two : one) };
    const sets = new RestoreValidators(store);
    const seen: Validator[][] = [];
    for (let h = 1; h <= 4; h++) {
      sets.restored(h, undefined);
      seen.push(storeForm(await sets.at(h)));
    }
    sets.restored(5, two);
    seen.push(storeForm(await sets.at(5)), storeForm(await sets.at(5)));
    sets.restored(6, undefined);
    seen.push(storeForm(await sets.at(6)));
    assert.deepEqual(reads, [1]);
    assert.deepEqual(seen, [one, one, one, one, one, one, two]);
    // A stopped restore's blocks: their changes were not seen here, so each is read.
    const resumed = new RestoreValidators(store);
    for (const h of [5, 6]) {
      resumed.held();
      await resumed.at(h);
    }
    resumed.restored(7, undefined);
    await resumed.at(7);
    assert.deepEqual(reads, [1, 5, 6]);
  });
});
