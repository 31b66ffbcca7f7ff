// The ledger as an ABCI application, through the real socket server and a hand-written client.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  CheckTxType,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  MisbehaviorType,
  type Misbehavior,
  type Request,
  type RequestFinalizeBlock,
  type Response,
  type RequestInitChain,
} from "cosmjs-types/tendermint/abci/types";
import { nextAppHash } from "../../../src/ledger/appHash.js";
import { LedgerApp, replayBatchMsMax } from "../../../src/ledger/ledgerApp.js";
import type { LedgerOptions } from "../../../src/ledger/options.js";
import { protocolVersion, registerRuleChange } from "../../../src/ledger/protocol.js";
import type { BlockWrite, Store } from "../../../src/store/store.js";
import {
  LedgerAbciApp,
  appHashBytes,
  commitWriteWaitMs,
  prepareProposal,
  replayWriteWaitMs,
  unaskedCommitsMax,
  type LedgerAbciAppDeps,
} from "../../../src/engine/cometbft/abciApp.js";
import { AbciServer, type AbciHandler } from "../../../src/engine/cometbft/abciServer.js";
import { storeRetryIntervalMs } from "../../../src/engine/storeRetry.js";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { join } from "node:path";
import { copyFileSync } from "node:fs";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { AbciTestClient } from "./abciTestClient.js";
import { openLedger, type LedgerFixture } from "./ledgerFixture.js";

import { ManualClock } from "../../helpers/manualClock.js";
import { waitFor } from "../../helpers/waitFor.js";

const alice = keypairOf("alice");
const bob = keypairOf("bob");
const carol = keypairOf("carol");
const validatorKey = Buffer.alloc(32, 0xab);

let fx: LedgerFixture;
let app: LedgerAbciApp;
let server: AbciServer;
let consensus: AbciTestClient;
let mempool: AbciTestClient;
let fatal: unknown[];
/** The requests the app was handed, in order ("finalizeBlock 3", "checkTx", ...). */
let received: string[];

/** The app on a real ABCI socket, with a consensus and a mempool connection. */
async function startApp(
  idleSpellMs?: number,
  ledger: LedgerApp = fx.ledger,
  clock?: ManualClock,
  signedHeaders?: LedgerAbciAppDeps["signedHeaders"],
): Promise<void> {
  const options = { chainId: "test-chain", version: "9.9.9", ...(idleSpellMs === undefined ? {} : { idleSpellMs }) };
  const extra = { ...(clock === undefined ? {} : { clock }), ...(signedHeaders === undefined ? {} : { signedHeaders }) };
  app = new LedgerAbciApp(options, { ledger, store: fx.store, onFatal: (e) => fatal.push(e), ...extra });
  received = [];
  const handler: AbciHandler = {
    handle: (request, connection) => {
      const method = Object.keys(request).find((key) => request[key as keyof Request] !== undefined)!;
      received.push(request.finalizeBlock === undefined ? method : `${method} ${request.finalizeBlock.height}`);
      return app.handle(request, connection);
    },
    closed: (connection) => app.closed(connection),
  };
  server = await AbciServer.start(
    { listen: { host: "127.0.0.1", port: 0 }, messageBytesMax: 1 << 24, requestsInFlightMax: 1_000, writeBufferBytesMax: 65_536 },
    { handler, onFatal: (e) => fatal.push(e) },
  );
  consensus = await AbciTestClient.open(server.address);
  mempool = await AbciTestClient.open(server.address);
}

async function stopApp(): Promise<void> {
  consensus.close();
  mempool.close();
  await server.close();
  await app.close();
}

beforeEach(async () => {
  fx = await openLedger();
  fatal = [];
  await startApp();
});
afterEach(async () => {
  await stopApp();
  await fx.close();
});

function initChain(chainId = "test-chain", genesis: { app?: bigint; appState?: string } = {}): Request {
  const request: RequestInitChain = {
    time: { seconds: 0n, nanos: 0 },
    chainId,
    validators: [{ pubKey: { ed25519: validatorKey }, power: 7n }],
    appStateBytes: Buffer.from(genesis.appState ?? ""),
    initialHeight: 1n,
    ...(genesis.app === undefined ? {} : { consensusParams: { version: { app: genesis.app } } }),
  };
  return { initChain: request };
}

function finalizeBlock(height: number, txs: Uint8Array[], misbehavior: Misbehavior[] = []): Request {
  const request: RequestFinalizeBlock = {
    txs,
    decidedLastCommit: { round: 0, votes: [] },
    misbehavior,
    hash: new Uint8Array(32),
    height: BigInt(height),
    time: { seconds: 0n, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: new Uint8Array(20),
  };
  return { finalizeBlock: request };
}

const checkTx = (tx: Uint8Array, type = CheckTxType.NEW): Request => ({ checkTx: { tx, type } });

/** Two spends of alice's `asset` output 0, to bob and to carol: each a double spend of the other. */
function twoSpendsOf(asset: ReturnType<typeof create>) {
  const spend = (to: typeof bob) => transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [to.publicKey], amount: 1n }]);
  return { toBob: spend(bob), toCarol: spend(carol) };
}
/** A new chain whose block 1 holds alice's asset, and its spend to bob pending (admitted by CheckTx). */
async function chainWithPendingSpend() {
  await consensus.call(initChain());
  const asset = create(alice);
  await commitBlock(1, [bytesOf(asset)]);
  const spends = twoSpendsOf(asset);
  const [pending] = await mempool.call(checkTx(bytesOf(spends.toBob)));
  assert.equal(pending!.checkTx!.code, 0);
  return spends;
}
const info: Request = { info: { version: "0.38.26", blockVersion: 11n, p2pVersion: 8n, abciVersion: "2.0.0" } };

