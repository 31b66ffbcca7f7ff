// POST mode mapping (docs/compatibility.md #5) through the real RPC client against a stand-in for
// CometBFT's JSON-RPC server that answers as v0.38 does.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { CometBftBroadcaster, abciResultError, resultError } from "../../../src/engine/cometbft/cometBftBroadcaster.js";
import { CometBftRpcClient, RpcFailure, parseAnswer } from "../../../src/engine/cometbft/rpcClient.js";
import type { BroadcastMode } from "../../../src/engine/broadcaster.js";
import type { LedgerError } from "../../../src/errors/ledgerError.js";
import { bytesOf, create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { openLedger, type LedgerFixture } from "./ledgerFixture.js";
import { refusal } from "../../helpers/refusal.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { waitFor } from "../../helpers/waitFor.js";

/** Whether `promise` has settled, after everything already queued has run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

const alice = keypairOf("alice");
const bob = keypairOf("bob");

interface Call {
  readonly method: string;
  readonly params: { tx: string };
}

/** What the stand-in answers next: a JSON-RPC `result`, an `error`, raw text, or nothing until released. */
type Script = { result: unknown } | { error: { code: number; message: string; data: string } } | { raw: string } | { held: true; result: unknown };

let server: Server;
let url: string;
const calls: Call[] = [];
/** Calls per HTTP request, in arrival order. */
const requests: number[] = [];
let script: Script = { result: {} };
/** Releases the answers a `held` script keeps back. */
const held: (() => void)[] = [];

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      type Body = { id: number; method: string; params: { tx: string } };
      const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body | Body[];
      const bodies = Array.isArray(parsed) ? parsed : [parsed];
      requests.push(bodies.length);
      for (const body of bodies) calls.push({ method: body.method, params: body.params });
      const now = script;
      if ("held" in now) await new Promise<void>((resolve) => held.push(resolve));
      res.setHeader("content-type", "application/json");
      if ("raw" in now) {
        res.end(now.raw);
        return;
      }
      const answers = bodies.map((body) => {
        // A transaction whose JSON holds "refuse-me" is refused by CheckTx, as in a real batch.
        if (Buffer.from(body.params.tx, "base64").toString("utf8").includes("refuse-me")) {
          return { jsonrpc: "2.0", id: body.id, result: { code: 1, codespace: "DoubleSpend", log: "refused in the batch" } };
        }
        return "error" in now ? { jsonrpc: "2.0", id: body.id, error: now.error } : { jsonrpc: "2.0", id: body.id, result: now.result };
      });
      res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

let fx: LedgerFixture;
let rpc: CometBftRpcClient;
let broadcaster: CometBftBroadcaster;
/** The RPC client's timeouts run on it. */
let clock: ManualClock;
/** How many answers waited for the ledger's durability (the `durable` dep). */
let durableWaits: number;
beforeEach(async () => {
  durableWaits = 0;
  fx = await openLedger();
  await fx.ledger.initChain("test-chain", [{ publicKey: "ab".repeat(32), power: 1 }]);
  clock = new ManualClock();
  rpc = new CometBftRpcClient(rpcOptions(url), { clock });
  // Durable a turn of the event loop later: an answer that did not wait for it would come first
  // (its promise chain settles within the turn), on any machine.
  const durable = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    durableWaits++;
  };
  broadcaster = new CometBftBroadcaster({ rpcTimeoutMs: 500, commitTimeoutMs: 300 }, { ledger: fx.ledger, rpc, durable });
  calls.length = 0;
  requests.length = 0;
});
afterEach(async () => {
  rpc.close();
  await fx.close();
});

function rpcOptions(target: string) {
  return { url: target, socketsMax: 4, responseBytesMax: 1 << 20, batchMethods: new Set(["broadcast_tx_async", "broadcast_tx_sync"]), batchCallsMax: 3, batchBytesMax: 1 << 20 };
}

const rpcError = (data: string): Script => ({ error: { code: -32603, message: "Internal error", data } });

