// Issue #13, "Health and metrics": a real node (config -> startNode, real sockets), scraped on
// `metrics.bind` and probed on /healthz and /readyz; with the solo engine, behind a CometBFT RPC
// that refuses or is catching up (a real socket standing in for CometBFT's RPC), and with HTTP
// worker processes (server.workers = 2).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config/loadConfig.js";
import { createLogger } from "../../src/node/logger.js";
import { startNode, type NodeDeps, type NodeHandle } from "../../src/node/startNode.js";
import type { Store } from "../../src/store/store.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { writeJson } from "../../src/json/writeJson.js";
import { create, keypairOf } from "../helpers/txFactory.js";

const alice = keypairOf("alice");

function configOf(dir: string, flags: Record<string, string>) {
  return loadConfig({
    flags: {
      data_dir: dir,
      "server.bind": "127.0.0.1:0",
      "wsserver.bind": "127.0.0.1:0",
      "log.level": "warn",
      "engine.block_interval_ms": "5",
      ...flags,
    },
    env: {},
  });
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

async function call(base: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = body;
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The value of one sample line of the Prometheus text (`name{labels} value`), or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const have = (match[2] ?? "").split(",").filter((part) => part !== "");
    if (wanted.every((label) => have.includes(label)) && have.length === wanted.length) return Number(match[3]);
  }
  return 0;
}

/** Lines a node logs, captured (JSON lines). */
function capturedLogger(level: "debug" | "warn"): { lines: Record<string, unknown>[]; deps: NodeDeps } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, deps: { logger: createLogger(level, sink) } };
}

