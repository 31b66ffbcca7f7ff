// The node's wiring pieces, in process: the node key file, the IPC codec and broadcaster of the
// HTTP workers, the primary's answer to them, the advertised stream URL, and startNode's fatal
// path and logging.
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError } from "../../../src/config/configError.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import type { ModuleOptions } from "../../../src/config/moduleOptions.js";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Store } from "../../../src/store/store.js";
import { makeCreate } from "../../../src/transaction/builders/makeCreate.js";
import { makeKeypair } from "../../../src/transaction/builders/makeKeypair.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { prepareTxBytes } from "../../../src/transaction/prepareTxBytes.js";
import type { PreparedTx } from "../../../src/transaction/types.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { answerBroadcast } from "../../../src/node/httpCluster.js";
import { IpcBroadcaster } from "../../../src/node/ipc/ipcBroadcaster.js";
import type { PreparedBase } from "../../../src/ledger/txKind.js";
import { decodePreparedTx, encodePreparedTx } from "../../../src/ledger/kinds/v2/wirePreparedTx.js";
import { makeValidatorElection, makeVote } from "../../../src/transaction/builders/makeElection.js";
import {
  decodeBytes,
  decodePrepared,
  encodeBytes,
  encodePrepared,
  type BroadcastRequest,
  type BroadcastResponse,
} from "../../../src/node/ipc/ipcMessages.js";
import { createLogger } from "../../../src/node/logger.js";
import { createNodeKey, loadOrCreateNodeKey, newKeyFile, readNodeKey } from "../../../src/node/nodeKey.js";
import { startNode, streamsUrlOf } from "../../../src/node/startNode.js";
import { httpCall, useTempDirs } from "./ledgerdProcess.js";
import { fakeChannel as fakeChannelOf } from "../../helpers/fakeChannel.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { waitFor } from "../../helpers/waitFor.js";

const tempDir = useTempDirs("ledgerd-node-");

const alice = makeKeypair(new Uint8Array(32).fill(3));

function signedCreate(amount: bigint, n = 0): Uint8Array {
  const tx = makeCreate({ issuers: [alice.publicKey], outputs: [{ publicKeys: [alice.publicKey], amount }], assetData: { n }, metadata: { m: n } });
  return new TextEncoder().encode(writeJson(signTx(tx, [alice])));
}

function prepared(bytes: Uint8Array): PreparedTx {
  const result = prepareTxBytes(bytes);
  if ("code" in result) assert.fail(`${result.code}: ${result.message}`);
  return result;
}

/** Counting random bytes: a different, known seed on every call. */
function countingRandom(): (size: number) => Uint8Array {
  let next = 1;
  return (size) => new Uint8Array(size).fill(next++);
}

describe("node key", () => {
  it("is created once, owner-only, and read back as the same key", () => {
    const dir = tempDir();
    const random = countingRandom();
    const created = createNodeKey(dir, { randomBytes: random });
    assert.ok(created !== null);
    assert.equal(created.publicKey, makeKeypair(new Uint8Array(32).fill(1)).publicKey);
    assert.match(created.publicKeyHex, /^[0-9a-f]{64}$/);
    assert.equal(createNodeKey(dir, { randomBytes: random }), null, "an existing key is never replaced");
    assert.deepEqual(readNodeKey(dir), created);
    assert.deepEqual(loadOrCreateNodeKey(dir, { randomBytes: random }), { key: created, created: false });
    assert.equal(loadOrCreateNodeKey(tempDir(), { randomBytes: random }).created, true);
    assert.equal(readNodeKey(tempDir()), null);
  });

  it("refuses a damaged file with a ConfigError naming it", () => {
    const good = newKeyFile({ randomBytes: countingRandom() });
    const other = newKeyFile({ randomBytes: () => new Uint8Array(32).fill(9) });
    const cases: [string, RegExp][] = [
      ["{", /is not valid JSON/],
      ["null", /must hold a JSON object/],
      [JSON.stringify({ ...good, type: "rsa" }), /type must be "ed25519"/],
      [JSON.stringify({ ...good, private_key: 5 }), /private_key must be a base58 string/],
      [JSON.stringify({ ...good, private_key: "0OIl" }), /private_key is not base58/],
      [JSON.stringify({ ...good, private_key: "abc" }), /private_key must be 32 bytes/],
      [JSON.stringify({ ...good, public_key: other.public_key }), /public_key does not belong to private_key/],
    ];
    for (const [text, reason] of cases) {
      const dir = tempDir();
      writeFileSync(join(dir, "node_key.json"), text);
      assert.throws(() => readNodeKey(dir), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems[0]!.key, "node_key.json");
        assert.match(error.message, reason);
        return true;
      }, text);
    }
  });
});

