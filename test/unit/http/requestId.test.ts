// Request ids (issue #13): a sane X-Request-Id is kept, anything else is replaced by a made one,
// and the answer carries it, errors included. Driven with app.inject() on a real stack.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { requestIdCharsMax } from "../../../src/http/requestId.js";
import { get, startHttpStack, type HttpStack } from "./helpers.js";

const madeId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("request ids", () => {
  let http: HttpStack;

  before(async () => {
    http = await startHttpStack();
  });

  after(async () => {
    await http.close();
  });

  it("honours a sane X-Request-Id and echoes it", async () => {
    for (const id of ["abc", "4bf92f3577b34da6a3ce929d0e0e4736", "Root=1-5759e988-bd862e3fe1be46a994272793", "a".repeat(requestIdCharsMax)]) {
      const answer = await get(http.app, "/api/v1/", { headers: { "x-request-id": id } });
      assert.equal(answer.headers["x-request-id"], id);
    }
  });

  it("makes a new id for a request without one, a different one each time", async () => {
    const first = (await get(http.app, "/api/v1/")).headers["x-request-id"];
    const second = (await get(http.app, "/api/v1/")).headers["x-request-id"];
    assert.match(String(first), madeId);
    assert.match(String(second), madeId);
    assert.notEqual(first, second);
  });

  it("replaces one that is too long or holds other characters, rather than refusing the request", async () => {
    for (const id of ["a".repeat(requestIdCharsMax + 1), "two words", 'a"b', "a;b", "<x>", "a\tb", "é"]) {
      const answer = await get(http.app, "/api/v1/", { headers: { "x-request-id": id } });
      assert.equal(answer.statusCode, 200);
      assert.match(String(answer.headers["x-request-id"]), madeId, JSON.stringify(id));
    }
  });

  it("is on error answers too: 404, 405, and an error raised before routing", async () => {
    for (const [method, url] of [["GET", "/nowhere"], ["DELETE", "/api/v1/transactions"], ["GET", "/api/v1/transactions/%ZZ"]] as const) {
      const answer = await http.app.inject({ method, url, headers: { "x-request-id": "err-1" } });
      assert.ok(answer.statusCode >= 400, `${method} ${url}: ${answer.statusCode}`);
      assert.equal(answer.headers["x-request-id"], "err-1", `${method} ${url}`);
    }
  });
});