describe("health, metrics and request ids of a solo node", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-ops-"));
  const log = capturedLogger("debug");
  let store: Store | null = null;
  let handle: NodeHandle;
  let api: string;
  let metrics: string;

  before(async () => {
    const deps: NodeDeps = {
      ...log.deps,
      openStore: (options) => (store = SqliteStore.open(options.sqliteStore)),
    };
    handle = await startNode(configOf(dir, { "metrics.bind": "127.0.0.1:0" }), deps);
    api = `http://127.0.0.1:${handle.http.port}`;
    assert.ok(handle.metrics !== null);
    metrics = `http://127.0.0.1:${handle.metrics.port}/metrics`;
  });

  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("/healthz and /readyz answer 200 with JSON", async () => {
    const live = await call(api, "GET", "/healthz");
    assert.equal(live.status, 200);
    assert.equal(live.body, '{"ok":true}');
    const ready = await call(api, "GET", "/readyz");
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get("content-type"), "application/json");
    assert.deepEqual(JSON.parse(ready.body), { ready: true, checks: { store: "ok", engine: "ok" } });
  });

  it("the counters move after an accepted POST and a refused one", async () => {
    const before = await (await fetch(metrics)).text();
    const tx = create(alice, 1n, { ops: "metrics" });
    assert.equal((await call(api, "POST", "/api/v1/transactions?mode=commit", writeJson(tx))).status, 202);
    const refused = await call(api, "POST", "/api/v1/transactions?mode=commit", writeJson(tx));
    assert.equal(refused.status, 400);
    const scrape = await fetch(metrics);
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    const moved = (name: string, labels: Record<string, string> = {}): number => sample(text, name, labels) - sample(before, name, labels);
    assert.equal(moved("ledgerd_transactions_accepted_total", { interface: "v2" }), 1);
    assert.equal(moved("ledgerd_transactions_refused_total", { interface: "v2", code: "DuplicateTransaction" }), 1);
    assert.equal(moved("ledgerd_transactions_committed_total", { interface: "v2" }), 1);
    assert.ok(moved("ledgerd_blocks_committed_total") >= 1);
    assert.ok(moved("ledgerd_block_commit_duration_seconds_count") >= 1);
    assert.ok(sample(text, "ledgerd_block_height") >= 1);
    assert.ok(sample(text, "ledgerd_store_size_bytes") > 0);
    const route = { method: "POST", route: "/api/v1/transactions", status: "202" };
    assert.equal(moved("ledgerd_http_request_duration_seconds_count", route), 1);
    assert.equal(moved("ledgerd_http_request_duration_seconds_count", { ...route, status: "400" }), 1);
    const gauges = ["ledgerd_pending_transactions", "ledgerd_verification_queue_transactions", "ledgerd_stream_subscribers"];
    for (const name of [...gauges, "ledgerd_stream_replaying_subscribers"]) {
      assert.match(text, new RegExp(`^${name} \\d+$`, "m"), name);
    }
    assert.match(text, /^ledgerd_stream_dropped_subscribers_total \d+$/m);
  });

  it("an unknown URL is counted under one route label, not its URL", async () => {
    await call(api, "GET", "/no/such/path/12345");
    const text = await (await fetch(metrics)).text();
    assert.ok(sample(text, "ledgerd_http_request_duration_seconds_count", { method: "GET", route: "(unmatched)", status: "404" }) >= 1);
    assert.doesNotMatch(text, /12345/);
  });

  it("a method a known path does not allow (405) is counted under the path's route", async () => {
    const before = sample(await (await fetch(metrics)).text(), "ledgerd_http_request_duration_seconds_count", { method: "DELETE", route: "/api/v1/blocks/:block_height", status: "405" });
    assert.equal((await call(api, "DELETE", "/api/v1/blocks/77777")).status, 405);
    const text = await (await fetch(metrics)).text();
    assert.equal(sample(text, "ledgerd_http_request_duration_seconds_count", { method: "DELETE", route: "/api/v1/blocks/:block_height", status: "405" }), before + 1);
    assert.doesNotMatch(text, /77777/);
  });

  it("a sane X-Request-Id is echoed and names the request's log lines", async () => {
    const id = "client-7f3a:42";
    const refused = await call(api, "POST", "/api/v1/transactions", "{}", { "x-request-id": id });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get("x-request-id"), id);
    const line = log.lines.find((l) => l["reqId"] === id);
    assert.ok(line !== undefined, "a log line with the request's id");
    assert.equal(line["msg"], "HTTP API error");
  });

  it("without X-Request-Id, or with one that is not sane, the request gets a made id", async () => {
    const made = await call(api, "GET", "/api/v1/");
    assert.match(made.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    for (const bad of ["x".repeat(129), "has space", 'quote"d', "semi;colon", "<script>", "tab\tin"]) {
      const echoed = (await call(api, "GET", "/api/v1/", undefined, { "x-request-id": bad })).headers.get("x-request-id");
      assert.match(echoed ?? "", /^[0-9a-f-]{36}$/, `made for ${JSON.stringify(bad)}`);
    }
    const longest = "a".repeat(128);
    assert.equal((await call(api, "GET", "/api/v1/", undefined, { "x-request-id": longest })).headers.get("x-request-id"), longest);
  });

  it("the answers' bodies are as before (the id is a header only)", async () => {
    const answer = await call(api, "GET", "/api/v1/", undefined, { "x-request-id": "abc" });
    assert.equal(answer.body, JSON.stringify(JSON.parse(answer.body)));
    assert.doesNotMatch(answer.body, /abc/);
  });

  it("/readyz is 503 with the store's reason once the store is closed (last: it stays closed)", async () => {
    assert.ok(store !== null);
    await store.close();
    const ready = await call(api, "GET", "/readyz");
    assert.equal(ready.status, 503);
    const body = JSON.parse(ready.body) as { ready: boolean; reason: string; checks: Record<string, string> };
    assert.equal(body.ready, false);
    assert.match(body.reason, /^store: the store cannot be read/);
    assert.equal(body.checks["engine"], "ok");
    assert.equal((await call(api, "GET", "/healthz")).status, 200);
  });
});