/** One block, then waits until it is durable: Commit is answered before (the app's `commit`). */
async function commitBlock(height: number, txs: Uint8Array[]) {
  const [finalized, committed] = await consensus.call(finalizeBlock(height, txs), { commit: {} });
  assert.notEqual(committed!.commit, undefined);
  await app.durable();
  return finalized!.finalizeBlock!;
}

/** The ids of the connections the app hears closed, in order: what a test waits for, not a pause. */
function recordCloses(): number[] {
  const closes: number[] = [];
  const closed = app.closed.bind(app);
  app.closed = (connection) => {
    closed(connection);
    closes.push(connection.id);
  };
  return closes;
}

describe("LedgerAbciApp", () => {
  it("answers Info with exactly what the store holds: height 0 and no app hash at first", async () => {
    const [answer] = await consensus.call(info);
    assert.equal(answer!.info!.lastBlockHeight, 0n);
    assert.equal(answer!.info!.lastBlockAppHash.length, 0);
    assert.equal(answer!.info!.version, "9.9.9");
    assert.equal(answer!.info!.appVersion, protocolVersion);
  });

  it("answers InitChain with the genesis's protocol version, so CometBFT's headers carry it whatever Info said", async () => {
    const [answer] = await consensus.call(initChain("test-chain", { app: protocolVersion }));
    assert.equal(answer!.initChain!.consensusParams?.version?.app, protocolVersion);
    assert.deepEqual(fatal, []);
  });

  it("keeps the genesis's protocol version in the store and reports it in Info, also after a restart (state sync compares them)", async () => {
    // A chain made before ledgerd reported a version keeps 0, also on a node of this release.
    const [answer] = await consensus.call(initChain("test-chain", { app: 0n }));
    assert.equal(answer!.initChain!.consensusParams?.version?.app, 0n);
    await commitBlock(1, []);
    assert.equal((await consensus.call(info))[0]!.info!.appVersion, 0n);
    await stopApp();
    await startApp(undefined, await LedgerApp.open({}, { store: fx.store, pool: fx.pool }));
    const [after] = await consensus.call(info);
    assert.deepEqual([after!.info!.lastBlockHeight, after!.info!.appVersion], [1n, 0n]);
    // InitChain again (CometBFT sends it while the app is at height 0) answers the stored chain's.
    assert.equal((await fx.store.getChainState()).appVersion, 0n);
    assert.deepEqual(fatal, []);
  });

  it("moves the protocol version at a rule height named in the genesis: FinalizeBlock of the height before says so, Info follows", async () => {
    registerRuleChange({ name: "toy_version_two", protocolVersion: protocolVersion + 1n });
    await consensus.call(initChain("test-chain", { app: protocolVersion, appState: '{"commitment":"v1","rule_heights":{"toy_version_two":3}}' }));
    const updates = [];
    for (const height of [1, 2, 3, 4]) {
      updates.push((await commitBlock(height, [])).consensusParamUpdates?.version?.app);
      if (height === 2) assert.equal((await consensus.call(info))[0]!.info!.appVersion, protocolVersion + 1n, "the next block's");
    }
    assert.deepEqual(updates, [undefined, protocolVersion + 1n, undefined, undefined]);
    // Read back at a restart: the switch is remembered, not taken from the genesis again.
    await stopApp();
    const reopened = await LedgerApp.open({}, { store: fx.store, pool: fx.pool });
    assert.deepEqual([reopened.protocolVersionAt(2), reopened.protocolVersionAt(3)], [protocolVersion, protocolVersion + 1n]);
    assert.deepEqual([...reopened.rulesAt(3)], ["toy_version_two"]);
    await startApp(undefined, reopened);
    assert.equal((await consensus.call(info))[0]!.info!.appVersion, protocolVersion + 1n);
    assert.deepEqual(fatal, []);
  });

  it("a ledger refuses to open a store whose chain names a rule change this release does not know (written by a newer ledgerd)", async () => {
    const ruleHeights = new Map([["from_a_newer_release", 5]]);
    await fx.store.initChain("test-chain", [{ publicKey: validatorKey.toString("hex"), power: 7 }], "v1", { appVersion: 1n, ruleHeights });
    await assert.rejects(LedgerApp.open({}, { store: fx.store, pool: fx.pool }), /"from_a_newer_release", which this ledgerd does not know: use a newer ledgerd/);
  });

  it("answers InitChain with a rule change's version when the genesis names height 1 for it", async () => {
    registerRuleChange({ name: "toy_version_two", protocolVersion: protocolVersion + 1n });
    // CometBFT's handshake asks Info first: block 1's version before the genesis named its rules.
    assert.equal((await consensus.call(info))[0]!.info!.appVersion, protocolVersion);
    const [answer] = await consensus.call(initChain("test-chain", { app: protocolVersion, appState: '{"commitment":"v1","rule_heights":{"toy_version_two":1}}' }));
    assert.equal(answer!.initChain!.consensusParams?.version?.app, protocolVersion + 1n);
    assert.equal((await commitBlock(1, [])).consensusParamUpdates, undefined);
  });

  it("stops on a genesis of a newer protocol version, or one scheduling a rule change it does not know", async () => {
    const newer = await consensus.send(initChain("test-chain", { app: protocolVersion + 1n }), { flush: {} })[0];
    assert.match(newer!.exception!.error, /version\.app is 2; this ledgerd runs protocol version 1: use a newer ledgerd/);
    assert.equal(fx.ledger.chain, null);
    await stopApp();
    await startApp();
    const unknown = await consensus.send(initChain("test-chain", { appState: '{"commitment":"v1","rule_heights":{"later":10}}' }), { flush: {} })[0];
    assert.match(unknown!.exception!.error, /schedules the rule "later", which this ledgerd does not know/);
    assert.equal(fx.ledger.chain, null);
    assert.equal(fatal.length, 2);
  });

  it("stores the genesis validators at InitChain, and takes a repeated InitChain as a no-op", async () => {
    const [answer] = await consensus.call(initChain());
    assert.deepEqual(answer!.initChain!.validators, []);
    assert.deepEqual(await fx.store.getValidators(), [{ publicKey: "ab".repeat(32), power: 7 }]);
    assert.equal(fx.ledger.chain, "test-chain");
    const [again] = await consensus.call(initChain());
    assert.notEqual(again!.initChain, undefined);
    assert.deepEqual(fatal, []);
  });

  it("stops on a genesis for another chain than engine.chain_id", async () => {
    const answer = await consensus.send(initChain("other-chain"), { flush: {} })[0];
    assert.match(answer!.exception!.error, /other-chain.*test-chain/);
    assert.equal(fatal.length, 1);
    assert.equal(fx.ledger.chain, null);
  });

  it("CheckTx: code 0 when admitted; code 1 with our code as codespace and the message as log", async () => {
    await consensus.call(initChain());
    const asset = create(alice);
    await commitBlock(1, [bytesOf(asset)]);
    const { toBob, toCarol } = twoSpendsOf(asset);
    const [ok] = await mempool.call(checkTx(bytesOf(toBob)));
    const [again, conflict, garbage] = await mempool.call(
      checkTx(bytesOf(toBob)),
      checkTx(bytesOf(toCarol)),
      checkTx(Buffer.from("not json")),
    );
    assert.equal(ok!.checkTx!.code, 0);
    // CometBFT asks again only after losing it (its cache stops repeats): taken again, not refused.
    assert.equal(again!.checkTx!.code, 0);
    assert.equal(fx.ledger.pendingCount, 1);
    assert.equal(conflict!.checkTx!.code, 1);
    assert.equal(conflict!.checkTx!.codespace, "DoubleSpend");
    assert.match(conflict!.checkTx!.log, /already spent/);
    assert.equal(garbage!.checkTx!.code, 1);
    assert.equal(garbage!.checkTx!.codespace, "BadJson");
  });

  it("Recheck keeps a pending transaction and drops one a block made invalid", async () => {
    await consensus.call(initChain());
    const asset = create(alice);
    const other = create(carol);
    await commitBlock(1, [bytesOf(asset), bytesOf(other)]);
    const { toBob, toCarol } = twoSpendsOf(asset);
    const keep = transfer([{ tx: other, outputIndex: 0 }], [carol], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    await mempool.call(checkTx(bytesOf(toBob)), checkTx(bytesOf(keep)));
    await commitBlock(2, [bytesOf(toCarol)]);
    const [dropped, kept] = await mempool.call(checkTx(bytesOf(toBob), CheckTxType.RECHECK), checkTx(bytesOf(keep), CheckTxType.RECHECK));
    assert.equal(dropped!.checkTx!.codespace, "DoubleSpend");
    assert.equal(kept!.checkTx!.code, 0);
    assert.equal(fx.ledger.pendingCount, 1);
  });

  it(`releases a pending transaction CometBFT has not rechecked for ${unaskedCommitsMax + 1} commits (it left the mempool)`, async () => {
    await consensus.call(initChain());
    const asset = create(alice);
    const filler = create(bob);
    await commitBlock(1, [bytesOf(asset)]);
    const { toBob, toCarol } = twoSpendsOf(asset);
    const kept = create(carol);
    await mempool.call(checkTx(bytesOf(toBob)), checkTx(bytesOf(kept)));
    // `kept` is rechecked after every block, as CometBFT rechecks its mempool; `toBob` never is.
    for (let height = 2; height <= unaskedCommitsMax + 2; height++) {
      await commitBlock(height, height === 2 ? [bytesOf(filler)] : []);
      assert.equal(fx.ledger.pendingCount, height <= unaskedCommitsMax + 1 ? 2 : 1, `after block ${height}`);
      const [recheck] = await mempool.call(checkTx(bytesOf(kept), CheckTxType.RECHECK));
      assert.equal(recheck!.checkTx!.code, 0);
    }
    // toBob's spend no longer blocks another spend of the same output.
    const [other] = await mempool.call(checkTx(bytesOf(toCarol)));
    assert.equal(other!.checkTx!.code, 0);
  });

  it("with no block for an idle spell, counts the spell as a commit: a transaction CometBFT dropped is released", async () => {
    await stopApp();
    const clock = new ManualClock();
    await startApp(40, fx.ledger, clock);
    const { toCarol } = await chainWithPendingSpend();
    const [refused] = await mempool.call(checkTx(bytesOf(toCarol)));
    assert.equal(refused!.checkTx!.codespace, "DoubleSpend");
    // No more blocks: after unaskedCommitsMax + 1 idle spells toBob is released, not before.
    await clock.advance(40 * unaskedCommitsMax);
    assert.equal(fx.ledger.pendingCount, 1, "still held after unaskedCommitsMax spells");
    await clock.advance(40);
    assert.equal(fx.ledger.pendingCount, 0, "released at the next spell");
    const [other] = await mempool.call(checkTx(bytesOf(toCarol)));
    assert.equal(other!.checkTx!.code, 0);
  });

  it("counts idle spells from the first CheckTx, even when no block has ever come", async () => {
    await stopApp();
    const clock = new ManualClock();
    await startApp(40, fx.ledger, clock);
    await consensus.call(initChain());
    const [accepted] = await mempool.call(checkTx(bytesOf(create(alice))));
    assert.equal(accepted!.checkTx!.code, 0);
    assert.equal(fx.ledger.pendingCount, 1);
    await clock.advance(40 * unaskedCommitsMax);
    assert.equal(fx.ledger.pendingCount, 1, "still held after unaskedCommitsMax spells");
    await clock.advance(40);
    assert.equal(fx.ledger.pendingCount, 0, "released at the next spell");
  });

  it("FinalizeBlock gives a result per transaction and the app hash; Commit makes it durable", async () => {
    await consensus.call(initChain());
    const asset = create(alice);
    const duplicate = bytesOf(asset);
    const finalized = await commitBlock(1, [bytesOf(asset), duplicate, Buffer.from("[]")]);
    assert.deepEqual(finalized.txResults.map((r) => [r.code, r.codespace]), [[0, ""], [1, "DuplicateTransaction"], [1, "BadJson"]]);
    const expected = nextAppHash("", [asset["id"] as string]);
    assert.equal(Buffer.from(finalized.appHash).toString("hex"), expected);
    assert.deepEqual(finalized.validatorUpdates, []);
    const [answer] = await consensus.call(info);
    assert.equal(answer!.info!.lastBlockHeight, 1n);
    assert.equal(Buffer.from(answer!.info!.lastBlockAppHash).toString("hex"), expected);
    // An empty block is stored too, and keeps the app hash.
    const empty = await commitBlock(2, []);
    assert.equal(Buffer.from(empty.appHash).toString("hex"), expected);
    assert.equal((await fx.store.getChainState()).height, 2);
  });

  it("records the misbehavior a FinalizeBlock carries with its block, outside the app hash, and tells the committed block's listeners", async () => {
    await consensus.call(initChain());
    const committed: unknown[] = [];
    fx.ledger.onCommitted((block) => committed.push(block.evidence));
    const address = Buffer.alloc(20, 0x5a);
    const vote: Misbehavior = {
      type: MisbehaviorType.DUPLICATE_VOTE,
      validator: { address, power: 7n },
      height: 1n,
      time: { seconds: 1n, nanos: 500_000_000 },
      totalVotingPower: 7n,
    };
    const first = create(alice);
    const second = create(bob);
    await commitBlock(1, [bytesOf(first)]);
    const finalized = await consensus.call(finalizeBlock(2, [bytesOf(second)], [vote]), { commit: {} });
    await app.durable();
    // The app hash is the ledger's alone: the evidence changes no ledger state.
    const expected = nextAppHash(nextAppHash("", [first["id"] as string]), [second["id"] as string]);
    assert.equal(Buffer.from(finalized[0]!.finalizeBlock!.appHash).toString("hex"), expected);
    const evidence = {
      height: 2,
      index: 0,
      type: "duplicate_vote",
      validatorAddress: "5A".repeat(20),
      power: 7,
      infractionHeight: 1,
      time: "1970-01-01T00:00:01.5Z",
      totalPower: 7,
    };
    assert.deepEqual((await fx.store.getBlockContents(2))?.evidence, [evidence]);
    assert.deepEqual(committed, [[], [evidence]]);
  });

  it("stops the node on a block that is not the next height (the handshake must replay instead)", async () => {
    await consensus.call(initChain());
    const answer = await consensus.send(finalizeBlock(5, []), { flush: {} })[0];
    assert.match(answer!.exception!.error, /contiguous/);
    assert.equal(fatal.length, 1);
  });

  it("PrepareProposal keeps the mempool's order within max_tx_bytes; ProcessProposal accepts", async () => {
    const txs = [Buffer.alloc(100, 1), Buffer.alloc(200, 2), Buffer.alloc(10, 3)];
    // Each costs 1 tag byte + its uvarint length + its bytes: 102, 203, 12.
    assert.deepEqual(prepareProposal({ txs, maxTxBytes: 305n } as never).txs.length, 2);
    assert.deepEqual(prepareProposal({ txs, maxTxBytes: 304n } as never).txs.length, 1);
    const [prepared, processed] = await consensus.call(
      { prepareProposal: { maxTxBytes: 105n, txs, localLastCommit: { round: 0, votes: [] }, misbehavior: [], height: 1n, time: { seconds: 0n, nanos: 0 }, nextValidatorsHash: new Uint8Array(0), proposerAddress: new Uint8Array(0) } },
      { processProposal: { txs, proposedLastCommit: { round: 0, votes: [] }, misbehavior: [], hash: new Uint8Array(0), height: 1n, time: { seconds: 0n, nanos: 0 }, nextValidatorsHash: new Uint8Array(0), proposerAddress: new Uint8Array(0) } },
    );
    assert.deepEqual(prepared!.prepareProposal!.txs.map((t) => t.length), [100]);
    assert.equal(processed!.processProposal!.status, ResponseProcessProposal_ProposalStatus.ACCEPT);
  });

  it("answers Query for a committed transaction, Echo, and the snapshot methods", async () => {
    await consensus.call(initChain());
    const asset = create(alice);
    await commitBlock(1, [bytesOf(asset)]);
    const id = asset["id"] as string;
    const query = (path: string): Request => ({ query: { path, data: new Uint8Array(0), height: 0n, prove: false } });
    const [found, missing, unknown, echo, list, offer] = await consensus.call(
      query(`/transactions/${id}`),
      query(`/transactions/${"0".repeat(64)}`),
      query("/nothing"),
      { echo: { message: "hello" } },
      { listSnapshots: {} },
      { offerSnapshot: { appHash: new Uint8Array(0) } },
    );
    assert.equal(found!.query!.code, 0);
    assert.equal(JSON.parse(Buffer.from(found!.query!.value).toString("utf8")).id, id);
    assert.equal(found!.query!.height, 1n);
    assert.equal(missing!.query!.code, 1);
    assert.equal(unknown!.query!.code, 1);
    assert.equal(echo!.echo!.message, "hello");
    assert.deepEqual(list!.listSnapshots!.snapshots, []);
    assert.equal(offer!.offerSnapshot!.result, ResponseOfferSnapshot_Result.REJECT);
  });

  it("releases the pending pool when the mempool connection closes (CometBFT restarted)", async () => {
    await consensus.call(initChain());
    await mempool.call(checkTx(bytesOf(create(alice))), checkTx(bytesOf(create(bob))));
    assert.equal(fx.ledger.pendingCount, 2);
    const closes = recordCloses();
    consensus.close();
    await waitFor("the server to see the consensus connection close", () => closes.length === 1);
    assert.equal(fx.ledger.pendingCount, 2, "only the mempool connection's close releases the pool");
    mempool.close();
    await waitFor("the server to see the mempool connection close", () => closes.length === 2);
    assert.equal(fx.ledger.pendingCount, 0);
  });

  it("converts app hashes to 32 raw bytes, empty before the first", () => {
    assert.equal(appHashBytes("").length, 0);
    assert.equal(Buffer.from(appHashBytes("0f".repeat(32))).toString("hex"), "0f".repeat(32));
    assert.throws(() => appHashBytes("xyz"));
  });
});

/**
 * The fixture's real store, whose block writes wait while `hold` is on (a slow disk): what
 * Commit answers before, and what waits for it.
 */
function heldStore(store: Store): { store: Store; hold(): void; release(): void; written: number[] } {
  let gate: Promise<void> = Promise.resolve();
  let open = (): void => undefined;
  const written: number[] = [];
  const held = withCommitBlock(store, async (block) => {
    await gate;
    await store.commitBlock(block);
    written.push(block.height);
  });
  return {
    store: held,
    hold: () => (gate = new Promise((resolve) => (open = resolve))),
    release: () => open(),
    written,
  };
}

/** `store` with its block writes done by `commitBlock`; everything else as it is. */
function withCommitBlock(store: Store, commitBlock: (block: BlockWrite) => Promise<void>): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === "commitBlock") return commitBlock;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Whether each of `answers` is still unanswered once the app has been handed `requests` (names
 * as in `received`) and has then answered three Info on a connection of their own: rounds of
 * its event loop, in which an answer that did not wait would have reached its client.
 */
