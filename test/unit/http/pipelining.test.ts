// A client that pipelines requests and does not read the answers (issue 11: 10 connections x
// 300 GETs of 2.1 MB took the node from 269 MB to 3.5 GB): over real sockets, the node builds
// only as many answers ahead of what the client reads as `pipelinedRequestsMax` allows, serves
// other clients meanwhile, and still answers every request, in order, once the client reads.
// No timing is asserted: the figures (RSS, latency of other clients) are in bench/.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connect, type AddressInfo, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { connectionWaitingRequestsMax } from "../../../src/http/limits.js";
import { startHttpStack, type HttpStack } from "./helpers.js";
import { parseAnswer, rawExchange } from "./rawSocket.js";
import { waitFor, waitForStill } from "../../helpers/waitFor.js";

const pipelinedRequestsMax = 2;
const answerBytes = 1024 * 1024;
const requests = 64;

let http: HttpStack;
let app: FastifyInstance;
let port: number;
/** Answers of `/big` built, and those Node has handed to the kernel (their 'finish'). */
let built = 0;
let flushed = 0;
const logged: { level: number; msg: string }[] = [];

before(async () => {
  http = await startHttpStack();
  const logger = pino({ level: "debug" }, { write: (line: string) => logged.push(JSON.parse(line)) });
  const deps = { broadcaster: http.stack.engine, store: http.stack.store, logger };
  app = await buildHttpApp({ pipelinedRequestsMax }, deps);
  // A large answer, numbered by its request, built whole as the store's reads build theirs.
  app.get("/big/:n", async (request, reply) => {
    built++;
    reply.raw.once("finish", () => flushed++);
    const body = Buffer.alloc(answerBytes, 0x20);
    body.write((request.params as { n: string }).n);
    return reply.header("content-type", "text/plain").send(body);
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

after(async () => {
  await app.close();
  await http.close();
});

/** A connection that has written `count` pipelined GETs of `/big` and reads nothing. */
async function pipeline(count: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.pause();
  socket.on("error", () => {});
  const lines = Array.from({ length: count }, (_, n) => `GET /big/${n} HTTP/1.1\r\nHost: x\r\n\r\n`);
  socket.write(lines.join(""));
  return socket;
}

/** Another client's GET, answered by the node: a round of its event loop. */
async function otherClient(): Promise<void> {
  const other = rawExchange(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  assert.equal((await other.answer).status, 200);
  other.socket.destroy();
}

/**
 * Lets the node do all it will do without the client reading: the answers it built and flushed
 * hold still while it serves another client twice. A node that built every answer would go on
 * building them in those rounds, however slow the machine.
 */
function settle(): Promise<string> {
  return waitForStill("the answers built and flushed", () => `${built}/${flushed}`, otherClient);
}

/** Reads `count` answers from `socket`, returning the number each body starts with. */
function readAnswers(socket: Socket, count: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const numbers: number[] = [];
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const answer = parseAnswer(received);
        if (answer === null) break;
        assert.equal(answer.status, 200);
        numbers.push(Number.parseInt(answer.body.slice(0, 12), 10));
        const headBytes = received.indexOf("\r\n\r\n") + 4;
        received = received.subarray(headBytes + Number(answer.headers.get("content-length")));
      }
      if (numbers.length === count) resolve(numbers);
    });
    socket.once("close", () => reject(new Error(`closed after ${numbers.length} answers`)));
    socket.resume();
  });
}

describe("a client that pipelines requests and does not read the answers", () => {
  test("the node holds at most pipelinedRequestsMax answers it built and could not send", async () => {
    const socket = await pipeline(requests);
    await waitFor(`${pipelinedRequestsMax} answers built`, () => built >= pipelinedRequestsMax);
    await settle();
    // What the kernel's socket buffers took was sent; what is left is in the node's memory.
    const held = built - flushed;
    assert.ok(held <= pipelinedRequestsMax, `${held} answers of ${answerBytes} bytes held (built ${built})`);
    assert.ok(built < requests, `all ${built} answers were built without a reader`);

    // Another client is served meanwhile.
    await otherClient();

    // Once the client reads, every answer comes, in the order asked.
    const numbers = await readAnswers(socket, requests);
    assert.deepEqual(numbers, Array.from({ length: requests }, (_, n) => n));
    socket.destroy();
  });

  test(`a connection that has more than ${connectionWaitingRequestsMax} requests waiting is closed`, { timeout: 20_000 }, async () => {
    const socket = await pipeline(connectionWaitingRequestsMax + pipelinedRequestsMax + 10);
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.resume();
    await closed;
    assert.deepEqual(logged.filter((line) => line.level >= 40), []);
  });
});