describe("/readyz behind CometBFT", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-ops-cometbft-"));
  let rpc: Server;
  let catchingUp: boolean | "down" = true;
  let handle: NodeHandle;
  let api: string;
  let metrics: string;

  before(async () => {
    // CometBFT's RPC, as far as /readyz asks it: JSON-RPC `status` with `sync_info.catching_up`.
    rpc = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      request.on("end", () => {
        if (catchingUp === "down") {
          response.socket?.destroy();
          return;
        }
        const { id, method } = JSON.parse(text) as { id: number; method: string };
        assert.equal(method, "status");
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify({ jsonrpc: "2.0", id, result: { sync_info: { catching_up: catchingUp, latest_block_height: "7" } } }));
      });
    });
    await new Promise<void>((resolve) => rpc.listen(0, "127.0.0.1", resolve));
    const port = (rpc.address() as AddressInfo).port;
    const flags = { engine: "cometbft", "engine.abci_bind": "127.0.0.1:0", "engine.rpc_url": `http://127.0.0.1:${port}`, "metrics.bind": "127.0.0.1:0" };
    handle = await startNode(configOf(dir, flags));
    api = `http://127.0.0.1:${handle.http.port}`;
    metrics = `http://127.0.0.1:${handle.metrics!.port}/metrics`;
  });

  after(async () => {
    await handle?.close();
    await new Promise((resolve) => rpc.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("503 while CometBFT catches up, 200 once it has caught up", async () => {
    catchingUp = true;
    const waiting = await call(api, "GET", "/readyz");
    assert.equal(waiting.status, 503);
    assert.equal(JSON.parse(waiting.body).reason, "engine: CometBFT is catching up with the network");
    catchingUp = false;
    const ready = await call(api, "GET", "/readyz");
    assert.equal(ready.status, 200, ready.body);
  });

  it("ledgerd_ready is /readyz's answer at each scrape: 0 while CometBFT catches up, then 1", async () => {
    catchingUp = true;
    assert.match(await (await fetch(metrics)).text(), /^ledgerd_ready 0$/m);
    catchingUp = false;
    assert.match(await (await fetch(metrics)).text(), /^ledgerd_ready 1$/m);
  });

  it("503 when CometBFT's RPC refuses connections", async () => {
    catchingUp = false;
    await new Promise((resolve) => {
      rpc.close(resolve);
      rpc.closeAllConnections();
    });
    // The first call may find the kept-alive connection cut ("socket hang up"); the next one
    // opens a new connection, which the closed port refuses.
    for (const expected of [/^engine: CometBFT's RPC does not answer \(/, /^engine: CometBFT's RPC does not answer \(.*ECONNREFUSED/]) {
      const down = await call(api, "GET", "/readyz");
      assert.equal(down.status, 503);
      assert.match(JSON.parse(down.body).reason, expected);
    }
    // Listening again for `after`, which closes it.
    rpc.listen(0, "127.0.0.1");
  });
});

describe("health and metrics with HTTP workers (server.workers = 2)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-ops-workers-"));
  let handle: NodeHandle;
  let api: string;
  let metrics: string;

  before(async () => {
    handle = await startNode(configOf(dir, { "server.workers": "2", "server.threads": "1", "metrics.bind": "127.0.0.1:0" }));
    api = `http://127.0.0.1:${handle.http.port}`;
    metrics = `http://127.0.0.1:${handle.metrics!.port}/metrics`;
  });

  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("every worker answers /readyz with the node's checks and its own store's", async () => {
    for (let i = 0; i < 6; i++) {
      // A new connection each time, so that both workers get some.
      const ready = await call(api, "GET", "/readyz", undefined, { connection: "close" });
      assert.equal(ready.status, 200, ready.body);
      assert.deepEqual(JSON.parse(ready.body).checks, { store: "ok", engine: "ok", worker_store: "ok" });
    }
  });

  it("a scrape counts the requests of every worker and the node's commits", async () => {
    const before = await (await fetch(metrics)).text();
    const requests = 20;
    for (let i = 0; i < requests; i++) {
      assert.equal((await call(api, "GET", "/api/v1/", undefined, { connection: "close" })).status, 200);
    }
    const tx = create(alice, 1n, { ops: "workers" });
    assert.equal((await call(api, "POST", "/api/v1/transactions?mode=commit", writeJson(tx), { connection: "close" })).status, 202);
    assert.equal((await call(api, "POST", "/api/v1/transactions", "{}", { connection: "close" })).status, 400);
    const text = await (await fetch(metrics)).text();
    const moved = (name: string, labels: Record<string, string> = {}): number => sample(text, name, labels) - sample(before, name, labels);
    assert.equal(moved("ledgerd_http_request_duration_seconds_count", { method: "GET", route: "/api/v1", status: "200" }), requests);
    assert.equal(moved("ledgerd_transactions_accepted_total", { interface: "v2" }), 1);
    // Refused in the worker, by its own checks (the body has no id to match).
    assert.equal(moved("ledgerd_transactions_refused_total", { interface: "v2", code: "InvalidHash" }), 1);
    assert.equal(moved("ledgerd_transactions_committed_total", { interface: "v2" }), 1);
    assert.ok(sample(text, "ledgerd_block_height") >= 1);
  });
});
