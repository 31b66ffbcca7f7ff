// The POST lane (src/http/postLane.ts) answers POST /api/v1/transactions without Fastify. Here
// every kind of answer is asked of both, on the same stack: the lane (the request handed to the
// app's server, as a socket's is) and Fastify's route (`app.inject`, which skips the server). The
// status, the body and every header but the date must be the same.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { writeJson } from "../../../src/json/writeJson.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { injectThroughServer, startHttpStack, type HttpStack } from "./helpers.js";

/** What must match: status, body, and the headers, without those that name a moment. */
function answerOf(response: LightMyRequestResponse): { status: number; body: string; headers: Record<string, unknown> } {
  const { date: _date, ...headers } = response.headers;
  return { status: response.statusCode, body: response.body, headers };
}

async function bothWays(app: FastifyInstance, options: InjectOptions): Promise<void> {
  const lane = answerOf(await injectThroughServer(app, options));
  const fastify = answerOf(await app.inject(options));
  assert.deepEqual(lane, fastify, `${options.method} ${options.url}`);
}

describe("the POST lane answers as Fastify's route does", () => {
  let http: HttpStack;
  let small: FastifyInstance;

  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 50 });
    small = await http.appWith({ bodyBytesMax: 200 });
  });
  after(() => http.close());

  test("the lane answers the route's requests, and only those; Fastify the rest", async () => {
    const app = await http.appWith({});
    let seenByFastify = 0;
    app.addHook("onRequest", (_request, _reply, done) => {
      seenByFastify++;
      done();
    });
    for (const url of ["/api/v1/transactions", "/api/v1/transactions/", "/api/v1/transactions?mode=sync", "/api/v1/transactions#x"]) {
      const answer = await injectThroughServer(app, { method: "POST", url, payload: "{" });
      assert.equal(answer.statusCode, 400, url);
    }
    assert.equal(seenByFastify, 0, "the lane's requests never reach Fastify");
    for (const [method, url] of [["GET", "/api/v1/transactions?asset_id=x"], ["POST", "/api/v1/transactions/x"], ["POST", "/api/v1/transactionsx"], ["PUT", "/api/v1/transactions"]] as const) {
      await injectThroughServer(app, { method, url, payload: "{" });
    }
    assert.equal(seenByFastify, 4, "every other request is Fastify's");
  });

  for (const [name, options] of [
    ["a body that is not JSON", { payload: "{" }],
    ["no body", {}],
    ["a JSON body that is no transaction", { payload: "[1, 2]" }],
    ["an unknown mode", { url: "/api/v1/transactions?mode=later", payload: "{}" }],
    ["a mode given twice", { url: "/api/v1/transactions?mode=sync&mode=async", payload: "{}" }],
    ["an empty mode", { url: "/api/v1/transactions?mode=", payload: "{}" }],
    ["another parameter given twice", { url: "/api/v1/transactions?x=1&x=2", payload: "{}" }],
    ["a trailing slash", { url: "/api/v1/transactions/?mode=async", payload: "{" }],
    ["the query after a #", { url: "/api/v1/transactions#mode=bad", payload: "{" }],
    ["an Origin", { payload: "{", headers: { origin: "https://explorer.example" } }],
    ["a sane X-Request-Id", { payload: "{", headers: { "x-request-id": "client-1:2" } }],
    ["a Content-Type that is not JSON", { payload: "{", headers: { "content-type": "text/plain;;" } }],
    ["a body shorter than its Content-Length says", { payload: "{}", headers: { "content-length": "5" } }],
  ] as const) {
    test(`${name}: the same answer`, async () => {
      const given = options as { url?: string; payload?: string; headers?: Record<string, string> };
      await bothWays(http.app, {
        method: "POST",
        url: given.url ?? "/api/v1/transactions",
        ...(given.payload === undefined ? {} : { payload: given.payload }),
        // A made id differs between any two requests; one given is echoed by both.
        headers: { "x-request-id": "same-id", ...given.headers },
      });
    });
  }

  test("a body over the limit: the same 413, and the connection closed", async () => {
    const options: InjectOptions = { method: "POST", url: "/api/v1/transactions", payload: "x".repeat(300), headers: { "x-request-id": "r" } };
    await bothWays(small, options);
    const answer = await injectThroughServer(small, options);
    assert.equal(answer.statusCode, 413);
    assert.equal(answer.headers["connection"], "close");
  });

  test("a duplicate of a committed transaction: the same 400", async () => {
    const tx = create(keypairOf("alice"), 1n, { lane: "duplicate" });
    const commit = await injectThroughServer(http.app, { method: "POST", url: "/api/v1/transactions?mode=commit", payload: writeJson(tx) });
    assert.equal(commit.statusCode, 202);
    await bothWays(http.app, { method: "POST", url: "/api/v1/transactions?mode=async", payload: writeJson(tx), headers: { "x-request-id": "dup" } });
  });

  for (const mode of ["async", "sync", "commit"]) {
    test(`a valid CREATE, mode ${mode}: the same 202 and headers, each with its own transaction`, async () => {
      const answers = [];
      for (const send of [injectThroughServer, (app: FastifyInstance, options: InjectOptions) => app.inject(options)]) {
        const tx = create(keypairOf("alice"), 1n, { lane: mode, way: answers.length });
        const body = writeJson(tx);
        const answer = answerOf(await send(http.app, { method: "POST", url: `/api/v1/transactions?mode=${mode}`, payload: body, headers: { "x-request-id": "v" } }));
        assert.equal(answer.body, body);
        answers.push({ ...answer, body: "" });
      }
      assert.deepEqual(answers[0], answers[1]);
    });
  }

  test("over a real socket: an HTTP/1.1 POST without Host is refused in the catalog's shape", async () => {
    await http.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (http.app.server.address() as { port: number }).port;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end("POST /api/v1/transactions HTTP/1.1\r\nContent-Length: 1\r\nConnection: close\r\n\r\n{");
      });
      let received = "";
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
      socket.on("end", () => resolve(received));
      socket.on("error", reject);
    });
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /\r\ncontent-type: application\/json\r\n/i);
    assert.ok(text.endsWith(JSON.stringify({ message: "An HTTP/1.1 request must carry a Host header", status: 400 })), text);
  });
});
