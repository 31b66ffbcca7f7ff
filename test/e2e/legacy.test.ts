// The earlier interface variants A and B end to end (issue #6, "Done when"): a node started as
// a user starts it (config -> startNode), driven over real sockets. Variant A vectors and the
// B transactions are made by our own builders (test/helpers/legacyFactory.ts); the verified B
// examples are covered in test/unit/legacy and test/unit/ledger/legacyLedger.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { loadConfig } from "../../src/config/loadConfig.js";
import { prepareLegacy } from "../../src/legacy/prepareLegacy.js";
import type { LegacyTx } from "../../src/legacy/types.js";
import { startNode, type NodeHandle } from "../../src/node/startNode.js";
import type { JsonObject } from "../../src/json/jsonValue.js";
import { writeJson } from "../../src/json/writeJson.js";
import { clientLegacyCreate, idOf, legacyTransfer } from "../helpers/legacyFactory.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { waitFor } from "../helpers/waitFor.js";

const [alice, bob, carol] = ["e2e alice", "e2e bob", "e2e carol"].map(keypairOf) as [
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
];

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly body: string;
}

class Client {
  constructor(readonly baseUrl: string) {}

  async call(method: string, path: string, body?: string): Promise<Answer> {
    const init: RequestInit = { method, headers: { "content-type": "text/plain" } };
    if (body !== undefined) init.body = body;
    const response = await fetch(`${this.baseUrl}${path}`, init);
    return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
  }

  post(tx: LegacyTx | JsonObject | string): Promise<Answer> {
    return this.call("POST", "/transactions/", typeof tx === "string" ? tx : writeJson(tx as JsonObject));
  }

  async status(id: string): Promise<string | null> {
    const answer = await this.call("GET", `/transactions/${id}/status`);
    if (answer.status === 404) return null;
    assert.equal(answer.status, 200, answer.body);
    return (JSON.parse(answer.body) as { status: string }).status;
  }

  async waitValid(id: string): Promise<void> {
    await waitFor(`${id} to be valid`, async () => (await this.status(id)) === "valid", { timeoutMs: 60_000 });
  }

  /** POST, expect 201 with this node's key as `assignee`; the stored transaction. */
  async created(tx: LegacyTx | string, assignee: string): Promise<LegacyTx> {
    const answer = await this.post(tx);
    assert.equal(answer.status, 201, answer.body);
    assert.equal(answer.type, "application/json");
    const { assignee: given, ...stored } = JSON.parse(answer.body) as LegacyTx;
    assert.equal(given, assignee);
    return stored;
  }

  async refused(tx: LegacyTx | string, message: RegExp): Promise<void> {
    const answer = await this.post(tx);
    assert.equal(answer.status, 400, answer.body);
    assert.equal(answer.type, "application/json");
    const error = JSON.parse(answer.body) as { message: string; status: number };
    assert.equal(error.status, 400);
    assert.match(error.message, message);
  }
}

async function start(dir: string, flags: Record<string, string> = {}): Promise<NodeHandle> {
  const config = loadConfig({
    flags: {
      data_dir: dir,
      "server.bind": "127.0.0.1:0",
      "wsserver.bind": "127.0.0.1:0",
      "log.level": "warn",
      // Long enough that a status read right after a POST finds the transaction pending.
      "engine.block_interval_ms": "400",
      ...flags,
    },
    env: {},
  });
  return startNode(config);
}

