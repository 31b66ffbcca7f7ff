import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Request, Response } from "cosmjs-types/tendermint/abci/types";
import { encodeUvarint } from "../../../src/engine/cometbft/abciCodec.js";
import { AbciServer, type AbciConnection, type AbciHandler, type AbciServerOptions } from "../../../src/engine/cometbft/abciServer.js";
import { AbciTestClient } from "./abciTestClient.js";
import { sleepOn } from "../../../src/clock/clock.js";
import { ManualClock } from "../../helpers/manualClock.js";
import { waitFor } from "../../helpers/waitFor.js";

const servers: AbciServer[] = [];
const clients: AbciTestClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

const options: AbciServerOptions = {
  listen: { host: "127.0.0.1", port: 0 },
  messageBytesMax: 1_000,
  requestsInFlightMax: 100,
  writeBufferBytesMax: 65_536,
};

/**
 * A handler that logs when each request starts and ends; CheckTx waits the ms in its first tx
 * byte, Commit 5 ms, on its own clock, which moves only when a test moves it.
 */
class ScriptedHandler implements AbciHandler {
  readonly clock = new ManualClock();
  readonly log: string[] = [];
  readonly closedConnections: number[] = [];
  throwOn: string | null = null;

  async handle(request: Request, _connection: AbciConnection): Promise<Response> {
    if (request.checkTx !== undefined) {
      const ms = request.checkTx.tx[0] ?? 0;
      const name = `check${request.checkTx.tx[1] ?? 0}`;
      this.log.push(`start ${name}`);
      await sleepOn(this.clock, ms);
      this.log.push(`end ${name}`);
      return { checkTx: { code: request.checkTx.tx[1] ?? 0, data: new Uint8Array(0), log: name, info: "", gasWanted: 0n, gasUsed: 0n, events: [], codespace: "" } };
    }
    if (request.commit !== undefined) {
      this.log.push("start commit");
      if (this.throwOn === "commit") throw new Error("disk failed");
      await sleepOn(this.clock, 5);
      this.log.push("end commit");
      return { commit: { retainHeight: 0n } };
    }
    if (request.echo !== undefined) {
      this.log.push(`echo ${request.echo.message}`);
      return { echo: { message: request.echo.message } };
    }
    return { exception: { error: "not scripted" } };
  }

  closed(connection: AbciConnection): void {
    this.closedConnections.push(connection.id);
  }
}

async function start(handler: AbciHandler, overrides: Partial<AbciServerOptions> = {}) {
  const fatal: unknown[] = [];
  const server = await AbciServer.start({ ...options, ...overrides }, { handler, onFatal: (e) => fatal.push(e) });
  servers.push(server);
  const client = await AbciTestClient.open(server.address);
  clients.push(client);
  return { server, client, fatal };
}

const checkTx = (ms: number, id: number): Request => ({ checkTx: { tx: Uint8Array.of(ms, id), type: 0 } });

/** `answers`, the handler's clock moved on 5 ms at a time whenever a request waits on it. */
async function driven<T>(handler: ScriptedHandler, answers: Promise<T>): Promise<T> {
  let done = false;
  void answers.then(() => (done = true), () => (done = true));
  while (!done) {
    await waitFor("a request waiting on the clock, or the answers", () => done || handler.clock.pending > 0, { intervalMs: 1 });
    await handler.clock.advance(5);
  }
  return answers;
}

