// The heights a light client needs to follow the validator set (src/ledger/validatorChanges.ts),
// from the store's records of the set: a change recorded from height s (block s - 1 made it) is
// CometBFT's from s + 1, so the light blocks are s (the old set, naming the new) and s + 1 (the
// new set's first), each with its own set; the range and the per-answer limit hold.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validatorChangePlaces, validatorChangesPerAnswerMax } from "../../../src/ledger/validatorChanges.js";
import type { Validator, ValidatorSet } from "../../../src/store/store.js";

/** The store's reads over records (height -> set), as both backends answer them; `reads` counts them. */
function storeOf(records: ReadonlyMap<number, readonly Validator[]>) {
  const heights = [...records.keys()].sort((a, b) => a - b);
  const setAt = (at: number): ValidatorSet => ({ height: at, validators: records.get(at)! });
  return {
    reads: 0,
    async getValidatorSet(height?: number): Promise<ValidatorSet | null> {
      this.reads++;
      const at = heights.filter((h) => h <= (height ?? Infinity)).pop();
      return at === undefined ? null : setAt(at);
    },
    async getValidatorSetsFrom(from: number, to: number, limit: number): Promise<ValidatorSet[]> {
      this.reads++;
      return heights.filter((h) => h >= from && h <= to).slice(0, limit).map(setAt);
    },
  };
}
const set = (name: string): Validator[] => [{ publicKey: name.repeat(64).slice(0, 64), power: 10 }];
const [a, b, c] = [set("a"), set("b"), set("c")];
const places = async (records: Map<number, Validator[]>, from: number, to: number) => {
  const answer = await validatorChangePlaces(storeOf(records), from, to);
  return { at: answer.places.map((p) => `${p.height}:${p.validators[0]!.publicKey[0]}`), next: answer.next };
};

describe("the validator set's changes, for a light client", () => {
  const records = new Map([[1, a], [5, b], [9, c]]);

  it("gives, at each change, the old set's last header and the new set's first, in height order", async () => {
    assert.deepEqual(await places(records, 1, 20), { at: ["5:a", "6:b", "9:b", "10:c"], next: null });
    assert.deepEqual(await places(new Map([[1, a]]), 1, 20), { at: [], next: null });
    // Changes in consecutive blocks: the header between them is served once.
    assert.deepEqual(await places(new Map([[1, a], [5, b], [6, c]]), 1, 20), { at: ["5:a", "6:b", "7:c"], next: null });
  });

  it("keeps to the heights asked", async () => {
    assert.deepEqual(await places(records, 6, 20), { at: ["6:b", "9:b", "10:c"], next: null });
    assert.deepEqual(await places(records, 7, 20), { at: ["9:b", "10:c"], next: null });
    assert.deepEqual(await places(records, 1, 9), { at: ["5:a", "6:b", "9:b"], next: null });
    assert.deepEqual(await places(records, 1, 4), { at: [], next: null });
  });

  it(`answers at most ${validatorChangesPerAnswerMax} changes, the earliest, and where to ask again`, async () => {
    const many = new Map([[1, a], ...Array.from({ length: validatorChangesPerAnswerMax + 5 }, (_, i) => [10 * (i + 1), i % 2 === 0 ? b : c] as const)]);
    const first = await places(many, 1, 10_000);
    assert.equal(first.at.length, 2 * validatorChangesPerAnswerMax);
    assert.equal(first.at[0], "10:a");
    assert.equal(first.next, 10 * (validatorChangesPerAnswerMax + 1));
    const rest = await places(many, first.next!, 10_000);
    assert.equal(rest.at.length, 10);
    assert.equal(rest.next, null);
  });

  it("reads the store twice, forward from the range's start, however many changes the range holds", async () => {
    const many = new Map([[1, a], ...Array.from({ length: 3 * validatorChangesPerAnswerMax }, (_, i) => [10 * (i + 1), i % 2 === 0 ? b : c] as const)]);
    const store = storeOf(many);
    const answer = await validatorChangePlaces(store, 1, 100_000);
    assert.equal(answer.places.length, 2 * validatorChangesPerAnswerMax);
    assert.equal(answer.next, 10 * (validatorChangesPerAnswerMax + 1));
    assert.equal(store.reads, 2);
  });
});