describe("legacy variants A and B on a started node", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-legacy-"));
  let handle: NodeHandle;
  let client: Client;

  before(async () => {
    handle = await start(dir);
    client = new Client(`http://127.0.0.1:${handle.http.port}`);
  });

  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("Variant A: CREATE answers 201 with assignee and a node-signed transaction; backlog -> valid; a TRANSFER commits; GET in its shape", async () => {
    const stored = await client.created(clientLegacyCreate("A", [alice.publicKey]), handle.publicKey);
    const prepared = prepareLegacy(stored);
    assert.ok(!("code" in prepared), JSON.stringify(prepared));
    assert.equal(prepared.creator, handle.publicKey);
    assert.equal(prepared.variant, "A");
    assert.equal(await client.status(idOf(stored)), "backlog");
    assert.equal((await client.call("GET", `/transactions/${idOf(stored)}`)).status, 404);
    await client.waitValid(idOf(stored));
    const read = await client.call("GET", `/transactions/${idOf(stored)}`);
    assert.equal(read.status, 200);
    assert.equal(read.body, writeJson(stored as JsonObject));
    const spend = legacyTransfer("A", [{ tx: stored, cid: 0 }], [bob.publicKey], [alice]);
    await client.created(spend, handle.publicKey);
    await client.waitValid(idOf(spend));
    const spent = await client.call("GET", `/transactions/${idOf(spend)}`);
    assert.equal(spent.body, writeJson(spend as JsonObject));
    assert.equal("version" in (JSON.parse(spent.body) as JsonObject), false, "A keeps version inside");
  });

  it("Variant B: a TRANSFER spending a B CREATE commits", async () => {
    const asset = await client.created(clientLegacyCreate("B", [alice.publicKey]), handle.publicKey);
    await client.waitValid(idOf(asset));
    const spend = legacyTransfer("B", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]);
    await client.created(spend, handle.publicKey);
    await client.waitValid(idOf(spend));
    const read = JSON.parse((await client.call("GET", `/transactions/${idOf(spend)}`)).body) as JsonObject;
    assert.equal(read["version"], 1);
    assert.deepEqual(read, JSON.parse(writeJson(spend as JsonObject)));
  });

  it("threshold (several owners) in both variants, spent across variants", async () => {
    const shared = await Promise.all(
      (["A", "B"] as const).map((v) => client.created(clientLegacyCreate(v, [alice.publicKey, bob.publicKey]), handle.publicKey)),
    );
    await Promise.all(shared.map((tx) => client.waitValid(idOf(tx))));
    const [fromA, fromB] = shared as [LegacyTx, LegacyTx];
    await client.refused(legacyTransfer("B", [{ tx: fromA, cid: 0 }], [carol.publicKey], [alice]), /InvalidSignature/);
    const spends = [
      legacyTransfer("B", [{ tx: fromA, cid: 0 }], [carol.publicKey], [alice, bob]),
      legacyTransfer("A", [{ tx: fromB, cid: 0 }], [carol.publicKey], [bob, alice]),
    ];
    for (const spend of spends) await client.created(spend, handle.publicKey);
    await Promise.all(spends.map((tx) => client.waitValid(idOf(tx))));
  });

  it("rejections: a double spend across variants (pending, then committed), a wrong id, a bad signature, a missing input, a mixed or unknown shape", async () => {
    const asset = await client.created(clientLegacyCreate("A", [alice.publicKey]), handle.publicKey);
    await client.waitValid(idOf(asset));
    const first = legacyTransfer("A", [{ tx: asset, cid: 0 }], [bob.publicKey], [alice]);
    const rival = legacyTransfer("B", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]);
    await client.created(first, handle.publicKey);
    await client.refused(rival, /^Invalid transaction \(DoubleSpend\): /);
    await client.waitValid(idOf(first));
    await client.refused(rival, /^Invalid transaction \(DoubleSpend\): /);
    const wrongId = { ...legacyTransfer("B", [{ tx: first, cid: 0 }], [carol.publicKey], [bob]), id: "cd".repeat(32) };
    await client.refused(wrongId, /^Invalid transaction \(InvalidHash\): /);
    const good = legacyTransfer("B", [{ tx: first, cid: 0 }], [carol.publicKey], [bob]);
    const forged = JSON.parse(JSON.stringify(good).replace(/"cf:4:(.)/, (_m, c: string) => `"cf:4:${c === "A" ? "B" : "A"}`)) as LegacyTx;
    await client.refused(forged, /^Invalid transaction \(InvalidSignature\): /);
    const missing = legacyTransfer("A", [{ tx: clientLegacyCreate("A", [alice.publicKey]), cid: 0 }], [bob.publicKey], [alice]);
    await client.refused(missing, /^Invalid transaction \(InputDoesNotExist\): /);
    const mixed = JSON.parse(writeJson(good as JsonObject).replace('"current_owners"', '"owners_before"')) as LegacyTx;
    await client.refused(mixed, /^Invalid transaction \(LegacyInvalid\): mixed transaction shape/);
    await client.refused(writeJson(create(alice)), /^Invalid transaction \(LegacyInvalid\): unknown transaction shape/);
    for (const tx of [rival, wrongId, forged, missing]) assert.equal(await client.status(idOf(tx)), null);
    // The good one still goes through: the refusals changed nothing.
    await client.created(good, handle.publicKey);
    await client.waitValid(idOf(good));
  });

  it("legacy and current transactions share blocks; /api/v1 and the v2.0 stream show current ones only, the legacy GET legacy ones only", async () => {
    const ws = new WebSocket(handle.streamsUrl);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const events: { height: number; transaction_id: string }[] = [];
    ws.on("message", (data: Buffer) => events.push(JSON.parse(data.toString("utf8")) as { height: number; transaction_id: string }));
    try {
      const v2 = create(carol);
      const [v2Answer, legacy] = await Promise.all([
        client.call("POST", "/api/v1/transactions?mode=commit", writeJson(v2)),
        client.created(clientLegacyCreate("B", [carol.publicKey]), handle.publicKey),
      ]);
      assert.equal(v2Answer.status, 202, v2Answer.body);
      await client.waitValid(idOf(legacy));
      const heights = JSON.parse((await client.call("GET", `/api/v1/blocks?transaction_id=${v2["id"] as string}`)).body) as number[];
      assert.equal(heights.length, 1);
      const block = JSON.parse((await client.call("GET", `/api/v1/blocks/${heights[0]}`)).body) as { transactions: JsonObject[] };
      assert.deepEqual(block.transactions.map((tx) => tx["id"]), [v2["id"]]);
      assert.equal((await client.call("GET", `/api/v1/transactions/${idOf(legacy)}`)).status, 404);
      assert.equal((await client.call("GET", `/api/v1/blocks?transaction_id=${idOf(legacy)}`)).body, "[]");
      assert.equal((await client.call("GET", `/transactions/${v2["id"] as string}`)).status, 404);
      assert.equal(await client.status(v2["id"] as string), null);
      // The stream told of the v2.0 transaction and of no legacy one. It tells of blocks in height
      // order, so once it has told of a transaction committed after the legacy one was valid, an
      // event for the legacy one would have come before it.
      const later = create(carol);
      const laterAnswer = await client.call("POST", "/api/v1/transactions?mode=commit", writeJson(later));
      assert.equal(laterAnswer.status, 202, laterAnswer.body);
      await waitFor("stream events for both v2.0 transactions", () => [v2, later].every((tx) => events.some((e) => e.transaction_id === tx["id"])), { timeoutMs: 60_000 });
      assert.ok(!events.some((e) => e.transaction_id === idOf(legacy)));
    } finally {
      ws.close();
    }
  });
});

describe("legacy variants with HTTP workers (server.workers = 2)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-legacy-workers-"));
  let handle: NodeHandle;
  let client: Client;

  before(async () => {
    handle = await start(dir, { "server.workers": "2" });
    client = new Client(`http://127.0.0.1:${handle.http.port}`);
  });

  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a CREATE re-made by the primary's key, backlog -> valid, a TRANSFER prepared in a worker, refusals", async () => {
    const asset = await client.created(clientLegacyCreate("A", [alice.publicKey]), handle.publicKey);
    assert.equal((prepareLegacy(asset) as { creator: string }).creator, handle.publicKey);
    assert.equal(await client.status(idOf(asset)), "backlog");
    await client.waitValid(idOf(asset));
    const spend = legacyTransfer("B", [{ tx: asset, cid: 0 }], [bob.publicKey], [alice]);
    await client.created(spend, handle.publicKey);
    await client.refused(legacyTransfer("A", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]), /DoubleSpend/);
    await client.refused("{}", /unknown transaction shape/);
    await client.waitValid(idOf(spend));
    assert.equal((await client.call("GET", `/transactions/${idOf(spend)}`)).body, writeJson(spend as JsonObject));
  });
});
