// The legacy routes (issue #6, docs/compatibility.md #13-#16) on a real stack (SQLite file, ledger,
// solo engine whose validator is the node key, LegacyService with a fixed clock and uuids), driven
// with `app.inject()`: POST of both variants (a CREATE re-made and signed by the node), GET,
// status backlog -> valid -> (invalid), every rejection as a 400 that changes nothing, and the
// separation from /api/v1.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { ManualClock } from "../../helpers/manualClock.js";
import { SoloEngine } from "../../../src/engine/solo/soloEngine.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { legacyDoor } from "../../../src/ledger/doors.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { prepareLegacy } from "../../../src/legacy/prepareLegacy.js";
import type { LegacyTx, LegacyVariant } from "../../../src/legacy/types.js";
import { LegacyService } from "../../../src/node/legacyService.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { clientLegacyCreate, hexKey, idOf, legacyBytes, legacyTransfer } from "../../helpers/legacyFactory.js";
import { removeDir } from "../../helpers/soloNode.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { errorBody, expectJson } from "./helpers.js";

const node = keypairOf("legacy http node");
const [alice, bob, carol] = ["alice", "bob", "carol"].map(keypairOf) as [
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
];
const clockMs = 1_700_000_123_456;
const notFound = errorBody(404, "Not found");
const names = (variant: LegacyVariant) =>
  variant === "A" ? { before: "owners_before", after: "owners_after" } : { before: "current_owners", after: "new_owners" };

interface Stack {
  readonly dir: string;
  readonly store: SqliteStore;
  readonly pool: PreparePool;
  readonly ledger: LedgerApp;
  readonly engine: SoloEngine;
  readonly app: FastifyInstance;
  readonly uuids: string[];
  /** The engine's: a block is cut only when a test advances it past the interval (`cutBlock`). */
  readonly clock: ManualClock;
}

/** The solo engine's block interval here (on the test's manual clock). */
const blockIntervalMs = 250;

async function startStack(): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-legacy-http-"));
  const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
  const ledger = await LedgerApp.open({}, { store, pool });
  // Blocks are cut only when a test moves the clock (`cutBlock`): a status read after a POST sees the transaction pending.
  const validator = { publicKey: hexKey(node.publicKey), power: 10 };
  const clock = new ManualClock();
  const engine = await SoloEngine.start({ blockIntervalMs }, { ledger, validator, clock });
  const uuids: string[] = [];
  const uuid = () => {
    const made = `11111111-2222-4333-8444-${String(uuids.length).padStart(12, "0")}`;
    uuids.push(made);
    return made;
  };
  const legacy = new LegacyService({ engine, ledger, store, signer: node, now: () => clockMs, uuid });
  const app = await buildHttpApp({}, { broadcaster: engine, store, legacy });
  return { dir, store, pool, ledger, engine, app, uuids, clock };
}

/** What a client posts to get an asset: a CREATE listing its owners, signed by anyone. */
function postLegacy(app: FastifyInstance, body: string | LegacyTx | JsonObject, url = "/transactions"): Promise<LightMyRequestResponse> {
  const payload = typeof body === "string" ? body : writeJson(body as JsonObject);
  // Content-Type is ignored, as `get_json(force=True)` did.
  return app.inject({ method: "POST", url, payload, headers: { "content-type": "text/plain" } });
}

const get = (app: FastifyInstance, url: string) => app.inject({ method: "GET", url });

function committed(stack: Stack, id: string): Promise<number> {
  return new Promise((resolve) => {
    stack.ledger.onCommitted((block) => {
      if (block.committed.some((tx) => tx.id === id)) resolve(block.height);
    });
  });
}

/** POSTs, expects 201 with `assignee` first, returns the stored transaction (without it). */
async function posted201(stack: Stack, body: LegacyTx | string, url?: string): Promise<LegacyTx> {
  const response = await postLegacy(stack.app, body, url);
  expectJson(response, 201);
  assert.ok(response.body.startsWith(`{"assignee":"${node.publicKey}","id":"`), response.body);
  const { assignee, ...stored } = JSON.parse(response.body) as LegacyTx;
  assert.equal(assignee, node.publicKey);
  return stored;
}