describe("CometBftBroadcaster", () => {
  it("hands the transaction to broadcast_tx_<mode> as base64 and answers with it (commit: once the block is durable here)", async () => {
    for (const mode of ["async", "sync", "commit"] as const) {
      script = { result: mode === "commit" ? { check_tx: {}, tx_result: {}, hash: "AB", height: "3" } : { code: 0, hash: "AB" } };
      const fresh = create(alice);
      const waitsBefore = durableWaits;
      const answer = await broadcaster.broadcast(bytesOf(fresh), mode);
      assert.equal(durableWaits - waitsBefore, mode === "commit" ? 1 : 0, mode);
      assert.equal(answer.id, fresh["id"]);
      const call = calls.at(-1)!;
      assert.equal(call.method, `broadcast_tx_${mode}`);
      assert.equal(Buffer.from(call.params.tx, "base64").toString("utf8"), JSON.stringify(fresh));
    }
  });

  it("refuses, without broadcasting, what committed state already rules out", async () => {
    const asset = create(alice);
    await fx.ledger.finalizeBlock(1, [bytesOf(asset)]);
    await fx.ledger.commit();
    const error = await refusal(broadcaster.broadcast(bytesOf(asset), "async"));
    assert.equal(error.code, "DuplicateTransaction");
    assert.equal(error.status, 400);
    const bad = await refusal(broadcaster.broadcast(Buffer.from("{"), "sync"));
    assert.equal(bad.status, 400);
    assert.equal(calls.length, 0);
    assert.equal(fx.ledger.pendingCount, 0, "the check does not join the pending pool");
  });

  it("maps a CheckTx refusal (sync) to our code from codespace and message from log: 400", async () => {
    script = { result: { code: 1, codespace: "DoubleSpend", log: "input `x` was already spent", hash: "AB" } };
    const error = await refusal(broadcaster.broadcast(bytesOf(create(alice)), "sync"));
    assert.equal(error.code, "DoubleSpend");
    assert.equal(error.status, 400);
    assert.equal(error.httpMessage, "Invalid transaction (DoubleSpend): input `x` was already spent");
  });

  it("maps commit's check_tx and tx_result refusals; code left out means 0", async () => {
    script = { result: { check_tx: { code: 1, codespace: "InputDoesNotExist", log: "no such input" }, tx_result: {}, hash: "AB", height: "0" } };
    assert.equal((await refusal(broadcaster.broadcast(bytesOf(create(alice)), "commit"))).code, "InputDoesNotExist");
    script = { result: { check_tx: { code: 0 }, tx_result: { code: 1, codespace: "DoubleSpend", log: "spent in this block" }, hash: "AB", height: "9" } };
    const atBlock = await refusal(broadcaster.broadcast(bytesOf(create(alice)), "commit"));
    assert.equal(atBlock.code, "DoubleSpend");
    assert.equal(atBlock.message, "spent in this block");
  });

  it("maps CometBFT's cache hit to 400 PendingTransaction and a full mempool to 503", async () => {
    script = rpcError("tx already exists in cache");
    const cached = await refusal(broadcaster.broadcast(bytesOf(create(alice)), "async"));
    assert.equal(cached.code, "PendingTransaction");
    assert.equal(cached.status, 400);
    script = rpcError("mempool is full: number of txs 5000 (max: 5000), total txs bytes 1 (max: 2)");
    assert.equal((await refusal(broadcaster.broadcast(bytesOf(create(alice)), "sync"))).status, 503);
  });

  it("maps commit timeouts, ours and CometBFT's, to 504", async () => {
    script = rpcError("timed out waiting for tx to be included in a block");
    const theirs = await refusal(broadcaster.broadcast(bytesOf(create(alice)), "commit"));
    assert.equal(theirs.code, "CommitTimeout");
    assert.equal(theirs.status, 504);
    script = { held: true, result: {} };
    const commit = refusal(broadcaster.broadcast(bytesOf(create(alice)), "commit"));
    await waitFor("the commit call at CometBFT", () => held.length === 1);
    await clock.advance(299);
    assert.equal(await settledYet(commit), false, "not before commitTimeoutMs");
    await clock.advance(1);
    const ours = await commit;
    assert.equal(ours.code, "CommitTimeout");
    assert.match(ours.message, /within 300 ms; it may still commit/);
    // A sync broadcast that gets no answer is the engine being unavailable, not a commit timeout.
    const sync = refusal(broadcaster.broadcast(bytesOf(create(alice)), "sync"));
    await waitFor("the sync call at CometBFT", () => held.length === 2);
    await clock.advance(500);
    assert.equal((await sync).code, "EngineUnavailable");
    for (const release of held.splice(0)) release();
  });

  it("answers a commit whose rival a committed block carried 400 DoubleSpend at once, as a POST of it would be", async () => {
    const asset = create(alice);
    await fx.ledger.finalizeBlock(1, [bytesOf(asset)]);
    await fx.ledger.commit();
    const spendTo = (to: { publicKey: string }) =>
      transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [to.publicKey], amount: 1n }]);
    const [loser, rival] = [spendTo(bob), spendTo(alice)];
    // CometBFT holds the commit call: it has the loser in its mempool, and would drop it at its
    // recheck after the rival's block without ever answering (until its own timeout).
    script = { held: true, result: {} };
    let answer: LedgerError | null = null;
    void refusal(broadcaster.broadcast(bytesOf(loser), "commit")).then((error) => (answer = error));
    await waitFor("the commit call at CometBFT", () => held.length === 1);
    // Another validator's block carried the rival; no time passes on the commit timeout's clock.
    await fx.ledger.finalizeBlock(2, [bytesOf(rival)]);
    await fx.ledger.commit();
    const refused = await waitFor<LedgerError>("the loser's answer", () => answer, { timeoutMs: 5_000 });
    assert.equal(refused.code, "DoubleSpend");
    assert.equal(refused.status, 400);
    assert.equal(refused.httpMessage, `Invalid transaction (DoubleSpend): input \`${asset["id"]}\` was already spent`);
    const posted = await refusal(broadcaster.broadcast(bytesOf(loser), "commit"));
    assert.equal(posted.httpMessage, refused.httpMessage, "the same answer as a POST after the block");
    assert.equal(calls.length, 1, "the POST after the block was refused before broadcasting");
    // CometBFT's late answer to the first call goes nowhere.
    for (const release of held.splice(0)) release();
  });

  it("maps an unreachable CometBFT and an unreadable answer to 503 EngineUnavailable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = new CometBftRpcClient(rpcOptions(`http://127.0.0.1:${port}`));
    const nowhere = new CometBftBroadcaster({ rpcTimeoutMs: 500, commitTimeoutMs: 500 }, { ledger: fx.ledger, rpc: down, durable: async () => undefined });
    const error = await refusal(nowhere.broadcast(bytesOf(create(alice)), "commit"));
    assert.equal(error.code, "EngineUnavailable");
    assert.equal(error.status, 503);
    assert.match(error.message, /cannot be reached/);
    down.close();
    script = { raw: "<html>bad gateway</html>" };
    assert.equal((await refusal(broadcaster.broadcast(bytesOf(create(alice)), "sync"))).code, "EngineUnavailable");
  });
});