describe("AbciServer", () => {
  it("answers in request order even when the handlers finish out of order", async () => {
    const handler = new ScriptedHandler();
    const { client } = await start(handler);
    const answering = client.call(checkTx(40, 1), checkTx(0, 2), checkTx(20, 3), { echo: { message: "e" } });
    // All three run at once, each waiting on the clock; then their times come in their order.
    await waitFor("the three CheckTx to wait", () => handler.clock.pending === 3);
    await handler.clock.advance(40);
    const answers = await answering;
    assert.deepEqual(answers.map((a) => a.checkTx?.log ?? a.echo?.message), ["check1", "check2", "check3", "e"]);
    // CheckTx runs concurrently: the fast ones ended before the slow first one.
    assert.ok(handler.log.indexOf("end check2") < handler.log.indexOf("end check1"), handler.log.join(","));
  });

  it("runs an ordered request (Commit) after every earlier request, and later ones after it", async () => {
    const handler = new ScriptedHandler();
    const { client } = await start(handler);
    await driven(handler, client.call(checkTx(30, 1), { commit: {} }, checkTx(0, 2)));
    assert.deepEqual(handler.log, ["start check1", "end check1", "start commit", "end commit", "start check2", "end check2"]);
  });

  it("keeps the order over thousands of pipelined requests, with ordered ones among them", async () => {
    const handler = new ScriptedHandler();
    const { client } = await start(handler, { requestsInFlightMax: 10_000 });
    const requests: Request[] = [];
    for (let i = 0; i < 4_000; i++) requests.push(i % 1_000 === 999 ? { commit: {} } : checkTx(i % 3, i % 250));
    const answers = await driven(handler, client.call(...requests));
    assert.equal(answers.length, requests.length);
    answers.forEach((answer, i) => {
      if (i % 1_000 === 999) assert.notEqual(answer.commit, undefined, `answer ${i}`);
      else assert.equal(answer.checkTx?.log, `check${i % 250}`, `answer ${i}`);
    });
    // Each Commit started after every earlier CheckTx ended, and no later one started before it ended.
    let running = 0;
    for (const line of handler.log) {
      if (line === "start commit") assert.equal(running, 0, "a Commit started while a CheckTx ran");
      else if (line.startsWith("start")) running++;
      if (line === "start commit" || line === "end commit") assert.equal(running, 0, "a CheckTx ran during a Commit");
      else if (line.startsWith("end check")) running--;
    }
  });

  it("answers a frozen response, encoded once, every time it is returned", async () => {
    const frozen: Response = Object.freeze({ echo: Object.freeze({ message: "same" }) });
    const { client } = await start({ handle: async () => frozen });
    const answers = await client.call({ echo: { message: "a" } }, { echo: { message: "b" } });
    assert.deepEqual(answers.map((a) => a.echo?.message), ["same", "same"]);
  });

  it("writes answers when a Flush is answered, as Go's socket server does", async () => {
    const handler = new ScriptedHandler();
    const { server, client } = await start(handler);
    let answered = false;
    const [echo] = client.send({ echo: { message: "waits for flush" } });
    void echo!.then(() => (answered = true));
    await waitFor("the echo to be handled", () => handler.log.includes("echo waits for flush"));
    // Two exchanges on another connection: rounds of the server's event loop, in which an
    // answer written without a Flush would have reached this client.
    const other = await AbciTestClient.open(server.address);
    clients.push(other);
    for (const message of ["one", "two"]) await other.call({ echo: { message } });
    assert.equal(answered, false, "an answer went out before any Flush");
    const [flush] = client.send({ flush: {} });
    assert.equal((await echo!).echo?.message, "waits for flush");
    assert.notEqual((await flush!).flush, undefined);
  });

  it("serves a unix socket too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-abci-"));
    try {
      const path = join(dir, "abci.sock");
      const { client } = await start(new ScriptedHandler(), { listen: { path } });
      const [answer] = await client.call({ echo: { message: "unix" } });
      assert.equal(answer!.echo?.message, "unix");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a message over the limit with an exception and closes that connection only", async () => {
    const handler = new ScriptedHandler();
    const { server, client, fatal } = await start(handler);
    const [answer] = client.send({ echo: { message: "before" } });
    client.writeRaw(encodeUvarint(options.messageBytesMax + 1));
    // The earlier request is answered... or dropped with the connection; the exception is what counts.
    const first = await answer!.catch(() => null);
    assert.ok(first === null || first.echo?.message === "before" || first.exception !== undefined);
    await waitFor("the client's end", () => client.ended);
    assert.deepEqual(fatal, [], "bad input from a peer is not fatal to the node");
    const other = await AbciTestClient.open(server.address);
    clients.push(other);
    const [echo] = await other.call({ echo: { message: "still serving" } });
    assert.equal(echo!.echo?.message, "still serving");
    await waitFor("the closed connection", () => handler.closedConnections.length === 1);
  });

  it("answers an exception and reports a fatal error once when a handler throws", async () => {
    const handler = new ScriptedHandler();
    handler.throwOn = "commit";
    const { client, fatal } = await start(handler);
    const [answer] = client.send({ commit: {} }, { flush: {} });
    assert.equal((await answer!).exception?.error, "disk failed");
    await waitFor("the client's end", () => client.ended);
    assert.equal(fatal.length, 1);
    assert.match(String(fatal[0]), /disk failed/);
  });

  it("waits on close for the requests in progress", async () => {
    const handler = new ScriptedHandler();
    const { server, client } = await start(handler);
    client.send(checkTx(60, 1), { flush: {} });
    await waitFor("CheckTx to start", () => handler.log.includes("start check1"));
    const address = server.address;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    // All close does without waiting is done: the connection is cut, the listener closed.
    await waitFor("the connection to be cut", () => client.ended);
    await assert.rejects(AbciTestClient.open(address), { code: "ECONNREFUSED" });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed, false, "close returned while a CheckTx was in progress");
    await handler.clock.advance(60);
    await closing;
    assert.ok(handler.log.includes("end check1"), "close returned before the CheckTx in progress ended");
  });
});
