// The conformance suite's part for validator elections (docs/compatibility.md #11): election
// records written whole with a block and read back exactly, validator sets with the height they
// are in force from, and election and vote transactions stored beside the others: an election
// makes its asset, a vote moves one, and reads by asset see both.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { ElectionRecord, Store } from "../../../src/store/store.js";
import { block, createTx, hex64, ref, transferTx, validator } from "./fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

type WithStore = (body: (store: Store) => Promise<void>) => Promise<void>;

const record = (label: string, changes: Partial<ElectionRecord> = {}): ElectionRecord => ({
  id: hex64(`tx:${label}`),
  height: 1,
  validatorKey: hex64(`validator:${label}`),
  power: 3,
  nodeId: `node-${label}`,
  total: 40n,
  votes: 0n,
  concludedAt: null,
  ...changes,
});

export function electionTests(withStore: WithStore): void {
  it("validator sets carry the height they are in force from; none before initChain", () =>
    withStore(async (store) => {
      assert.equal(await store.getValidatorSet(), null);
      const first = [validator("a", 10)];
      const second = [validator("a", 10), validator("b", 3)];
      await store.initChain("c", first, "bigchaindb");
      await store.commitBlock(block(1, [], second));
      assert.deepEqual(await store.getValidatorSet(1), { height: 1, validators: first });
      assert.deepEqual(await store.getValidatorSet(), { height: 2, validators: second });
      assert.deepEqual(await store.getValidatorSet(9), { height: 2, validators: second });
      assert.equal(await store.getValidatorSet(0), null);
      // Forward, from a height: where the set changed.
      const third = [validator("b", 3)];
      await store.commitBlock(block(2, []));
      await store.commitBlock(block(3, [], third));
      const sets = [{ height: 1, validators: first }, { height: 2, validators: second }, { height: 4, validators: third }];
      assert.deepEqual(await store.getValidatorSetsFrom(1, 9, 10), sets);
      assert.deepEqual(await store.getValidatorSetsFrom(2, 9, 1), sets.slice(1, 2));
      assert.deepEqual(await store.getValidatorSetsFrom(2, 3, 10), sets.slice(1, 2));
      assert.deepEqual(await store.getValidatorSetsFrom(5, 9, 10), []);
    }));

  it("election records are written whole with their block and read back exactly; others are absent", () =>
    withStore(async (store) => {
      const started = record("e1");
      const big = record("e2", { total: 9_000_000_000_000_000_000n, votes: 8_000_000_000_000_000_001n, power: 0 });
      await store.commitBlock({ ...block(1, []), elections: [started, big] });
      const read = await store.getElections([started.id, big.id, hex64("none"), started.id]);
      assert.deepEqual([...read.keys()].sort(), [started.id, big.id].sort());
      assert.deepEqual(read.get(started.id), started);
      assert.deepEqual(read.get(big.id), big);
      const concluded = { ...started, votes: 30n, concludedAt: 2 };
      await store.commitBlock({ ...block(2, []), elections: [concluded] });
      assert.deepEqual((await store.getElections([started.id])).get(started.id), concluded);
      assert.deepEqual(await store.getElections([]), new Map());
    }));

  it("any text a transaction carries is stored and read back exactly, NUL included", () =>
    withStore(async (store) => {
      // A node id is any JSON string in an election (BigchainDB's schema): a backend whose
      // text cannot hold every string must still keep it, not refuse the block.
      const odd = record("odd", { nodeId: "a\u0000b c'\\\"" });
      await store.commitBlock({ ...block(1, []), elections: [odd] });
      assert.deepEqual((await store.getElections([odd.id])).get(odd.id), odd);
      // A lookup by a string no stored key can hold finds nothing.
      assert.equal(await store.getTransaction("a\u0000b"), null);
      assert.deepEqual(await store.findTransactions(["a\u0000b"]), new Set());
      assert.deepEqual(await wholeOf(store).getOutputsByPublicKey("a\u0000b"), []);
      assert.deepEqual(await wholeOf(store).getTransactionsByAsset("a\u0000b", { lastOnly: true }), []);
      assert.equal(await store.getLegacyRecord("a\u0000b"), null);
      assert.equal((await store.getElections(["a\u0000b"])).size, 0);
    }));

  it("an election makes its asset and a vote moves it: both are read by id, by asset and by key", () =>
    withStore(async (store) => {
      const made = createTx({ label: "election" });
      const election = { ...made, operation: "VALIDATOR_ELECTION" as const, json: made.json.replace('"CREATE"', '"VALIDATOR_ELECTION"') };
      const moved = transferTx({ label: "vote", assetId: election.id, spends: [ref(election, 0)] });
      const vote = { ...moved, operation: "VOTE" as const, json: moved.json.replace('"TRANSFER"', '"VOTE"') };
      await store.commitBlock(block(1, [election]));
      await store.commitBlock(block(2, [vote]));
      assert.equal(await store.getTransaction(election.id), election.json);
      assert.equal(await store.getTransaction(vote.id), vote.json);
      assert.deepEqual(await wholeOf(store).getTransactionsByAsset(election.id), [election.json, vote.json]);
      const outputs = await store.getOutputs([ref(election, 0)]);
      assert.equal(outputs.get(`${election.id}:0`)?.spentBy, vote.id);
      assert.equal(outputs.get(`${election.id}:0`)?.assetId, election.id);
    }));
}