describe("JSON-RPC batching", () => {
  it("sends sync calls made together as batches within the limit, each with its own answer", async () => {
    script = { result: { code: 0, hash: "AB" } };
    const txs = [create(alice), create(alice), create(alice, 1n, { note: "refuse-me" }), create(alice), create(alice)];
    const answers = await Promise.allSettled(txs.map((tx) => broadcaster.broadcast(bytesOf(tx), "sync")));
    assert.deepEqual(requests, [3, 2], "five calls in batches of at most 3");
    assert.deepEqual(answers.map((a) => a.status), ["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const refused = (answers[2] as PromiseRejectedResult).reason as LedgerError;
    assert.equal(refused.code, "DoubleSpend");
    assert.equal(refused.message, "refused in the batch");
    assert.deepEqual(calls.map((c) => c.method), Array(5).fill("broadcast_tx_sync"));
  });

  it("never batches commit calls", async () => {
    script = { result: { check_tx: {}, tx_result: {}, hash: "AB", height: "1" } };
    await Promise.all([create(alice), create(alice)].map((tx) => broadcaster.broadcast(bytesOf(tx), "commit")));
    assert.deepEqual(requests, [1, 1]);
  });
});

describe("result mapping", () => {
  it("reads nothing into an async result and treats unknown codespaces as validation errors", () => {
    assert.equal(resultError("async", { code: 1 }), null);
    assert.equal(resultError("sync", { code: 0, hash: "AB" }), null);
    assert.equal(resultError("sync", { hash: "AB" }), null);
    assert.equal(resultError("sync", null)?.code, "EngineUnavailable");
    assert.equal(abciResultError({ code: 7, codespace: "sdk", log: "other app" })?.code, "ValidationError");
    assert.equal(abciResultError({ code: 1, codespace: "MempoolFull", log: "full" })?.status, 503);
  });

  it("parses JSON-RPC answers into result or failure", () => {
    assert.deepEqual(parseAnswer('{"jsonrpc":"2.0","id":1,"result":{"code":0}}', 200), [null, { code: 0 }]);
    const [failure] = parseAnswer('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":"tx already exists in cache"}}', 500);
    assert.ok(failure instanceof RpcFailure);
    assert.equal(failure.kind, "rpc");
    assert.equal(failure.data, "tx already exists in cache");
    assert.equal(failure.message, "Internal error - tx already exists in cache");
    assert.equal(parseAnswer("nope", 502)[0]?.kind, "protocol");
    assert.equal(parseAnswer('{"jsonrpc":"2.0","id":1}', 200)[0]?.kind, "protocol");
  });
});

describe("the check before broadcasting", () => {
  it("lets a transaction spend a pending one's output, and leaves a pending one posted again to CometBFT's cache", async () => {
    const asset = create(alice);
    const toBob = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }]);
    assert.equal((await fx.ledger.checkTx(bytesOf(asset))).ok, true);
    script = { result: { code: 0, hash: "AB" } };
    assert.equal((await broadcaster.broadcast(bytesOf(toBob), "sync")).id, toBob["id"]);
    // Pending here: CometBFT still holds it (its cache says so) or lost it (and takes it again).
    script = rpcError("tx already exists in cache");
    const again = await refusal(broadcaster.broadcast(bytesOf(asset), "async"));
    assert.equal(again.code, "PendingTransaction");
    assert.equal(calls.length, 2);
  });
});

