// Validator elections through the ledger on a real SQLite file (docs/compatibility.md #11):
// conclusion at 2/3 of the power, the new set from the next height and its update for the engine,
// inconclusive elections, one change per block, votes after conclusion, removals, a restart, the
// legacy federation following the set, and the solo engine's refusal.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Buffer } from "node:buffer";
import { soloElectionRefusal } from "../../../src/ledger/kinds/v2/v2Kind.js";
import { legacyDoor } from "../../../src/ledger/doors.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Store } from "../../../src/store/store.js";
import { makeValidatorElection, makeVote } from "../../../src/transaction/builders/makeElection.js";
import type { Keypair } from "../../../src/transaction/builders/makeKeypair.js";
import { electionStatus } from "../../../src/transaction/elections.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { hexKey, legacyBytes, legacyCreate } from "../../helpers/legacyFactory.js";
import { bytesOf, keypairOf } from "../../helpers/txFactory.js";

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });

const validators = ["v1", "v2", "v3", "v4"].map(keypairOf);
const newcomer = keypairOf("newcomer");
const power = 10;
let seeds = 0;

async function openLedger(path?: string): Promise<{ ledger: LedgerApp; store: Store; path: string }> {
  const file = path ?? join(mkdtempSync(join(tmpdir(), "ledgerd-elections-")), "ledger.sqlite");
  if (path === undefined) dirs.push(join(file, ".."));
  const store = SqliteStore.open({ path: file });
  const ledger = await LedgerApp.open({}, { store, pool });
  if (ledger.chain === null) await ledger.initChain("elections", validators.map((v) => ({ publicKey: hexKey(v.publicKey), power })));
  return { ledger, store, path: file };
}

async function block(ledger: LedgerApp, txs: readonly JsonObject[]) {
  const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs.map(bytesOf));
  await ledger.commit();
  return finalized;
}

const codes = (results: readonly ({ code: string } | null)[]) => results.map((r) => r?.code ?? null);

/** An election by `proposer` over the given set (default: the four at power 10). */
function election(proposer: Keypair, target: Keypair, newPower: number, set = validators.map((v) => ({ v, power }))): JsonObject {
  const unsigned = makeValidatorElection({
    proposer: proposer.publicKey,
    voters: set.map(({ v, power: p }) => ({ publicKey: v.publicKey, power: p })),
    validatorKeyBase64: Buffer.from(hexKey(target.publicKey), "hex").toString("base64"),
    power: newPower,
    nodeId: "0".repeat(40),
    seed: `seed-${++seeds}`,
  });
  return signTx(unsigned, [proposer]);
}

const vote = (e: JsonObject, voter: Keypair): JsonObject => signTx(makeVote(e, voter.publicKey), [voter]);