/** POSTs and waits for the block: the stored transaction. */
async function commitLegacy(stack: Stack, body: LegacyTx): Promise<LegacyTx> {
  const stored = await posted201(stack, body);
  const done = committed(stack, idOf(stored));
  await cutBlock(stack);
  await done;
  return stored;
}

/** Moves the engine's clock past its block interval: what is pending goes into a block. */
function cutBlock(stack: Stack): Promise<void> {
  return stack.clock.advance(blockIntervalMs);
}

describe("legacy routes", () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack();
  });

  after(async () => {
    await stack.app.close();
    await stack.engine.stop();
    await stack.pool.close();
    await stack.store.close();
    removeDir(stack.dir);
  });

  for (const variant of ["A", "B"] as const) {
    it(`variant ${variant}: a CREATE is re-made and signed by the node; status backlog, then valid; GET returns it`, async () => {
      const client = clientLegacyCreate(variant, [alice.publicKey], { serial: variant });
      const before = stack.uuids.length;
      const done = new Promise<void>((resolve) => stack.ledger.onCommitted(() => resolve()));
      const stored = await posted201(stack, client, "/transactions/");
      const id = idOf(stored);
      assert.notEqual(id, idOf(client));
      // The node's remake: owners_before = the node, the owners = the client's, the payload kept,
      // the node's clock (whole seconds) and a new uuid (docs/legacy-variants.md §1.6).
      const transaction = stored["transaction"] as JsonObject;
      const fulfillment = (transaction["fulfillments"] as JsonObject[])[0]!;
      const condition = (transaction["conditions"] as JsonObject[])[0]!;
      assert.deepEqual(fulfillment[names(variant).before], [node.publicKey]);
      assert.deepEqual(condition[names(variant).after], [alice.publicKey]);
      assert.deepEqual(transaction["data"], { payload: { serial: variant }, uuid: stack.uuids[before] });
      assert.equal(transaction["timestamp"], String(Math.round(clockMs / 1000)));
      const check = prepareLegacy(stored);
      assert.ok(!("code" in check), JSON.stringify(check));
      assert.equal(check.creator, node.publicKey);
      assert.equal(check.variant, variant);
      // Accepted, not in a block yet.
      expectJson(await get(stack.app, `/transactions/${id}/status`), 200, '{"status":"backlog"}');
      expectJson(await get(stack.app, `/transactions/${id}`), 404, notFound);
      await cutBlock(stack);
      await done;
      expectJson(await get(stack.app, `/transactions/${id}/status/`), 200, '{"status":"valid"}');
      const read = await get(stack.app, `/transactions/${id}/`);
      expectJson(read, 200, writeJson(stored as JsonObject));
    });
  }

  it("a B TRANSFER of a B CREATE and an A TRANSFER of an A CREATE commit; GET returns each in its own shape", async () => {
    for (const variant of ["A", "B"] as const) {
      const asset = await commitLegacy(stack, clientLegacyCreate(variant, [alice.publicKey]));
      const spend = legacyTransfer(variant, [{ tx: asset, cid: 0 }], [bob.publicKey], [alice]);
      const stored = await commitLegacy(stack, spend);
      assert.equal(idOf(stored), idOf(spend), "a TRANSFER is stored as posted");
      const read = await get(stack.app, `/transactions/${idOf(spend)}`);
      expectJson(read, 200, writeJson(spend as JsonObject));
      assert.equal("version" in (JSON.parse(read.body) as JsonObject), variant === "B");
    }
  });

  it("threshold in both variants: several owners get an n-of-n condition, spent when all sign", async () => {
    for (const variant of ["A", "B"] as const) {
      const asset = await commitLegacy(stack, clientLegacyCreate(variant, [alice.publicKey, bob.publicKey]));
      const details = ((asset["transaction"] as JsonObject)["conditions"] as JsonObject[])[0]!["condition"] as JsonObject;
      assert.equal((details["details"] as JsonObject)["threshold"], 2);
      assert.match(details["uri"] as string, /^cc:2:29:/);
      const partial = legacyTransfer(variant, [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]);
      const refused = await postLegacy(stack.app, partial);
      expectJson(refused, 400);
      assert.match(refused.body, /^\{"message":"Invalid transaction \(InvalidSignature\): /);
      await commitLegacy(stack, legacyTransfer(variant, [{ tx: asset, cid: 0 }], [carol.publicKey], [alice, bob]));
    }
  });

  it("rejections are 400 JSON errors and change nothing", async () => {
    const asset = await commitLegacy(stack, clientLegacyCreate("A", [alice.publicKey]));
    const pendingSpend = legacyTransfer("A", [{ tx: asset, cid: 0 }], [bob.publicKey], [alice]);
    const pendingDone = committed(stack, idOf(pendingSpend));
    // The spend stays pending through every case below: no block is cut until they are done.
    await posted201(stack, pendingSpend);
    const ghost = clientLegacyCreate("B", [alice.publicKey]);
    const signed = legacyTransfer("B", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]);
    const badSignature = JSON.parse(
      JSON.stringify(signed).replace(/"cf:4:(.)/, (_m, c: string) => `"cf:4:${c === "A" ? "B" : "A"}`),
    ) as LegacyTx;
    const hybrid = readFileSync(new URL("../legacy/examples/legacy-variantA-create-post-response-hybrid.json", import.meta.url), "utf8");
    const cases: [string, string | LegacyTx, RegExp][] = [
      ["a wrong id", { ...legacyTransfer("A", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]), id: "ab".repeat(32) }, /^Invalid transaction \(InvalidHash\): /],
      ["a bad signature", badSignature, /^Invalid transaction \(InvalidSignature\): /],
      ["a double spend across variants, against a pending spend", signed, /^Invalid transaction \(DoubleSpend\): input `[0-9a-f]{64}` \(cid 0\) was already spent$/],
      ["a missing input", legacyTransfer("B", [{ tx: ghost, cid: 0 }], [bob.publicKey], [alice]), /^Invalid transaction \(InputDoesNotExist\): /],
      ["a mixed shape", hybrid, /^Invalid transaction \(LegacyInvalid\): mixed transaction shape/],
      ["an unknown shape (a v2.0 transaction)", writeJson(create(alice)), /^Invalid transaction \(LegacyInvalid\): unknown transaction shape/],
      ["an empty object", "{}", /^Invalid transaction \(LegacyInvalid\): unknown transaction shape/],
      ["not JSON", "{not json", /JSON/],
      // issue 36 #1: ids that are objects or lists, on a CREATE and a TRANSFER of each variant.
      ...(["{}", '{"a":1}', "[{}]"] as const).flatMap((id) =>
        [clientLegacyCreate("B", [alice.publicKey]), legacyTransfer("A", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice])].map(
          (tx): [string, string, RegExp] => [`an id ${id}`, writeJson(tx as JsonObject).replace(/"id":"[0-9a-f]{64}"/, `"id":${id}`), /^Invalid transaction \(LegacyInvalid\): id must be a string$/],
        ),
      ),
      ["the same transaction again while pending", pendingSpend, /^Transaction `[0-9a-f]{64}` is already pending$/],
    ];
    // Blocks committed meanwhile: none, since the clock does not move.
    const blocks: string[][] = [];
    stack.ledger.onCommitted((b) => blocks.push(b.committed.map((tx) => tx.id)));
    for (const [what, body, message] of cases) {
      const pendingBefore = stack.ledger.pendingCount;
      const response = await postLegacy(stack.app, body);
      expectJson(response, 400);
      const error = JSON.parse(response.body) as { message: string; status: number };
      assert.equal(error.status, 400, what);
      assert.match(error.message, message, what);
      assert.deepEqual(Object.keys(error), ["message", "status"]);
      // Nothing admitted, nothing recorded.
      assert.ok(stack.ledger.pendingCount <= pendingBefore, `${what} joined the pending pool`);
      if (typeof body !== "string" && body !== pendingSpend) {
        assert.equal(stack.ledger.isPending(idOf(body), legacyDoor), false, what);
        assert.equal(await stack.store.getLegacyRecord(idOf(body)), null, what);
      }
    }
    assert.deepEqual(blocks, [], "no block before the clock moves");
    await cutBlock(stack);
    await pendingDone;
    assert.deepEqual(blocks.flat(), [idOf(pendingSpend)]);
    // Committed, the other spend is still a DoubleSpend, and the refused ids stay unknown.
    const late = await postLegacy(stack.app, signed);
    expectJson(late, 400);
    assert.match(late.body, /DoubleSpend/);
    expectJson(await get(stack.app, `/transactions/${idOf(signed)}/status`), 404, notFound);
  });

  it("a legacy transaction its block refused has status invalid, and GET answers 404", async () => {
    const asset = await commitLegacy(stack, clientLegacyCreate("B", [alice.publicKey]));
    const first = legacyTransfer("A", [{ tx: asset, cid: 0 }], [bob.publicKey], [alice]);
    const second = legacyTransfer("B", [{ tx: asset, cid: 0 }], [carol.publicKey], [alice]);
    // Both ordered in one block, as another proposer's block could (CometBFT): the engine is idle.
    assert.equal(stack.ledger.pendingCount, 0);
    const height = stack.ledger.info().height + 1;
    const finalized = await stack.ledger.finalizeBlock(height, [legacyBytes(first), legacyBytes(second)]);
    await stack.ledger.commit();
    assert.deepEqual(finalized.results.map((r) => r?.code ?? null), [null, "DoubleSpend"]);
    expectJson(await get(stack.app, `/transactions/${idOf(second)}/status`), 200, '{"status":"invalid"}');
    expectJson(await get(stack.app, `/transactions/${idOf(second)}`), 404, notFound);
    expectJson(await get(stack.app, `/transactions/${idOf(first)}/status`), 200, '{"status":"valid"}');
  });

  it("legacy and current transactions stay apart: /api/v1 never shows a legacy one, nor the reverse", async () => {
    const v2 = create(carol);
    const blockDone = new Promise<number>((resolve) => stack.ledger.onCommitted((b) => b.txs.length > 0 && resolve(b.height)));
    const [v2Answer, legacy] = await Promise.all([
      stack.app.inject({ method: "POST", url: "/api/v1/transactions?mode=sync", payload: bytesOf(v2) }),
      posted201(stack, clientLegacyCreate("A", [carol.publicKey])),
    ]);
    expectJson(v2Answer, 202);
    await cutBlock(stack);
    const height = await blockDone;
    // Posted before the clock moves, they share the block (one queue, arrival order).
    const legacyHeight = (await stack.store.getLegacyRecord(idOf(legacy)))?.height;
    const block = JSON.parse((await get(stack.app, `/api/v1/blocks/${height}`)).body) as { transactions: JsonObject[] };
    assert.deepEqual(block.transactions.map((tx) => tx["id"]), [v2["id"]]);
    assert.equal(legacyHeight, height, "both in one block");
    expectJson(await get(stack.app, `/api/v1/transactions/${idOf(legacy)}`), 404);
    expectJson(await get(stack.app, `/api/v1/blocks?transaction_id=${idOf(legacy)}`), 200, "[]");
    expectJson(await get(stack.app, `/transactions/${v2["id"] as string}`), 404, notFound);
    expectJson(await get(stack.app, `/transactions/${v2["id"] as string}/status`), 404, notFound);
    // A legacy body posted to /api/v1 gets the v2.0 answer it always got.
    const misrouted = await stack.app.inject({ method: "POST", url: "/api/v1/transactions", payload: legacyBytes(clientLegacyCreate("B", [bob.publicKey])) });
    expectJson(misrouted, 400);
    assert.match(misrouted.body, /Invalid transaction \(InvalidHash\)/);
  });

  it("unknown or malformed ids are 404; other methods are 405", async () => {
    for (const url of [`/transactions/${"0".repeat(64)}`, `/transactions/${"0".repeat(64)}/status`, "/transactions/xyz", "/transactions/xyz/status", `/transactions/${"A".repeat(64)}`]) {
      expectJson(await get(stack.app, url), 404, notFound);
    }
    const wrong = await stack.app.inject({ method: "DELETE", url: "/transactions" });
    expectJson(wrong, 405);
    assert.equal(wrong.headers["allow"], "POST, OPTIONS");
  });

  it("a repeated query parameter is 400 naming it, on the legacy paths too", async () => {
    const message = (name: string) => JSON.stringify({ message: `${name}: given more than once; give each parameter once`, status: 400 });
    expectJson(await get(stack.app, `/transactions/${"0".repeat(64)}?x=1&x=2`), 400, message("x"));
    expectJson(await postLegacy(stack.app, "{}", "/transactions?mode=a&mode=b"), 400, message("mode"));
  });
});
