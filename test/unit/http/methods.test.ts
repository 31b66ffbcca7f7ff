// Every method Node's parser takes, over a real socket (the parser is the subject): on a known
// path, 405 with `Allow` naming the path's methods; on an unknown one, 404 (issue 36 #13).
import assert from "node:assert/strict";
import { METHODS } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { methodNotAllowedMessage, unknownPathMessage } from "../../../src/httpWire/messages.js";
import { rawExchange, type RawAnswer } from "./rawSocket.js";
import { errorBody, startHttpStack, type HttpStack } from "./helpers.js";

let http: HttpStack;
let app: FastifyInstance;
let port: number;

before(async () => {
  http = await startHttpStack();
  app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store });
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

after(async () => {
  await app.close();
  await http.close();
});

function send(method: string, path: string, body = ""): Promise<RawAnswer> {
  const head = `${method} ${path} HTTP/1.1\r\nHost: node.example\r\nConnection: close\r\n`;
  const framing = body === "" ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return rawExchange(port, `${head}${framing}\r\n${body}`).answer;
}

// CONNECT never reaches a route: Node gives it to the server's `connect` event (none here).
const methods = METHODS.filter((method) => method !== "CONNECT");

const paths: [string, string][] = [
  // The POST lane's path: the lane takes POST only, Fastify the rest.
  ["/api/v1/transactions", "GET, POST, HEAD, OPTIONS"],
  ["/api/v1/blocks/1", "GET, HEAD, OPTIONS"],
  ["/api/v1/docs/", "GET, HEAD, OPTIONS"],
  ["/", "GET, HEAD, OPTIONS"],
];

describe("methods", () => {
  for (const [path, allow] of paths) {
    test(`${path}: every method it does not allow is 405 with Allow: ${allow}`, async () => {
      for (const method of methods.filter((each) => !allow.split(", ").includes(each))) {
        for (const body of ["", '{"a":1}']) {
          const answer = await send(method, path, body);
          assert.equal(answer.status, 405, `${method} ${path}: ${answer.body}`);
          assert.equal(answer.headers.get("allow"), allow, method);
          assert.equal(answer.headers.get("content-type"), "application/json");
          assert.equal(answer.body, errorBody(405, methodNotAllowedMessage), method);
        }
      }
    });
  }

  test("an unknown path stays 404 whatever the method", async () => {
    for (const method of methods.filter((each) => each !== "HEAD")) {
      const answer = await send(method, "/api/v1/nothing", method === "QUERY" ? '{"a":1}' : "");
      assert.equal(answer.status, 404, `${method}: ${answer.body}`);
      assert.equal(answer.body, errorBody(404, unknownPathMessage), method);
    }
  });
});
