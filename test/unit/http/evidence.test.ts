// GET /api/v1/evidence over a real SQLite store whose blocks carry evidence: the answer's shape
// (held to the OpenAPI document), commit order, `height`, paging with Link and cursor like every
// list, and the refusals of the error catalog.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { assertDescribed } from "../../helpers/openapiConformance.js";
import { evidenceOf } from "../store/evidenceConformance.js";
import { block } from "../store/fixtures.js";
import { errorBody, expectJson, get } from "./helpers.js";

const json = (height: number, index: number, type = "duplicate_vote") => ({
  height,
  index,
  type,
  validator: { address: "0A1B2C3D4E5F60718293A4B5C6D7E8F901234567", power: 10 },
  infraction_height: height - 1,
  time: "2026-11-27T16:04:05.123456789Z",
  total_voting_power: 40,
});

describe("GET /api/v1/evidence", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-evidence-"));
  let store: SqliteStore;
  let app: FastifyInstance;

  before(async () => {
    store = SqliteStore.open({ path: join(dir, "store.sqlite") });
    await store.commitBlock(block(1, []));
    await store.commitBlock({ ...block(2, []), evidence: [evidenceOf(2, 0), evidenceOf(2, 1, { type: "light_client_attack" })] });
    await store.commitBlock({ ...block(3, []), evidence: [evidenceOf(3, 0)] });
    const broadcaster = { broadcast: () => Promise.reject(new Error("not in this test")) };
    app = await buildHttpApp({ listMax: 0 }, { broadcaster, store });
  });
  after(async () => {
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("lists every evidence in commit order, as the document describes it; with height, that block's", async () => {
    const all = await get(app, "/api/v1/evidence");
    expectJson(all, 200);
    assert.deepEqual(JSON.parse(all.body), [json(2, 0), json(2, 1, "light_client_attack"), json(3, 0)]);
    assertDescribed("GET /api/v1/evidence", { status: 200, contentType: "application/json", body: all.body });
    assert.deepEqual(JSON.parse((await get(app, "/api/v1/evidence?height=3")).body), [json(3, 0)]);
    assert.equal((await get(app, "/api/v1/evidence?height=1")).body, "[]");
    assert.equal((await get(app, "/api/v1/evidence?height=99")).body, "[]");
  });

  test("pages like every list: limit, a Link to the next page, a cursor of its own query only", async () => {
    const first = await get(app, "/api/v1/evidence?limit=2");
    assert.deepEqual(JSON.parse(first.body), [json(2, 0), json(2, 1, "light_client_attack")]);
    const link = String(first.headers["link"]);
    const next = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    assert.ok(next?.startsWith("/api/v1/evidence?limit=2&cursor="), link);
    const second = await get(app, next!);
    assert.deepEqual(JSON.parse(second.body), [json(3, 0)]);
    assert.equal(second.headers["link"], undefined);
    const cursor = new URL(next!, "http://x").searchParams.get("cursor")!;
    const other = await get(app, `/api/v1/evidence?height=2&cursor=${cursor}`);
    expectJson(other, 400, errorBody(400, "cursor: not a cursor this node gave for this query"));
  });

  test("refuses a bad height, an unknown parameter, a repeated one, with the catalog's 400", async () => {
    for (const url of ["?height=0", "?height=x", "?height=9007199254740992", "?height=1&height=2", "?heights=1", "?limit=-1"]) {
      const answer = await get(app, `/api/v1/evidence${url}`);
      expectJson(answer, 400);
      assertDescribed("GET /api/v1/evidence", { status: 400, contentType: "application/json", body: answer.body });
    }
    expectJson(await get(app, "/api/v1/evidence?height=0"), 400, errorBody(400, "height: A block height is 1 or more"));
  });
});