describe("validator elections in the ledger", () => {
  it("concludes at 2/3 of the power: the new set from the next height, one update for the engine", async () => {
    const { ledger, store } = await openLedger();
    const e = election(validators[0]!, newcomer, 1);
    const id = e["id"] as string;
    assert.deepEqual(codes((await block(ledger, [e])).results), [null]);
    const first = await block(ledger, [vote(e, validators[0]!), vote(e, validators[1]!)]);
    assert.deepEqual(first.validatorUpdates, [], "20 of 40 is below 2/3");
    const ongoing = (await store.getElections([id])).get(id)!;
    assert.equal(ongoing.votes, 20n);
    assert.equal(electionStatus(ongoing, (await store.getValidatorSet())!.height), "ongoing");
    const third = await block(ledger, [vote(e, validators[2]!)]);
    assert.deepEqual(third.validatorUpdates, [{ publicKey: hexKey(newcomer.publicKey), power: 1 }]);
    const set = await store.getValidatorSet();
    assert.equal(set?.height, third.height + 1);
    assert.deepEqual(set?.validators.map((v) => v.publicKey), [...validators, newcomer].map((v) => hexKey(v.publicKey)));
    assert.equal((await store.getValidatorSet(third.height))?.validators.length, 4, "the old set still governs its own block");
    const record = (await store.getElections([id])).get(id);
    assert.equal(record?.concludedAt, third.height);
    assert.equal(electionStatus(record!, set!.height), "concluded");
    // A vote after the conclusion is refused (BigchainDB took it and counted it nowhere).
    const late = await ledger.dryCheckTx(bytesOf(vote(e, validators[3]!)), "v1");
    assert.equal(!late.ok && late.rejection.code, "ElectionConcluded");
  });

  it("an election below 2/3 changes nothing, and a newer set makes it inconclusive", async () => {
    const { ledger, store } = await openLedger();
    const slow = election(validators[1]!, keypairOf("slow"), 2);
    const fast = election(validators[0]!, newcomer, 1);
    await block(ledger, [slow, fast]);
    await block(ledger, [vote(slow, validators[0]!), vote(slow, validators[1]!)]);
    const concluded = await block(ledger, [vote(fast, validators[0]!), vote(fast, validators[1]!), vote(fast, validators[2]!)]);
    assert.equal(concluded.validatorUpdates.length, 1);
    // `slow` reaches 3 of 4 votes only after the set changed: it was made for the old set.
    const late = await block(ledger, [vote(slow, validators[2]!)]);
    assert.deepEqual(codes(late.results), [null]);
    assert.deepEqual(late.validatorUpdates, []);
    const record = (await store.getElections([slow["id"] as string])).get(slow["id"] as string);
    assert.equal(record?.concludedAt, null);
    assert.equal(record?.votes, 30n);
    assert.equal(electionStatus(record!, (await store.getValidatorSet())!.height), "inconclusive");
    assert.equal((await store.getValidators()).length, 5);
  });

  it("one validator change per block: the second election to conclude in a block does not", async () => {
    const { ledger } = await openLedger();
    const a = election(validators[0]!, newcomer, 1);
    const b = election(validators[1]!, keypairOf("other"), 1);
    await block(ledger, [a, b]);
    const votes = validators.slice(0, 3).flatMap((v) => [vote(a, v), vote(b, v)]);
    const both = await block(ledger, votes);
    assert.deepEqual(codes(both.results), votes.map(() => null));
    assert.deepEqual(both.validatorUpdates, [{ publicKey: hexKey(newcomer.publicKey), power: 1 }]);
  });

  it("an election and its votes in one block conclude there (BigchainDB could not find it yet)", async () => {
    const { ledger } = await openLedger();
    const e = election(validators[0]!, newcomer, 3);
    const finalized = await block(ledger, [e, ...validators.slice(0, 3).map((v) => vote(e, v))]);
    assert.deepEqual(finalized.validatorUpdates, [{ publicKey: hexKey(newcomer.publicKey), power: 3 }]);
  });

  it("power 0 removes a validator; removing a key that is none, or a power of 1/3, is refused", async () => {
    const { ledger, store } = await openLedger();
    const removal = election(validators[2]!, validators[3]!, 0);
    await block(ledger, [removal, ...validators.slice(0, 3).map((v) => vote(removal, v))]);
    assert.deepEqual((await store.getValidators()).map((v) => v.publicKey), validators.slice(0, 3).map((v) => hexKey(v.publicKey)));
    const three = validators.slice(0, 3).map((v) => ({ v, power }));
    const stranger = await ledger.dryCheckTx(bytesOf(election(validators[0]!, newcomer, 0, three)), "v1");
    assert.deepEqual(!stranger.ok && [stranger.rejection.code, stranger.rejection.message], [
      "InvalidPowerChange",
      "`power` 0 removes a validator, and this key is not one",
    ]);
    const large = await ledger.dryCheckTx(bytesOf(election(validators[0]!, newcomer, 10, three)), "v1");
    assert.equal(!large.ok && large.rejection.code, "InvalidPowerChange");
    // The old set is no longer the topology: an election made for it is refused.
    const stale = await ledger.dryCheckTx(bytesOf(election(validators[0]!, newcomer, 1)), "v1");
    assert.equal(!stale.ok && stale.rejection.code, "UnequalValidatorSet");
  });

  it("a pending vote or election that a block made invalid without spending its inputs is dropped at recheck", async () => {
    const { ledger } = await openLedger();
    const e = election(validators[0]!, newcomer, 1);
    await block(ledger, [e]);
    // The fourth validator's vote waits in the pool while three others conclude the election.
    const late = bytesOf(vote(e, validators[3]!));
    assert.ok((await ledger.checkTx(late)).ok);
    // An election proposed over the four, pending while the set becomes five.
    const stale = bytesOf(election(validators[1]!, keypairOf("someone"), 1));
    assert.ok((await ledger.checkTx(stale)).ok);
    await block(ledger, [vote(e, validators[0]!), vote(e, validators[1]!), vote(e, validators[2]!)]);
    const again = await ledger.recheckTx(late);
    assert.equal(again.ok, false);
    assert.equal(again.ok ? null : again.rejection.code, "ElectionConcluded");
    const staleAgain = await ledger.recheckTx(stale);
    assert.equal(staleAgain.ok ? null : staleAgain.rejection.code, "UnequalValidatorSet");
    assert.equal(ledger.isPending(JSON.parse(Buffer.from(late).toString())["id"], "v1"), false);
  });

  it("a reopened ledger continues an election where it stood", async () => {
    const { ledger, store, path } = await openLedger();
    const e = election(validators[0]!, newcomer, 1);
    await block(ledger, [e, vote(e, validators[0]!), vote(e, validators[1]!)]);
    await store.close();
    const again = await openLedger(path);
    const finalized = await block(again.ledger, [vote(e, validators[2]!)]);
    assert.deepEqual(finalized.validatorUpdates, [{ publicKey: hexKey(newcomer.publicKey), power: 1 }]);
  });

  it("the legacy federation follows the set: an elected node may sign a legacy CREATE", async () => {
    const { ledger } = await openLedger();
    const signer = { publicKey: newcomer.publicKey, seed: newcomer.seed };
    const before = await ledger.dryCheckTx(legacyBytes(legacyCreate("A", signer, [newcomer.publicKey])), legacyDoor);
    assert.equal(!before.ok && before.rejection.code, "LegacyOperationError");
    const e = election(validators[0]!, newcomer, 1);
    await block(ledger, [e, ...validators.slice(0, 3).map((v) => vote(e, v))]);
    const afterwards = await ledger.dryCheckTx(legacyBytes(legacyCreate("A", signer, [newcomer.publicKey])), legacyDoor);
    assert.ok(afterwards.ok, afterwards.ok ? "" : afterwards.rejection.message);
  });

  it("the solo engine refuses elections and votes; CHAIN_MIGRATION_ELECTION is refused everywhere", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-elections-solo-"));
    dirs.push(dir);
    const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
    const solo = await LedgerApp.open({}, { store, pool, refuse: soloElectionRefusal });
    await solo.initChain("solo", validators.map((v) => ({ publicKey: hexKey(v.publicKey), power })));
    const refused = await solo.checkTx(bytesOf(election(validators[0]!, newcomer, 1)), "v1");
    assert.equal(!refused.ok && refused.rejection.code, "ValidationError");
    assert.match(!refused.ok ? refused.rejection.message : "", /solo engine/);
    const migration = signTx({ ...makeValidatorElection({ proposer: validators[0]!.publicKey, voters: [], validatorKeyBase64: "", power: 1, nodeId: "", seed: "" }), operation: "CHAIN_MIGRATION_ELECTION" }, [validators[0]!]);
    const { ledger } = await openLedger();
    const result = await ledger.dryCheckTx(bytesOf(migration), "v1");
    assert.match(!result.ok ? result.rejection.message : "", /CHAIN_MIGRATION_ELECTION is not supported/);
  });
});
