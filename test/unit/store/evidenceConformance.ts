// The conformance suite's part for evidence (CometBFT's FinalizeBlock `misbehavior`): written
// with its block, read back exactly in commit order, by block, paged with positions of a walk's
// snapshot; a block's evidence with a wrong height or number is refused and writes nothing; and
// getBlockContents carries it, since export and migrate-store copy blocks from it. Beside it,
// the signed headers the proofs carry (kept as CometBFT showed them, by height).
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Evidence, EvidenceEntry, Store } from "../../../src/store/store.js";
import { collect } from "../../helpers/wholeAnswers.js";
import { block } from "./fixtures.js";

type WithStore = (body: (store: Store) => Promise<void>) => Promise<void>;

export function evidenceOf(height: number, index: number, changes: Partial<Evidence> = {}): Evidence {
  return {
    height,
    index,
    type: "duplicate_vote",
    validatorAddress: "0A1B2C3D4E5F60718293A4B5C6D7E8F901234567",
    power: 10,
    infractionHeight: height - 1,
    time: "2026-11-27T16:04:05.123456789Z",
    totalPower: 40,
    ...changes,
  };
}

const withoutPosition = (entries: readonly EvidenceEntry[]): Evidence[] => entries.map(({ position: _, ...e }) => e);

export function evidenceTests(withStore: WithStore): void {
  it("evidence is written with its block and read back exactly, in commit order, and by block", () =>
    withStore(async (store) => {
      const two = [evidenceOf(2, 0), evidenceOf(2, 1, { type: "light_client_attack", power: 1, totalPower: 9_007_199_254_740_991 })];
      const four = [evidenceOf(4, 0, { type: "unknown", time: "1970-01-01T00:00:00Z" })];
      await store.commitBlock(block(1, []));
      await store.commitBlock({ ...block(2, []), evidence: two });
      await store.commitBlock({ ...block(3, []), evidence: [] });
      await store.commitBlock({ ...block(4, []), evidence: four });
      assert.deepEqual(withoutPosition(await collect(store.streamEvidence(undefined))), [...two, ...four]);
      assert.deepEqual(withoutPosition(await collect(store.streamEvidence(2))), two);
      assert.deepEqual(await collect(store.streamEvidence(3)), []);
      assert.deepEqual(await collect(store.streamEvidence(99)), []);
      assert.deepEqual((await store.getBlockContents(2))?.evidence, two);
      assert.deepEqual((await store.getBlockContents(3))?.evidence, []);
    }));

  it("a walk of evidence pages sees each item once, as of its first page, whatever commits meanwhile", () =>
    withStore(async (store) => {
      await store.commitBlock({ ...block(1, []), evidence: [evidenceOf(1, 0), evidenceOf(1, 1)] });
      await store.commitBlock({ ...block(2, []), evidence: [evidenceOf(2, 0)] });
      const first = await collect(store.streamEvidence(undefined, { limit: 2 }));
      assert.deepEqual(withoutPosition(first), [evidenceOf(1, 0), evidenceOf(1, 1)]);
      await store.commitBlock({ ...block(3, []), evidence: [evidenceOf(3, 0)] });
      const rest = await collect(store.streamEvidence(undefined, { after: first[1]!.position, limit: 5 }));
      assert.deepEqual(withoutPosition(rest), [evidenceOf(2, 0)]);
      const fresh = await collect(store.streamEvidence(undefined, { after: first[0]!.position.replace(/^2\./, "3."), limit: 5 }));
      assert.deepEqual(withoutPosition(fresh), [evidenceOf(1, 1), evidenceOf(2, 0), evidenceOf(3, 0)]);
      const ofOne = await collect(store.streamEvidence(1, { limit: 1 }));
      assert.deepEqual(withoutPosition(await collect(store.streamEvidence(1, { after: ofOne[0]!.position }))), [evidenceOf(1, 1)]);
    }));

  it("an evidence position this store never gave is a BadParameter", () =>
    withStore(async (store) => {
      await store.commitBlock({ ...block(1, []), evidence: [evidenceOf(1, 0)] });
      const bad = { name: "LedgerError", code: "BadParameter" };
      for (const after of ["", "1", "1.1", "2.1.0", "1.2.0", "x.1.0", "1.1.0.0", "-1.1.0", "01.1.0"]) {
        await assert.rejects(collect(store.streamEvidence(undefined, { after })), bad, `evidence after ${after}`);
      }
    }));

  it("a block's evidence must name its block and be numbered in order from 0: nothing is written", () =>
    withStore(async (store) => {
      await store.commitBlock(block(1, []));
      await assert.rejects(store.commitBlock({ ...block(2, []), evidence: [evidenceOf(1, 0)] }), { name: "AssertionError" });
      await assert.rejects(store.commitBlock({ ...block(2, []), evidence: [evidenceOf(2, 1)] }), { name: "AssertionError" });
      assert.equal((await store.getChainState()).height, 1);
      assert.deepEqual(await collect(store.streamEvidence(undefined)), []);
      await store.commitBlock({ ...block(2, []), evidence: [evidenceOf(2, 0)] });
      assert.deepEqual(withoutPosition(await collect(store.streamEvidence(undefined))), [evidenceOf(2, 0)]);
    }));

  it("signed headers are kept by height, read back exactly, and the same height again changes nothing", () =>
    withStore(async (store) => {
      assert.equal(await store.getSignedHeaderHeight(), 0);
      assert.equal(await store.getSignedHeader(1), null);
      const two = JSON.stringify({ header: { height: "2", app_hash: "AB" }, commit: { height: "2", signatures: [] } });
      await store.putSignedHeaders([{ height: 2, json: two }]);
      await store.putSignedHeaders([{ height: 1, json: '{"header":{"height":"1"}}' }, { height: 2, json: '{"other":true}' }]);
      await store.putSignedHeaders([]);
      assert.equal(await store.getSignedHeader(2), two);
      assert.equal(await store.getSignedHeader(1), '{"header":{"height":"1"}}');
      assert.equal(await store.getSignedHeader(3), null);
      assert.equal(await store.getSignedHeaderHeight(), 2);
    }));
}
