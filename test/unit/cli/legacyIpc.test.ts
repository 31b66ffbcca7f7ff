// The legacy routes across processes (server.workers > 1): IpcLegacyGateway in a worker and
// answerLegacy in the primary, with a fake channel and service (the whole path runs for real in
// test/e2e/legacy.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { prepareBytes } from "../../../src/ledger/prepared.js";
import type { PreparedBase } from "../../../src/ledger/txKind.js";
import type { PreparedLegacyTx } from "../../../src/legacy/types.js";
import { answerLegacy } from "../../../src/node/httpCluster.js";
import { IpcLegacyGateway } from "../../../src/node/ipc/ipcLegacyGateway.js";
import { decodeBytes, encodeBytes, encodePrepared, type LegacyRequest, type LegacyPostRequest } from "../../../src/node/ipc/ipcMessages.js";
import { createLogger } from "../../../src/node/logger.js";
import { legacyBytes, legacyCreate, legacyTransfer } from "../../helpers/legacyFactory.js";
import { keypairOf } from "../../helpers/txFactory.js";
import { fakeChannel as fakeChannelOf } from "../../helpers/fakeChannel.js";

const node = keypairOf("ipc node");
const alice = keypairOf("ipc alice");
const asset = legacyCreate("A", node, [alice.publicKey]);
const spend = legacyTransfer("B", [{ tx: asset, cid: 0 }], [node.publicKey], [alice]);

const fakeChannel = () => fakeChannelOf<LegacyRequest>();

const prepares: Uint8Array[] = [];
const localPool = {
  prepare: async (bytes: Uint8Array, kind: "legacy") => {
    prepares.push(bytes);
    return prepareBytes(bytes, kind) as PreparedLegacyTx;
  },
};

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("IpcLegacyGateway (the worker's side)", () => {
  it("sends a CREATE unprepared (the primary re-makes it) and a TRANSFER prepared here", async () => {
    const fake = fakeChannel();
    const gateway = new IpcLegacyGateway({ pool: localPool, channel: fake.channel });
    prepares.length = 0;
    const created = gateway.post(legacyBytes(asset));
    await flush();
    const first = fake.sent[0] as LegacyPostRequest;
    assert.equal(first.type, "legacyPost");
    assert.equal(first.prepared, null);
    assert.deepEqual(prepares, [], "a CREATE's signature is not checked");
    assert.deepEqual(Buffer.from(decodeBytes(first.bytes)), Buffer.from(legacyBytes(asset)));
    const posted = { json: "{}", assignee: node.publicKey };
    fake.answer({ tag: "other", type: "legacyResult", requestId: first.requestId, ok: true, value: null });
    fake.answer({ tag: "ledgerd", type: "legacyResult", requestId: first.requestId, ok: true, value: posted });
    assert.deepEqual(await created, posted);

    const transferred = gateway.post(legacyBytes(spend));
    await flush();
    const second = fake.sent[1] as LegacyPostRequest;
    assert.equal(second.prepared?.kind, "legacy");
    assert.equal((second.prepared?.wire as PreparedLegacyTx).id, spend["id"]);
    assert.equal(prepares.length, 1);
    fake.answer({ tag: "ledgerd", type: "legacyResult", requestId: second.requestId, ok: false, code: "DoubleSpend", message: "spent" });
    await assert.rejects(transferred, (e: unknown) => e instanceof LedgerError && e.code === "DoubleSpend" && e.message === "spent");
  });

  it("refuses a bad body or a bad TRANSFER itself, sending nothing", async () => {
    const fake = fakeChannel();
    const gateway = new IpcLegacyGateway({ pool: localPool, channel: fake.channel });
    await assert.rejects(gateway.post(new TextEncoder().encode("{}")), { code: "LegacyInvalid" });
    const forged = { ...spend, id: "ab".repeat(32) };
    await assert.rejects(gateway.post(legacyBytes(forged)), { code: "InvalidHash" });
    assert.equal(fake.sent.length, 0);
  });

  it("asks the primary for a status; a lost primary is 503 for every waiting request", async () => {
    const fake = fakeChannel();
    const gateway = new IpcLegacyGateway({ pool: localPool, channel: fake.channel });
    const status = gateway.status("ab".repeat(32));
    await flush();
    assert.deepEqual(fake.sent[0], { tag: "ledgerd", type: "legacyStatus", requestId: 0, id: "ab".repeat(32) });
    fake.answer({ tag: "ledgerd", type: "legacyResult", requestId: 0, ok: true, value: "backlog" });
    assert.equal(await status, "backlog");
    const waiting = gateway.status("cd".repeat(32));
    fake.disconnect();
    await assert.rejects(waiting, { code: "EngineUnavailable" });
    await assert.rejects(gateway.status("cd".repeat(32)), { code: "EngineUnavailable" });
  });
});

describe("answerLegacy (the primary's side)", () => {
  const logger = createLogger("silent");
  const base = { engine: { broadcast: async () => assert.fail("not a v2.0 broadcast") }, ledger: { remember: () => undefined }, logger };

  it("hands the bytes and the worker's prepared TRANSFER to the service; statuses pass through", async () => {
    const calls: [Uint8Array, PreparedBase | undefined][] = [];
    const legacy = {
      post: async (bytes: Uint8Array, prepared?: PreparedBase) => (calls.push([bytes, prepared]), { json: "{}", assignee: "k" }),
      status: async (id: string) => (id === "known" ? ("valid" as const) : null),
    };
    const prepared = prepareBytes(legacyBytes(spend), "legacy") as PreparedLegacyTx;
    const request = { tag: "ledgerd", type: "legacyPost", requestId: 3, bytes: encodeBytes(legacyBytes(spend)), prepared: encodePrepared(prepared) } as const;
    const answer = await answerLegacy(JSON.parse(JSON.stringify(request)) as LegacyRequest, { ...base, legacy });
    assert.deepEqual(answer, { tag: "ledgerd", type: "legacyResult", requestId: 3, ok: true, value: { json: "{}", assignee: "k" } });
    assert.equal(calls.length, 1);
    assert.deepEqual(Buffer.from(calls[0]![0]), Buffer.from(legacyBytes(spend)));
    assert.deepEqual(calls[0]![1], prepared);
    const known = await answerLegacy({ tag: "ledgerd", type: "legacyStatus", requestId: 4, id: "known" }, { ...base, legacy });
    assert.deepEqual(known, { tag: "ledgerd", type: "legacyResult", requestId: 4, ok: true, value: "valid" });
  });

  it("answers a LedgerError with its code, anything else as Internal", async () => {
    const failing = (error: unknown) => ({
      post: async () => {
        throw error;
      },
      status: async () => null,
    });
    const request = { tag: "ledgerd", type: "legacyPost", requestId: 5, bytes: encodeBytes(legacyBytes(asset)), prepared: null } as const;
    const refused = await answerLegacy(request, { ...base, legacy: failing(new LedgerError("LegacyInvalid", "bad")) });
    assert.deepEqual(refused, { tag: "ledgerd", type: "legacyResult", requestId: 5, ok: false, code: "LegacyInvalid", message: "bad" });
    const bug = await answerLegacy(request, { ...base, legacy: failing(new TypeError("oops")) });
    assert.deepEqual(bug, { tag: "ledgerd", type: "legacyResult", requestId: 5, ok: false, code: "Internal", message: "Internal error" });
  });
});
