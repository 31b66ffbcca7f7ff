// Errors raised before a request reaches a route, over real sockets with raw bytes: every one is
// JSON in the documented shape (docs/compatibility.md #2), and the connection is closed where the
// framing cannot be trusted. A client that hangs up mid-upload is logged as such, never as our bug.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { clientErrorOf } from "../../../src/httpWire/clientErrors.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { rawExchange, type RawAnswer } from "./rawSocket.js";
import { startHttpStack, type HttpStack } from "./helpers.js";
import { waitFor } from "../../helpers/waitFor.js";

let http: HttpStack;
let app: FastifyInstance;
let port: number;
/** Every line the app logged, parsed. */
const logged: { level: number; msg: string }[] = [];

before(async () => {
  http = await startHttpStack();
  const logger = pino({ level: "debug" }, { write: (line: string) => logged.push(JSON.parse(line)) });
  app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, logger });
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

after(async () => {
  await app.close();
  await http.close();
});

function assertShape(answer: RawAnswer, status: number, message: RegExp): void {
  assert.equal(answer.status, status, answer.body);
  assert.equal(answer.headers.get("content-type"), "application/json");
  const body = JSON.parse(answer.body) as { message: unknown; status: unknown };
  assert.deepEqual(Object.keys(body), ["message", "status"]);
  assert.equal(body.status, status);
  assert.match(String(body.message), message);
}

const post = "POST /api/v1/transactions HTTP/1.1\r\nHost: x\r\n";
const unsafeFraming: [string, string, number, RegExp][] = [
  ["two different Content-Lengths", `${post}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400, /Content-Length/],
  ["the same Content-Length twice", `${post}Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}`, 400, /Content-Length/],
  ["Content-Length: -1", `${post}Content-Length: -1\r\n\r\n`, 400, /Content-Length/],
  ["Content-Length with Transfer-Encoding", `${post}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400, /Transfer-Encoding/],
  ["a bad chunk size", `${post}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, /chunk size/],
  ["a header without a colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400, /header/],
  ["a control character in a header", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n", 400, /header/],
  ["the HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, /HTTP\/2 is not served/],
  ["a bad method token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, /method/],
  ["a bad HTTP version", "GET / HTTP/9.1\r\nHost: x\r\n\r\n", 400, /version/],
  ["TLS bytes", "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001", 400, /Malformed/],
  ["a URL over 16 KiB", `GET /${"a".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, /larger than the limit of 16384 bytes/],
  ["a header over 16 KiB", `GET / HTTP/1.1\r\nHost: x\r\nX-A: ${"a".repeat(17_000)}\r\n\r\n`, 431, /16384 bytes/],
];

describe("errors before routing, over a raw socket", () => {
  for (const [what, bytes, status, message] of unsafeFraming) {
    test(`${what}: ${status} JSON, Connection: close, and the connection is closed`, { timeout: 10_000 }, async () => {
      const exchange = rawExchange(port, bytes);
      const answer = await exchange.answer;
      assertShape(answer, status, message);
      assert.equal(answer.headers.get("connection"), "close");
      await exchange.closed;
    });
  }

  test("an HTTP/1.1 request without Host: 400 JSON", { timeout: 10_000 }, async () => {
    const exchange = rawExchange(port, "GET / HTTP/1.1\r\n\r\n");
    assertShape(await exchange.answer, 400, /Host/);
    exchange.socket.destroy();
    // HTTP/1.0 needs none.
    const old = rawExchange(port, "GET / HTTP/1.0\r\n\r\n");
    assert.equal((await old.answer).status, 200);
    old.socket.destroy();
  });

  test("Expect: 999-bogus: 417 JSON; 100-continue still works", { timeout: 10_000 }, async () => {
    const exchange = rawExchange(port, "GET / HTTP/1.1\r\nHost: x\r\nExpect: 999-bogus\r\n\r\n");
    assertShape(await exchange.answer, 417, /Expect: 999-bogus/);
    exchange.socket.destroy();
    const body = "{}";
    const continued = rawExchange(port, `${post}Expect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    // `HTTP/1.1 100 Continue` comes first, without a body; the parser reads it as the answer.
    assert.equal((await continued.answer).status, 100);
    continued.socket.destroy();
  });

  test("none of these was logged as an error", () => {
    assert.deepEqual(logged.filter((line) => line.level >= 50), []);
  });
});

test("a request not received in time is 408 naming the limit; chunk extensions over the limit 413", () => {
  const timeout = clientErrorOf(Object.assign(new Error("timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }), { requestTimeoutMs: 1234 });
  assert.equal(timeout.status, 408);
  assert.equal(timeout.httpMessage, "The request was not received in full within 1234 ms");
  const extensions = clientErrorOf(Object.assign(new Error("x"), { code: "HPE_CHUNK_EXTENSIONS_OVERFLOW" }), { requestTimeoutMs: 1 });
  assert.equal(extensions.status, 413);
});

describe("a client that closes the connection mid-upload", () => {
  test("is logged at debug as a client that closed the connection, never at level 50", { timeout: 10_000 }, async () => {
    const before = logged.length;
    for (const framing of ["Content-Length: 1000\r\n", "Transfer-Encoding: chunked\r\n"]) {
      // `100 Continue` comes once the request is handed to the app; then part of the body, then
      // the client hangs up.
      const exchange = rawExchange(port, `${post}${framing}Expect: 100-continue\r\n\r\n`);
      assert.equal((await exchange.answer).status, 100);
      const part = '{"version": "2.0", ';
      exchange.socket.write(framing.startsWith("Content") ? part : `3e8\r\n${part}`);
      await new Promise((resolve) => setImmediate(resolve));
      exchange.socket.destroy();
      await exchange.closed;
    }
    await waitFor("two closed connections logged", () => logged.slice(before).filter((line) => line.msg === "client closed the connection").length >= 2);
    const lines = logged.slice(before);
    assert.deepEqual(lines.filter((line) => line.level >= 40), []);
    for (const line of lines) assert.equal(line.level, 20, line.msg);
  });
});