describe("IPC codec", () => {
  it("carries a prepared transaction through JSON, amounts beyond 2^53 included", () => {
    // BigchainDB's largest amount (9 * 10^18), far beyond what a double holds exactly.
    const bytes = signedCreate(9_000_000_000_000_000_000n);
    const tx = prepared(bytes);
    assert.equal(tx.outputsTotal, 9_000_000_000_000_000_000n);
    const wire = JSON.parse(JSON.stringify(encodePreparedTx(tx))) as ReturnType<typeof encodePreparedTx>;
    assert.equal(wire.outputsTotal, "9000000000000000000");
    assert.deepEqual(decodePreparedTx(wire), tx);
    assert.deepEqual(decodeBytes(encodeBytes(bytes)), bytes);
    assert.deepEqual(decodeBytes(encodeBytes(bytes.subarray(3, 9))), bytes.subarray(3, 9));
  });

  it("carries an election's facts and a vote's count through JSON", () => {
    const voter = alice;
    const election = signTx(makeValidatorElection({
      proposer: voter.publicKey,
      voters: [{ publicKey: voter.publicKey, power: 10 }],
      validatorKeyBase64: Buffer.from(new Uint8Array(32).fill(7)).toString("base64"),
      power: 3,
      nodeId: "ipc",
      seed: "ipc-seed",
    }), [voter]);
    const vote = signTx(makeVote(election, voter.publicKey), [voter]);
    for (const body of [election, vote]) {
      const tx = prepared(Buffer.from(JSON.stringify(body)));
      const wire = JSON.parse(JSON.stringify(encodePreparedTx(tx))) as ReturnType<typeof encodePreparedTx>;
      assert.deepEqual(decodePreparedTx(wire), tx);
    }
    assert.equal(prepared(Buffer.from(JSON.stringify(vote))).votes, 10n);
    assert.equal(prepared(Buffer.from(JSON.stringify(election))).election?.power, 3);
  });

  it("asserts on an amount that is not a decimal string (a bug, not input)", () => {
    const wire = { ...encodePreparedTx(prepared(signedCreate(1n))), outputsTotal: "1e3" };
    assert.throws(() => decodePreparedTx(wire), { code: "ERR_ASSERTION" });
  });
});

const fakeChannel = () => fakeChannelOf<BroadcastRequest>();

const localPool = { prepare: async (bytes: Uint8Array) => prepareTxBytes(bytes) };