async function stillWaiting(answers: Promise<unknown>[], requests: string[]): Promise<boolean[]> {
  const answered = answers.map(() => false);
  answers.forEach((answer, i) => void answer.then(() => (answered[i] = true), () => (answered[i] = true)));
  await waitFor(`the app to be handed ${requests.join(", ")}`, () => requests.every((r) => received.includes(r)));
  // Echo, not Info: Info itself waits for a pending block write.
  const probe = await AbciTestClient.open(server.address);
  try {
    for (let i = 0; i < 3; i++) await probe.call({ echo: { message: `probe ${i}` } });
  } finally {
    probe.close();
  }
  return answered.map((done) => !done);
}

describe("LedgerAbciApp: Commit answered before the block is durable", () => {
  it("Info, the next FinalizeBlock and a recheck wait for the write, then see the block", async () => {
    const disk = heldStore(fx.store);
    await stopApp();
    await startApp(undefined, await LedgerApp.open({}, { store: disk.store, pool: fx.pool }));
    const { toBob, toCarol } = await chainWithPendingSpend();

    disk.hold();
    const [finalized, committed] = await consensus.call(finalizeBlock(2, [bytesOf(toCarol)]), { commit: {} });
    assert.equal(finalized!.finalizeBlock!.txResults[0]!.code, 0);
    assert.notEqual(committed!.commit, undefined, "Commit is answered while the write waits");
    assert.deepEqual(disk.written, [1]);
    const spendsCarols = transfer([{ tx: toCarol, outputIndex: 0 }], [carol], [{ publicKeys: [alice.publicKey], amount: 1n }]);
    const next = consensus.send(finalizeBlock(3, [bytesOf(spendsCarols)]), { flush: {} })[0]!;
    const recheck = mempool.send(checkTx(bytesOf(toBob), CheckTxType.RECHECK), { flush: {} })[0]!;
    // A CometBFT restarted alone now asks Info at its handshake: told height 1, it would replay block 2.
    const query = await AbciTestClient.open(server.address);
    const handshake = query.send(info, { flush: {} })[0]!;
    assert.deepEqual(
      await stillWaiting([next, recheck, handshake], ["finalizeBlock 3", "checkTx", "info"]),
      [true, true, true],
      "FinalizeBlock 3, recheck, Info",
    );

    disk.release();
    // Block 3 spends block 2's output: it was executed on block 2's state.
    assert.equal((await next).finalizeBlock!.txResults[0]!.code, 0);
    // Block 2 spent what toBob spends: the recheck drops it.
    assert.equal((await recheck).checkTx!.codespace, "DoubleSpend");
    assert.deepEqual(disk.written, [1, 2]);
    assert.equal((await handshake).info!.lastBlockHeight, 2n, "Info: the height once the write is done");
    query.close();
    assert.deepEqual(fatal, []);
  });

  it("a block write that fails after Commit was answered stops the node, and no later block is executed", async () => {
    const failing = withCommitBlock(fx.store, () => Promise.reject(new Error("disk I/O error")));
    await stopApp();
    await startApp(undefined, await LedgerApp.open({}, { store: failing, pool: fx.pool }));
    await consensus.call(initChain());
    const [, committed] = await consensus.call(finalizeBlock(1, [bytesOf(create(alice))]), { commit: {} });
    assert.notEqual(committed!.commit, undefined);
    await app.durable();
    assert.match(String(fatal[0]), /disk I\/O error/);
    const answer = await consensus.send(finalizeBlock(2, []), { flush: {} })[0];
    assert.match(answer!.exception!.error, /disk I\/O error/);
    assert.equal((await fx.store.getChainState()).height, 0);
  });
});

