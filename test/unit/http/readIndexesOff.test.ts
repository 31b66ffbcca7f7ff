// A node whose SQLite store writes no read indexes (database.read_indexes false): over HTTP its
// text searches and queries by field answer 409 ReadIndexesOff as the error body, and every other
// read and the POST answer as on any node.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { removeDir, startSoloStack, type SoloStack } from "../../helpers/soloNode.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { commit, expectJson, get } from "./helpers.js";

describe("a node without read indexes, over HTTP", () => {
  let stack: SoloStack;
  let app: FastifyInstance;
  let car: JsonObject;

  before(async () => {
    stack = await startSoloStack({}, { sqlite: { readIndexes: false } });
    app = await buildHttpApp({}, { broadcaster: stack.engine, store: stack.store });
    car = create(keypairOf("alice"), 1n, { kind: "car", serial: "S1" });
    await commit(app, car);
  });
  after(async () => {
    await app.close();
    await stack.close();
    removeDir(stack.dir);
  });

  test("searches and queries by field: 409 ReadIndexesOff, a JSON error body", async () => {
    for (const url of ["/api/v1/assets?search=car", "/api/v1/metadata?search=car", "/api/v1/assets?data.serial=S1", "/api/v1/assets?search=car&limit=1"]) {
      const response = await get(app, url);
      expectJson(response, 409);
      const body = JSON.parse(response.body) as { message: string; status: number };
      assert.equal(body.status, 409, url);
      assert.match(body.message, /database\.read_indexes is false/, url);
    }
  });

  test("the transaction itself is served", async () => {
    const response = await get(app, `/api/v1/transactions/${car["id"] as string}`);
    expectJson(response, 200);
  });
});