/** One request the hanging-up stand-in received: its connection and its place on it, from 1. */
interface Seen {
  readonly connection: number;
  readonly request: number;
  readonly tx: string;
}

/**
 * A stand-in for CometBFT's RPC that closes a connection under the client once it has read a
 * request on it, unanswered, where `hangUp` says so (Go's server closes a kept-alive connection
 * idle past its read timeout, whatever the client is sending); it answers the others with
 * `answer`'s JSON-RPC `result` or `error`.
 */
async function hangingUpServer(hangUp: (at: Seen) => boolean, answer: (at: Seen) => Script) {
  const seen: Seen[] = [];
  const connections = new WeakMap<object, { id: number; requests: number }>();
  let nextConnection = 1;
  const stand = createServer((req, res) => {
    let place = connections.get(req.socket);
    if (place === undefined) connections.set(req.socket, (place = { id: nextConnection++, requests: 0 }));
    const at = { connection: place.id, request: ++place.requests };
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; params: { tx: string } };
      const now = { ...at, tx: body.params.tx };
      seen.push(now);
      if (hangUp(now)) {
        req.socket.destroy();
        return;
      }
      const script = answer(now);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, ...("error" in script ? { error: script.error } : { result: (script as { result: unknown }).result }) }));
    });
  });
  await new Promise<void>((resolve) => stand.listen(0, "127.0.0.1", resolve));
  const client = new CometBftRpcClient(rpcOptions(`http://127.0.0.1:${(stand.address() as AddressInfo).port}`));
  const broadcasts = new CometBftBroadcaster({ rpcTimeoutMs: 5_000, commitTimeoutMs: 5_000 }, { ledger: fx.ledger, rpc: client, durable: async () => undefined });
  standsOpen.push(async () => {
    client.close();
    stand.closeAllConnections();
    await new Promise<void>((resolve) => stand.close(() => resolve()));
  });
  return { seen, broadcasts };
}

/** Closes the stand-ins a test opened, whatever its outcome. */
const standsOpen: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of standsOpen.splice(0)) await close();
});

const accepted = (mode: BroadcastMode): Script => ({ result: mode === "commit" ? { check_tx: {}, tx_result: {}, hash: "AB", height: "1" } : { code: 0, hash: "AB" } });
const base64Of = (tx: ReturnType<typeof create>): string => Buffer.from(bytesOf(tx)).toString("base64");
/** The second request on the first connection is cut: the kept-alive connection CometBFT closed. */
const secondOnFirst = (at: Seen): boolean => at.connection === 1 && at.request === 2;

describe("a kept-alive connection CometBFT closed under a broadcast", () => {
  it("sends the broadcast again, once, on a new connection: CometBFT's answer to it is the answer", async () => {
    for (const mode of ["async", "sync", "commit"] as const) {
      const stand = await hangingUpServer(secondOnFirst, () => accepted(mode));
      const [first, second] = [create(alice), create(alice)];
      assert.equal((await stand.broadcasts.broadcast(bytesOf(first), mode)).id, first["id"]);
      assert.equal((await stand.broadcasts.broadcast(bytesOf(second), mode)).id, second["id"], mode);
      const trail = stand.seen.map((s) => [s.connection, s.request, s.tx]);
      assert.deepEqual(trail, [[1, 1, base64Of(first)], [1, 2, base64Of(second)], [2, 1, base64Of(second)]], mode);
    }
  });

  it("a second try CometBFT's cache refuses was taken by the first: async and sync accept it, commit answers 504", async () => {
    for (const mode of ["async", "sync", "commit"] as const) {
      const stand = await hangingUpServer(secondOnFirst, (at) => (at.connection === 1 ? accepted(mode) : rpcError("tx already exists in cache")));
      await stand.broadcasts.broadcast(bytesOf(create(alice)), mode);
      const second = create(alice);
      const answer = stand.broadcasts.broadcast(bytesOf(second), mode);
      if (mode === "commit") {
        const error = await refusal(answer);
        assert.equal(error.code, "CommitTimeout");
        assert.match(error.message, /its answer was lost; it may still commit/);
      } else {
        assert.equal((await answer).id, second["id"], mode);
      }
      assert.equal(stand.seen.length, 3, mode);
    }
  });

  it("a broadcast cut on a new connection is not sent again: 503", async () => {
    const stand = await hangingUpServer((at) => at.request === 1, () => accepted("sync"));
    const error = await refusal(stand.broadcasts.broadcast(bytesOf(create(alice)), "sync"));
    assert.equal(error.code, "EngineUnavailable");
    assert.match(error.message, /CometBFT cannot be reached: .*socket hang up/);
    assert.equal(stand.seen.length, 1);
  });
});