async function flush(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe("IpcBroadcaster", () => {
  it("prepares locally, sends bytes and result, and resolves with the primary's yes", async () => {
    const fake = fakeChannel();
    const broadcaster = new IpcBroadcaster({ pool: localPool, channel: fake.channel });
    const bytes = signedCreate(5n);
    const result = broadcaster.broadcast(bytes, "commit");
    await flush();
    assert.equal(fake.sent.length, 1);
    const request = fake.sent[0]!;
    assert.equal(request.mode, "commit");
    assert.deepEqual(decodeBytes(request.bytes), bytes);
    assert.equal(request.prepared.kind, "v2");
    assert.deepEqual(decodePrepared(request.prepared), prepared(bytes));
    fake.answer({ tag: "not-ours", type: "broadcastResult", requestId: request.requestId, ok: false });
    assert.equal(broadcaster.pendingCount, 1, "foreign messages are ignored");
    fake.answer({ tag: "ledgerd", type: "broadcastResult", requestId: request.requestId, ok: true, id: prepared(bytes).id });
    assert.deepEqual(await result, prepared(bytes));
    assert.equal(broadcaster.pendingCount, 0);
  });

  it("rethrows the primary's LedgerError with its code and message", async () => {
    const fake = fakeChannel();
    const broadcaster = new IpcBroadcaster({ pool: localPool, channel: fake.channel });
    const result = broadcaster.broadcast(signedCreate(5n), "sync");
    await flush();
    const answer: BroadcastResponse = {
      tag: "ledgerd",
      type: "broadcastResult",
      requestId: fake.sent[0]!.requestId,
      ok: false,
      code: "DuplicateTransaction",
      message: "already committed",
    };
    fake.answer(answer);
    await assert.rejects(result, (error: unknown) => error instanceof LedgerError && error.code === "DuplicateTransaction" && error.message === "already committed");
  });

  it("refuses a transaction that fails the stateless checks without asking the primary", async () => {
    const fake = fakeChannel();
    const broadcaster = new IpcBroadcaster({ pool: localPool, channel: fake.channel });
    await assert.rejects(broadcaster.broadcast(new TextEncoder().encode("{}"), "async"), (error: unknown) => error instanceof LedgerError && error.status === 400);
    assert.equal(fake.sent.length, 0);
  });

  it("fails waiting and later broadcasts with EngineUnavailable when the primary goes", async () => {
    const fake = fakeChannel();
    const broadcaster = new IpcBroadcaster({ pool: localPool, channel: fake.channel });
    const waiting = broadcaster.broadcast(signedCreate(5n), "commit");
    await flush();
    fake.disconnect();
    const unavailable = (error: unknown) => error instanceof LedgerError && error.code === "EngineUnavailable";
    await assert.rejects(waiting, unavailable);
    await assert.rejects(broadcaster.broadcast(signedCreate(6n), "commit"), unavailable);
  });
});

describe("answerBroadcast (the primary's side)", () => {
  const logger = createLogger("silent");

  function request(bytes: Uint8Array): BroadcastRequest {
    return { tag: "ledgerd", type: "broadcast", requestId: 7, bytes: encodeBytes(bytes), door: "v1", prepared: encodePrepared(prepared(bytes)), mode: "sync" };
  }

  it("remembers the worker's prepared transaction, then broadcasts its bytes", async () => {
    const bytes = signedCreate(8n);
    const remembered: [Uint8Array, PreparedBase][] = [];
    const broadcasts: Uint8Array[] = [];
    const response = await answerBroadcast(request(bytes), {
      ledger: { remember: (b, tx) => void remembered.push([b, tx]) },
      engine: { broadcast: async (b) => (broadcasts.push(b), prepared(b)) },
      logger,
    });
    assert.deepEqual(response, { tag: "ledgerd", type: "broadcastResult", requestId: 7, ok: true, id: prepared(bytes).id });
    assert.deepEqual(remembered, [[bytes, prepared(bytes)]]);
    assert.deepEqual(broadcasts, [bytes]);
  });

  it("answers a LedgerError with its code and anything else as Internal", async () => {
    const bytes = signedCreate(9n);
    const refused = await answerBroadcast(request(bytes), {
      ledger: { remember: () => {} },
      engine: { broadcast: async () => { throw new LedgerError("MempoolFull", "full"); } },
      logger,
    });
    assert.deepEqual(refused, { tag: "ledgerd", type: "broadcastResult", requestId: 7, ok: false, code: "MempoolFull", message: "full" });
    const broken = await answerBroadcast(request(bytes), {
      ledger: { remember: () => {} },
      engine: { broadcast: async () => { throw new TypeError("bug"); } },
      logger,
    });
    assert.equal(broken.ok, false);
    assert.equal(!broken.ok && broken.code, "Internal");
  });
});

describe("streamsUrlOf", () => {
  it("advertises the setting, or the stream's own address", () => {
    const path = "/api/v1/streams/valid_transactions";
    assert.equal(streamsUrlOf("", { host: "127.0.0.1", port: 9985 }), `ws://127.0.0.1:9985${path}`);
    assert.equal(streamsUrlOf("", { host: "0.0.0.0", port: 1 }), `ws://localhost:1${path}`);
    assert.equal(streamsUrlOf("", { host: "::1", port: 2 }), `ws://[::1]:2${path}`);
    assert.equal(streamsUrlOf("wss://ledger.example.com/", { host: "x", port: 3 }), `wss://ledger.example.com${path}`);
  });
});

/** A logger writing JSON lines into an array. */
function memoryLogger(level: "debug" | "info" = "debug") {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(level, { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
  return { logger, lines };
}

function testConfig(dataDir: string, flags: Record<string, string> = {}) {
  return loadConfig({
    env: {},
    flags: { data_dir: dataDir, "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0", "server.threads": "0", "engine.block_interval_ms": "1", ...flags },
  });
}

describe("startNode", () => {
  it("logs its start, each block at debug, and its stop", async () => {
    const { logger, lines } = memoryLogger();
    const dataDir = tempDir();
    const node = await startNode(testConfig(dataDir), { logger, randomBytes: () => new Uint8Array(32).fill(4) });
    try {
      assert.equal(node.publicKey, makeKeypair(new Uint8Array(32).fill(4)).publicKey);
      const started = lines.find((l) => l["msg"] === "ledgerd started");
      assert.ok(started !== undefined);
      assert.equal(started["http"], `${node.http.host}:${node.http.port}`);
      assert.equal(started["dataDir"], dataDir);
      const posted = await httpCall(node.http.port, "POST", "/api/v1/transactions?mode=commit", new TextDecoder().decode(signedCreate(1n, 1)));
      assert.equal(posted.status, 202, posted.body);
      const block = lines.find((l) => l["msg"] === "block committed");
      assert.ok(block !== undefined);
      assert.equal(block["height"], 1);
      assert.equal(block["txs"], 1);
    } finally {
      await node.close();
    }
    assert.equal(lines.at(-1)!["msg"], "ledgerd stopped");
    await assert.rejects(httpCall(node.http.port, "GET", "/"), { code: "ECONNREFUSED" });
  });

  it("runs its engine on the clock it is given: a block is cut when that clock says", async () => {
    const clock = new ManualClock();
    const node = await startNode(testConfig(tempDir(), { "engine.block_interval_ms": "1000" }), { logger: memoryLogger().logger, clock });
    try {
      const idle = clock.pending;
      const posting = httpCall(node.http.port, "POST", "/api/v1/transactions?mode=commit", new TextDecoder().decode(signedCreate(1n, 7)));
      await waitFor("the block's and the commit timeout's timers on the clock", () => clock.pending === idle + 2);
      await clock.advance(1000);
      const posted = await posting;
      assert.equal(posted.status, 202, posted.body);
      assert.equal(clock.pending, idle);
    } finally {
      await node.close();
    }
  });

  it("refuses a database of another chain or another validator", async () => {
    const dataDir = tempDir();
    const first = await startNode(testConfig(dataDir), { logger: memoryLogger().logger });
    await first.close();
    await assert.rejects(startNode(testConfig(dataDir, { "engine.chain_id": "other" }), { logger: memoryLogger().logger }), /engine\.chain_id.*is other, but the database holds chain ledgerd-solo/);
    const key = JSON.parse(readFileSync(join(dataDir, "node_key.json"), "utf8")) as Record<string, string>;
    writeFileSync(join(dataDir, "node_key.json"), JSON.stringify({ ...newKeyFile({ randomBytes: () => new Uint8Array(32).fill(8) }) }));
    await assert.rejects(startNode(testConfig(dataDir), { logger: memoryLogger().logger }), /is not a validator of chain ledgerd-solo/);
    writeFileSync(join(dataDir, "node_key.json"), JSON.stringify(key));
    chmodSync(join(dataDir, "node_key.json"), 0o600);
  });

  it("on a fatal engine error logs it, closes, and hands over to onFatal", async () => {
    const { logger, lines } = memoryLogger("info");
    const failing = (options: ModuleOptions): Store => {
      const store = SqliteStore.open(options.sqliteStore);
      return new Proxy(store, {
        get(target, property) {
          if (property === "commitBlock") return async () => { throw new Error("disk on fire"); };
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    };
    let fatal: unknown = null;
    let handOver: () => void = () => {};
    const handedOver = new Promise<void>((resolve) => (handOver = resolve));
    const node = await startNode(testConfig(tempDir()), {
      logger,
      openStore: failing,
      onFatal: (error) => {
        fatal = error;
        handOver();
      },
    });
    const answer = await httpCall(node.http.port, "POST", "/api/v1/transactions?mode=commit", new TextDecoder().decode(signedCreate(1n, 2)));
    assert.equal(answer.status, 503, answer.body);
    assert.match(answer.body, /The embedded engine stopped after an internal error/);
    await handedOver;
    // onFatal runs after the node closed: nothing listens any more.
    await assert.rejects(httpCall(node.http.port, "GET", "/"), { code: "ECONNREFUSED" });
    assert.match(String(fatal), /disk on fire/);
    const line = lines.find((l) => l["level"] === 60);
    assert.ok(line !== undefined);
    assert.match(String(line["msg"]), /engine stopped after an internal error/);
  });
});