/** The app on a store of its own, as `appOnSharedFile` makes it. */
interface SharedApp {
  readonly path: string;
  readonly store: SqliteStore;
  /** The bulk loads and block writes, in order ("beginBulkLoad", "commitBlock 3", ...). */
  readonly calls: string[];
  /** What the ledger reads a replay batch's age on: `now` ms. */
  readonly time: { now: number };
  /** The app's clock (its writes' waits for the next block), standing still until advanced. */
  readonly clock: ManualClock;
  close(): Promise<void>;
}

/**
 * The app on a store of its own that other connections may read beside the writer (a node's
 * HTTP workers), whose bulk loads and block writes are listed in `calls`; its clock stands still.
 */
async function appOnSharedFile(
  options: Partial<LedgerOptions> = {},
  signedHeaders?: LedgerAbciAppDeps["signedHeaders"],
  path = join(fx.dir, "shared.sqlite"),
): Promise<SharedApp> {
  const store = SqliteStore.open({ path, access: "readers" });
  const calls: string[] = [];
  const counted = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (property === "beginBulkLoad" || property === "endBulkLoad") calls.push(property);
        if (property === "commitBlock") calls.push(`commitBlock ${(args[0] as BlockWrite).height}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  await stopApp();
  const time = { now: 0 };
  const ledger = await LedgerApp.open(options, { store: counted, pool: fx.pool, clock: { now: () => time.now } });
  // A clock that stands still: a write waits for the next FinalizeBlock however slow the machine.
  const clock = new ManualClock();
  await startApp(undefined, ledger, clock, signedHeaders);
  if (ledger.chain === null) await consensus.call(initChain());
  return {
    path,
    store,
    calls,
    time,
    clock,
    async close() {
      await stopApp();
      await store.close();
      await startApp();
    },
  };
}

/** Runs `body` on the app on a store of its own (`appOnSharedFile`), then checks that nothing went fatal. */
async function onSharedFile(
  body: (shared: SharedApp) => Promise<void>,
  options: Partial<LedgerOptions> = {},
  signedHeaders?: LedgerAbciAppDeps["signedHeaders"],
): Promise<void> {
  const shared = await appOnSharedFile(options, signedHeaders);
  try {
    await body(shared);
  } finally {
    await shared.close();
  }
  assert.deepEqual(fatal, []);
}

/** A transaction of this node's own pending: CheckTx admits a new CREATE of alice's. */
async function admitOne(): Promise<void> {
  const [pending] = await mempool.call(checkTx(bytesOf(create(alice))));
  assert.equal(pending!.checkTx!.code, 0);
}

/** Block `height`'s one transaction: a CREATE of its own, the same every time (a replay gives the same blocks). */
const blockTxs = (height: number): Uint8Array[] => [bytesOf(create(keypairOf(`owner ${height}`), 1n, { height }))];

/** Blocks `from` to `to`, each FinalizeBlock sent right after the last Commit (CometBFT's block sync); the Commits' answers. */
async function replay(from: number, to: number): Promise<Response[]> {
  const commits: Response[] = [];
  for (let height = from; height <= to; height++) {
    const [, committed] = await consensus.call(finalizeBlock(height, blockTxs(height)), { commit: {} });
    commits.push(committed!);
  }
  return commits;
}

/** The height and app hash the app's Info tells CometBFT. */
async function infoOf(client: AbciTestClient): Promise<{ height: bigint; appHash: string }> {
  const [answer] = await client.call(info);
  return { height: answer!.info!.lastBlockHeight, appHash: Buffer.from(answer!.info!.lastBlockAppHash).toString("hex") };
}

describe("LedgerAbciApp: a catch-up's blocks, each followed by the next", () => {
  it("are durable together: one bulk load, ended by the block with no next one; another connection sees them then", async () => {
    const shared = await appOnSharedFile();
    const other = SqliteStore.open({ path: shared.path, access: "reader" });
    try {
      await replay(1, 3);
      await waitFor("block 2 written", () => shared.calls.includes("commitBlock 2"));
      assert.equal((await other.getChainState()).height, 0, "blocks 1 and 2 are written, not yet durable: no other connection sees them");
      await app.durable();
      assert.deepEqual(shared.calls, ["beginBulkLoad", "commitBlock 1", "commitBlock 2", "commitBlock 3", "endBulkLoad"]);
      assert.equal((await other.getChainState()).height, 3);
      // A block in consensus, with no next one waiting, is durable on its own.
      await commitBlock(4, []);
      assert.deepEqual(shared.calls.slice(5), ["commitBlock 4"]);
    } finally {
      await other.close();
      await shared.close();
    }
    assert.deepEqual(fatal, []);
  });

  it("are durable each on its own while a transaction is pending here (a client may read its commit elsewhere next)", async () => {
    await onSharedFile(async (shared) => {
      await admitOne();
      await replay(1, 3);
      await app.durable();
      assert.deepEqual(shared.calls, ["commitBlock 1", "commitBlock 2", "commitBlock 3"]);
    });
  });

  it("are durable each on its own with ledger.replay_batch_blocks_max 0", async () => {
    await onSharedFile(async (shared) => {
      await replay(1, 3);
      await app.durable();
      assert.deepEqual(shared.calls, ["commitBlock 1", "commitBlock 2", "commitBlock 3"]);
    }, { replayBatchBlocksMax: 0 });
  });

  it("a batch ends at its most blocks, and once it is replayBatchMsMax old: what readers lag behind at most", async () => {
    await onSharedFile(async (shared) => {
      await replay(1, 5);
      await waitFor("block 4 written", () => shared.calls.includes("commitBlock 4"));
      assert.deepEqual(shared.calls, ["beginBulkLoad", "commitBlock 1", "commitBlock 2", "endBulkLoad", "beginBulkLoad", "commitBlock 3", "commitBlock 4", "endBulkLoad"]);
      await replay(6, 6);
      await waitFor("block 5 written", () => shared.calls.includes("commitBlock 5"));
      // Block 5 began a batch; block 6 joins it when it is written, as the batch's time is up.
      shared.time.now += replayBatchMsMax;
      await replay(7, 7);
      await waitFor("block 6 written", () => shared.calls.includes("commitBlock 6"));
      assert.deepEqual(shared.calls.slice(8), ["beginBulkLoad", "commitBlock 5", "commitBlock 6", "endBulkLoad"]);
      await app.durable();
    }, { replayBatchBlocksMax: 2 });
  });

  it("a write waits replayWriteWaitMs for its next block once the last one's came (CometBFT saves its own state between), then commitWriteWaitMs again", async () => {
    await onSharedFile(async (shared) => {
      // Block 2's FinalizeBlock started block 1's write: a catch-up.
      await replay(1, 2);
      await waitFor("block 1 written", () => shared.calls.includes("commitBlock 1"));
      await shared.clock.advance(commitWriteWaitMs);
      await replay(3, 3);
      await waitFor("block 2 written", () => shared.calls.includes("commitBlock 2"));
      // No block 4 within the longer wait: block 3 is written on its own moment and ends the batch.
      await shared.clock.advance(replayWriteWaitMs);
      await waitFor("block 3 written", () => shared.calls.includes("commitBlock 3"));
      assert.deepEqual(shared.calls, ["beginBulkLoad", "commitBlock 1", "commitBlock 2", "commitBlock 3", "endBulkLoad"], "block 2 waited past commitWriteWaitMs for block 3, in the batch");
      // A block after that wait ended without its next one: the short wait again.
      await consensus.call(finalizeBlock(4, []), { commit: {} });
      await shared.clock.advance(commitWriteWaitMs);
      await waitFor("block 4 written", () => shared.calls.includes("commitBlock 4"));
    });
  });

  it("a write waits commitWriteWaitMs only while a transaction is pending here, even in a catch-up (its client waits for it)", async () => {
    await onSharedFile(async (shared) => {
      await admitOne();
      await replay(1, 2);
      await waitFor("block 1 written", () => shared.calls.includes("commitBlock 1"));
      await shared.clock.advance(commitWriteWaitMs);
      await waitFor("block 2 written", () => shared.calls.includes("commitBlock 2"));
    });
  });

  it("Commit asks CometBFT to prune nothing while a batch is open (a crash would have it replay those blocks)", async () => {
    const keeper = { committed: () => undefined, retainHeight: (height: number) => height };
    await onSharedFile(async () => {
      const commits = await replay(1, 4);
      // Block 1's Commit came before any batch; 2's to 4's while blocks 1 to 3 were in one.
      assert.deepEqual(commits.map((c) => c.commit!.retainHeight), [1n, 0n, 0n, 0n]);
      await app.durable();
      const [, committed] = await consensus.call(finalizeBlock(5, []), { commit: {} });
      assert.equal(committed!.commit!.retainHeight, 5n, "the batch ended with block 4: every block is durable again");
      await app.durable();
    }, {}, keeper);
  });

  it("Info tells the height the store holds durably: a CometBFT stopped mid-batch is told its blocks are there", async () => {
    const shared = await appOnSharedFile();
    const other = SqliteStore.open({ path: shared.path, access: "reader" });
    try {
      await replay(1, 2);
      // Block 3 finalized and never committed: its FinalizeBlock started block 2's write, in the batch.
      await consensus.call(finalizeBlock(3, blockTxs(3)));
      await waitFor("block 2 written", () => shared.calls.includes("commitBlock 2"));
      consensus.close();
      const restarted = await AbciTestClient.open(server.address);
      try {
        assert.equal((await infoOf(restarted)).height, 2n);
        assert.equal((await other.getChainState()).height, 2, "what Info told is durable");
        assert.deepEqual(shared.calls, ["beginBulkLoad", "commitBlock 1", "commitBlock 2", "endBulkLoad"]);
      } finally {
        restarted.close();
      }
    } finally {
      await other.close();
      await shared.close();
    }
    assert.deepEqual(fatal, []);
  });

  it("a node that crashes mid-batch restarts at the last durable block; CometBFT's replay ends at the same app hash", async () => {
    const shared = await appOnSharedFile();
    const crashed = join(fx.dir, "crashed.sqlite");
    let uninterrupted: { height: bigint; appHash: string };
    let block1AppHash: string;
    try {
      block1AppHash = Buffer.from((await commitBlock(1, blockTxs(1))).appHash).toString("hex");
      await replay(2, 6);
      await waitFor("block 5 written", () => shared.calls.includes("commitBlock 5"));
      assert.deepEqual(shared.calls, ["commitBlock 1", "beginBulkLoad", "commitBlock 2", "commitBlock 3", "commitBlock 4", "commitBlock 5"]);
      // The files as a crash leaves them now (nothing runs on this thread meanwhile): the batch's
      // SQLite transaction not committed, its pages perhaps in the log without a commit record.
      copyFileSync(shared.path, crashed);
      copyFileSync(`${shared.path}-wal`, `${crashed}-wal`);
      await app.durable();
      uninterrupted = await infoOf(consensus);
      assert.equal(uninterrupted.height, 6n);
    } finally {
      await shared.close();
    }
    const restarted = await appOnSharedFile({}, undefined, crashed);
    try {
      const before = await infoOf(consensus);
      assert.deepEqual(before, { height: 1n, appHash: block1AppHash }, "the last block made durable before the batch");
      // CometBFT's handshake replays blocks 2 to 6 from its own block store.
      await replay(2, 6);
      await app.durable();
      assert.deepEqual(await infoOf(consensus), uninterrupted);
      assert.equal((await restarted.store.getChainState()).height, 6);
    } finally {
      await restarted.close();
    }
    assert.deepEqual(fatal, []);
  });
});

describe("LedgerAbciApp: a store that cannot be reached (PostgreSQL down)", () => {
  /** The ledger and store as PostgreSQL's are while its server is down: reads fail with StoreUnavailable until `up`. */
  function whileDown(): { ledger: LedgerApp; store: Store; up(): void; tried: Set<string> } {
    let down = true;
    const tried = new Set<string>();
    const unavailable = (what: string) => {
      tried.add(what);
      return Promise.reject(new LedgerError("StoreUnavailable", "PostgreSQL cannot be reached (test)"));
    };
    const ledger = new Proxy(fx.ledger, {
      get: (target, key) => (key === "recheckTx" ? (tx: Uint8Array) => (down ? unavailable("checkTx") : target.recheckTx(tx)) : Reflect.get(target, key)),
    });
    const store = new Proxy(fx.store, {
      get: (target, key) => (key === "getTransaction" ? (id: string) => (down ? unavailable("query") : target.getTransaction(id)) : Reflect.get(target, key)),
    });
    return { ledger, store, up: () => void (down = false), tried };
  }

  it("CheckTx and Query wait for it, as a block does, instead of stopping the node; then answer", async () => {
    await consensus.call(initChain());
    const asset = create(alice);
    await commitBlock(1, [bytesOf(asset)]);
    const { toBob } = twoSpendsOf(asset);
    const clock = new ManualClock();
    const outage = whileDown();
    await stopApp();
    app = new LedgerAbciApp({ chainId: "test-chain", version: "9.9.9" }, { ledger: outage.ledger, store: outage.store, onFatal: (e) => fatal.push(e), clock });
    server = await AbciServer.start(
      { listen: { host: "127.0.0.1", port: 0 }, messageBytesMax: 1 << 24, requestsInFlightMax: 1_000, writeBufferBytesMax: 65_536 },
      { handler: { handle: (request, connection) => app.handle(request, connection), closed: (connection) => app.closed(connection) }, onFatal: (e) => fatal.push(e) },
    );
    consensus = await AbciTestClient.open(server.address);
    mempool = await AbciTestClient.open(server.address);
    const checked = mempool.send(checkTx(bytesOf(toBob)), { flush: {} })[0]!;
    const queried = consensus.send({ query: { path: `/transactions/${asset["id"] as string}`, data: new Uint8Array(0), height: 0n, prove: false } }, { flush: {} })[0]!;
    await waitFor("the app to try the CheckTx and the Query", () => outage.tried.size === 2);
    await clock.advance(storeRetryIntervalMs * 3);
    assert.deepEqual(fatal, [], "the node does not stop while the store is away");
    outage.up();
    await clock.advance(storeRetryIntervalMs);
    assert.equal((await checked).checkTx!.code, 0);
    const answer = (await queried).query!;
    assert.equal(answer.code, 0);
    assert.equal(JSON.parse(Buffer.from(answer.value).toString("utf8"))["id"], asset["id"]);
    assert.deepEqual(fatal, []);
  });
});

describe("LedgerAbciApp: CometBFT stopped between FinalizeBlock and Commit", () => {
  /** CometBFT restarted alone: new connections, Info on the query one, InitChain at height 0. */
  async function restartCometBft(): Promise<bigint> {
    consensus = await AbciTestClient.open(server.address);
    const query = await AbciTestClient.open(server.address);
    const [answer] = await query.call(info);
    query.close();
    const height = answer!.info!.lastBlockHeight;
    if (height === 0n) await consensus.call(initChain());
    return height;
  }

  /** FinalizeBlock on the consensus connection, then CometBFT dies before Commit. */
  async function finalizeThenDie(height: number, txs: Uint8Array[], closes: number[]): Promise<string> {
    const [finalized] = await consensus.call(finalizeBlock(height, txs));
    const seen = closes.length;
    consensus.close();
    await waitFor("the app to hear the consensus connection closed", () => closes.length > seen);
    return Buffer.from(finalized!.finalizeBlock!.appHash).toString("hex");
  }

  it("drops the uncommitted block when its connection closes; the replayed height commits with the same app hash", async () => {
    const closes = recordCloses();
    await consensus.call(initChain());
    const asset = create(alice);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    const expected = [nextAppHash("", [asset["id"] as string])];
    expected.push(nextAppHash(expected[0]!, [toBob["id"] as string]));

    assert.equal(await finalizeThenDie(1, [bytesOf(asset)], closes), expected[0]);
    await assert.rejects(fx.ledger.commit(), /commit without finalizeBlock/, "nothing is left staged");
    assert.equal(await restartCometBft(), 0n);
    assert.equal(Buffer.from((await commitBlock(1, [bytesOf(asset)])).appHash).toString("hex"), expected[0]);

    const [admitted] = await mempool.call(checkTx(bytesOf(toBob)));
    assert.equal(admitted!.checkTx!.code, 0);
    assert.equal(await finalizeThenDie(2, [bytesOf(toBob)], closes), expected[1]);
    assert.equal(fx.ledger.pendingCount, 1, "the pending pool is as before the block");
    assert.equal(await restartCometBft(), 1n);
    const replayed = await commitBlock(2, [bytesOf(toBob)]);
    assert.equal(replayed.txResults[0]!.code, 0);
    assert.equal(Buffer.from(replayed.appHash).toString("hex"), expected[1]);
    assert.equal(fx.ledger.pendingCount, 0);
    assert.deepEqual(await fx.store.getChainState().then((s) => [s.height, s.appHash]), [2, expected[1]]);
    assert.deepEqual(fatal, []);
  });

  it("keeps a block whose Commit came before the connection closed", async () => {
    const closes = recordCloses();
    await consensus.call(initChain());
    await consensus.call(finalizeBlock(1, [bytesOf(create(alice))]), { commit: {} });
    consensus.close();
    await waitFor("the app to hear the consensus connection closed", () => closes.length === 1);
    assert.equal(await restartCometBft(), 1n);
    assert.deepEqual(fatal, []);
  });
});
