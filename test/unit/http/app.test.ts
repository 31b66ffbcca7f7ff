// The HTTP layer itself, with a stub Store and Broadcaster (the subject is the app, not the
// ledger): discovery documents, the error handler, unknown paths (404) and wrong methods (405),
// trailing slashes, CORS, content types, and what a real socket sees for an oversized body.
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import type { Broadcaster } from "../../../src/engine/broadcaster.js";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import type { Store } from "../../../src/store/store.js";
import type { PreparedTx } from "../../../src/transaction/types.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { errorBody, expectJson, get } from "./helpers.js";
import { waitFor } from "../../helpers/waitFor.js";

const unknownPath =
  "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.";
const wrongMethod = "The method is not allowed for the requested URL.";
/** The one stored transaction: a real one, since the route checks it hashes to its id. */
const storedTx = create(keypairOf("app"));
const txId = storedTx["id"] as string;

/** A Store whose reads answer fixed text, or throw what `failWith` holds. */
function stubStore(state: { failWith?: unknown }): Store {
  const read = async <T>(value: T): Promise<T> => {
    if (state.failWith !== undefined) throw state.failWith;
    return value;
  };
  const batches = async function* <T>(items: T[]): AsyncGenerator<T[]> {
    yield await read(items);
  };
  return {
    backend: "stub",
    getTransaction: (id: string) => read(id === txId ? JSON.stringify(storedTx) : null),
    getTransactionsByAsset: () => read([]),
    getOutputsByPublicKey: () => read([]),
    searchAssets: () => read([]),
    searchMetadata: () => read([]),
    getBlockTransactions: () => read(null),
    getBlockHeightOfTransaction: () => read(null),
    getValidators: () => read([]),
    streamTransactionsByAsset: () => batches([]),
    streamOutputsByPublicKey: () => batches([]),
    streamSearchAssets: () => batches([]),
    streamSearchMetadata: () => batches([]),
    streamOutputEntries: () => batches([]),
    streamAssetHistory: () => batches([]),
    streamSearchPage: () => batches([]),
    streamBalances: () => batches([]),
    streamBlockTransactions: () => read(null),
  } as unknown as Store;
}

/** A Broadcaster that echoes the bytes as the prepared JSON, or throws what `failWith` holds. */
function stubBroadcaster(state: { failWith?: unknown; calls: string[] }): Broadcaster {
  return {
    async broadcast(bytes, mode) {
      state.calls.push(mode);
      if (state.failWith !== undefined) throw state.failWith;
      return { json: Buffer.from(bytes).toString("utf8") } as PreparedTx;
    },
  };
}

describe("the HTTP app", () => {
  const storeState: { failWith?: unknown } = {};
  const broadcastState: { failWith?: unknown; calls: string[] } = { calls: [] };
  const logLines: string[] = [];
  let app: FastifyInstance;

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString("utf8"));
        done();
      },
    });
    app = await buildHttpApp(
      { version: "9.9.9", streamsUrl: "ws://node.example:9985/api/v1/streams/valid_transactions" },
      { store: stubStore(storeState), broadcaster: stubBroadcaster(broadcastState), logger: pino({ level: "debug" }, sink) },
    );
  });
  after(() => app.close());

  describe("discovery documents (docs/bigchaindb-behaviour.md §1.3)", () => {
    const docs = "https://docs.bigchaindb.com/projects/server/en/v2.2.2/";
    const apiDocs = "https://docs.bigchaindb.com/projects/server/en/v2.2.2/http-client-server-api.html";
    const streams = "ws://node.example:9985/api/v1/streams/valid_transactions";

    test("GET / is the root document", async () => {
      const response = await get(app, "/");
      expectJson(response, 200);
      assert.deepEqual(JSON.parse(response.body), {
        api: {
          v1: {
            assets: "/api/v1/assets/",
            blocks: "/api/v1/blocks/",
            docs: apiDocs,
            metadata: "/api/v1/metadata/",
            outputs: "/api/v1/outputs/",
            streams,
            transactions: "/api/v1/transactions/",
            validators: "/api/v1/validators",
          },
        },
        docs,
        software: "ledgerd",
        version: "9.9.9",
      });
    });

    test("GET /api/v1 and /api/v1/ are the API document, paths relative to /api/v1", async () => {
      for (const path of ["/api/v1", "/api/v1/"]) {
        const response = await get(app, path);
        expectJson(response, 200);
        assert.deepEqual(JSON.parse(response.body), {
          assets: "/assets/",
          blocks: "/blocks/",
          docs: apiDocs,
          metadata: "/metadata/",
          outputs: "/outputs/",
          streams,
          transactions: "/transactions/",
          validators: "/validators",
        });
      }
    });

    test("with BigchainDB's values, GET / is byte for byte BigchainDB's jsonify output", async () => {
      const bigchaindb = await buildHttpApp(
        { software: "BigchainDB", version: "2.2.2" },
        { store: stubStore({}), broadcaster: stubBroadcaster({ calls: [] }) },
      );
      const expected =
        '{"api":{"v1":{"assets":"/api/v1/assets/","blocks":"/api/v1/blocks/",' +
        `"docs":"${apiDocs}","metadata":"/api/v1/metadata/","outputs":"/api/v1/outputs/",` +
        '"streams":"ws://localhost:9985/api/v1/streams/valid_transactions",' +
        '"transactions":"/api/v1/transactions/","validators":"/api/v1/validators"}},' +
        `"docs":"${docs}","software":"BigchainDB","version":"2.2.2"}`;
      expectJson(await get(bigchaindb, "/"), 200, expected);
      await bigchaindb.close();
    });
  });

  describe("errors", () => {
    test("unknown paths are JSON 404 with Werkzeug's text, whatever the method", async () => {
      for (const [method, url] of [["GET", "/nope"], ["GET", "/api/v2/transactions"], ["POST", "/api"], ["DELETE", "/x/y/z"]] as const) {
        expectJson(await app.inject({ method, url }), 404, errorBody(404, unknownPath));
      }
      expectJson(await get(app, "/api/v1/streams/valid_transactions"), 404, errorBody(404, unknownPath));
    });

    test("a wrong method on a known path is JSON 405 with Allow", async () => {
      const cases = [
        ["DELETE", "/api/v1/transactions", "GET, POST, HEAD, OPTIONS"],
        ["PUT", "/api/v1/transactions/", "GET, POST, HEAD, OPTIONS"],
        ["POST", `/api/v1/transactions/${txId}`, "GET, HEAD, OPTIONS"],
        ["PATCH", "/api/v1/outputs", "GET, HEAD, OPTIONS"],
        ["POST", "/api/v1/validators/", "GET, HEAD, OPTIONS"],
        ["DELETE", "/api/v1/blocks/1", "GET, HEAD, OPTIONS"],
        ["POST", "/", "GET, HEAD, OPTIONS"],
        ["TRACE", "/api/v1", "GET, HEAD, OPTIONS"],
      ] as const;
      for (const [method, url, allow] of cases) {
        const response = await app.inject({ method, url });
        expectJson(response, 405, errorBody(405, wrongMethod));
        assert.equal(response.headers["allow"], allow, `${method} ${url}`);
      }
    });

    test("a LedgerError from the Broadcaster keeps its catalog status and framed message", async () => {
      const cases: [LedgerError, number, string][] = [
        [new LedgerError("DoubleSpend", `input \`${txId}\` was already spent`), 400, `Invalid transaction (DoubleSpend): input \`${txId}\` was already spent`],
        [new LedgerError("SchemaValidationError", "'version' is a required property"), 400, "Invalid transaction schema: 'version' is a required property"],
        [new LedgerError("EngineUnavailable", "The consensus engine cannot be reached"), 503, "The consensus engine cannot be reached"],
        [new LedgerError("CommitTimeout", "Not committed within 30000 ms; it may still commit"), 504, "Not committed within 30000 ms; it may still commit"],
        [new LedgerError("MempoolFull", "The pending pool is full; try again later"), 503, "The pending pool is full; try again later"],
      ];
      try {
        for (const [error, status, message] of cases) {
          broadcastState.failWith = error;
          const response = await app.inject({ method: "POST", url: "/api/v1/transactions?mode=commit", payload: "{}" });
          expectJson(response, status, errorBody(status, message));
        }
      } finally {
        delete broadcastState.failWith;
      }
    });

    test("any other error is our bug: 500 with a fixed body, logged with its stack", async () => {
      storeState.failWith = new Error("disk on fire");
      logLines.length = 0;
      try {
        const response = await get(app, `/api/v1/transactions/${txId}`);
        expectJson(response, 500, errorBody(500, "Internal Server Error"));
        assert.ok(!response.body.includes("disk on fire"), "the cause is not shown to the client");
        const logged = logLines.map((line) => JSON.parse(line) as { level: number; err?: { message: string; stack: string } });
        const entry = logged.find((line) => line.err?.message === "disk on fire");
        assert.ok(entry !== undefined, "the error is logged");
        assert.equal(entry.level, 50, "at error level");
        assert.match(entry.err!.stack, /disk on fire\n\s+at /);
      } finally {
        delete storeState.failWith;
      }
      storeState.failWith = "not even an Error";
      try {
        expectJson(await get(app, "/api/v1/validators"), 500, errorBody(500, "Internal Server Error"));
      } finally {
        delete storeState.failWith;
      }
    });

    test("a malformed percent-escape in the path is 400 JSON, not Fastify's own body", async () => {
      const response = await get(app, "/api/v1/transactions/%zz");
      expectJson(response, 400, errorBody(400, "'/api/v1/transactions/%zz' is not a valid url component"));
      assert.equal(response.headers["access-control-allow-origin"], "*");
    });

    test("a path parameter past the router's length limit is 404, as for any id that names nothing", async () => {
      expectJson(await get(app, `/api/v1/transactions/${"a".repeat(300)}`), 404, errorBody(404, "Not found"));
      expectJson(await get(app, `/api/v1/blocks/${"1".repeat(300)}`), 404, errorBody(404, "Not found"));
    });

    test("POST bodies are handed over as bytes, whatever the Content-Type, even an unparsable one", async () => {
      broadcastState.calls.length = 0;
      for (const type of ["application/json", "text/plain", "this is not a media type", "multipart/form-data; boundary=x"]) {
        const response = await app.inject({ method: "POST", url: "/api/v1/transactions", payload: '{"a":1}', headers: { "content-type": type } });
        expectJson(response, 202, '{"a":1}');
      }
      assert.deepEqual(broadcastState.calls, ["async", "async", "async", "async"]);
    });
  });

  describe("paths, headers and types", () => {
    const gets = [
      "/",
      "/api/v1",
      `/api/v1/transactions/${txId}`,
      `/api/v1/transactions?asset_id=${txId}`,
      "/api/v1/outputs?public_key=9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj",
      "/api/v1/assets?search=x",
      "/api/v1/metadata?search=x",
      "/api/v1/validators",
      "/api/v1/blocks?transaction_id=x",
    ];

    test("every path answers with and without a trailing slash, the same, with no redirect", async () => {
      for (const url of gets) {
        const [path, query] = url.split("?") as [string, string | undefined];
        const other = path.endsWith("/") && path !== "/" ? path.slice(0, -1) : `${path}/`;
        const a = await get(app, url);
        const b = await get(app, query === undefined ? other : `${other}?${query}`);
        assert.equal(a.statusCode, 200, url);
        assert.equal(b.statusCode, 200, other);
        assert.equal(a.body, b.body, url);
      }
    });

    test("every answer is exactly application/json, errors included; HEAD too", async () => {
      for (const url of [...gets, "/nope", `/api/v1/transactions/${"b".repeat(64)}`, "/api/v1/outputs"]) {
        const response = await get(app, url);
        assert.equal(response.headers["content-type"], "application/json", url);
        const head = await app.inject({ method: "HEAD", url });
        assert.equal(head.headers["content-type"], "application/json", `HEAD ${url}`);
        assert.equal(head.body, "");
      }
    });

    test("CORS: `*` without an Origin; the Origin echoed with Vary: Origin; on errors too", async () => {
      for (const url of ["/api/v1/validators", "/nope", "/api/v1/outputs"]) {
        const plain = await get(app, url);
        assert.equal(plain.headers["access-control-allow-origin"], "*", url);
        assert.equal(plain.headers["vary"], undefined, url);
        const cross = await get(app, url, { headers: { origin: "https://wallet.example" } });
        assert.equal(cross.headers["access-control-allow-origin"], "https://wallet.example", url);
        assert.equal(cross.headers["vary"], "Origin", url);
      }
      const posted = await app.inject({ method: "POST", url: "/api/v1/transactions", payload: "{}", headers: { origin: "https://a.example" } });
      assert.equal(posted.headers["access-control-allow-origin"], "https://a.example");
    });

    test("CORS preflight: 204 with the path's methods and the requested headers allowed", async () => {
      const response = await app.inject({
        method: "OPTIONS",
        url: "/api/v1/transactions/",
        headers: {
          origin: "https://wallet.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, x-trace",
        },
      });
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, "");
      assert.equal(response.headers["access-control-allow-origin"], "https://wallet.example");
      assert.equal(response.headers["vary"], "Origin");
      assert.equal(response.headers["access-control-allow-methods"], "GET, POST, HEAD, OPTIONS");
      assert.equal(response.headers["access-control-allow-headers"], "content-type, x-trace");
      assert.equal(response.headers["allow"], "GET, POST, HEAD, OPTIONS");
    });

    test("OPTIONS without a preflight lists the methods; on an unknown path it is 404", async () => {
      const response = await app.inject({ method: "OPTIONS", url: "/api/v1/validators" });
      assert.equal(response.statusCode, 204);
      assert.equal(response.headers["allow"], "GET, HEAD, OPTIONS");
      assert.equal(response.headers["access-control-allow-methods"], undefined);
      expectJson(await app.inject({ method: "OPTIONS", url: "/nope" }), 404, errorBody(404, unknownPath));
    });
  });
});

describe("the HTTP app on a real socket", () => {
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    app = await buildHttpApp({ bodyBytesMax: 1000 }, { store: stubStore({}), broadcaster: stubBroadcaster({ calls: [] }) });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(() => app.close());

  function send(headers: Record<string, string>, chunks: string[]): Promise<{ status: number; type: string; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/api/v1/transactions", headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body }));
      });
      // The server may answer 413 and close before the whole body is written.
      req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  test("a body over the limit is 413 JSON, announced by Content-Length or sent chunked", async () => {
    const big = "x".repeat(1500);
    const expected = errorBody(413, "The request body is larger than the limit of 1000 bytes");
    const announced = await send({ "content-length": String(big.length) }, [big]);
    assert.deepEqual(announced, { status: 413, type: "application/json", body: expected });
    const chunked = await send({ "transfer-encoding": "chunked" }, [big.slice(0, 700), big.slice(700)]);
    assert.deepEqual(chunked, { status: 413, type: "application/json", body: expected });
    const fits = await send({ "content-length": "7" }, ['{"a":1}']);
    assert.deepEqual(fits, { status: 202, type: "application/json", body: '{"a":1}' });
  });

  test("a request that arrives while the app closes is 503 with the catalog's body", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const broadcasting = new Promise<void>((resolve) => (entered = resolve));
    const broadcaster: Broadcaster = {
      async broadcast() {
        entered();
        await gate;
        return { json: "{}" } as PreparedTx;
      },
    };
    const closing = await buildHttpApp({}, { store: stubStore({}), broadcaster });
    await closing.listen({ host: "127.0.0.1", port: 0 });
    let requests = 0;
    closing.server.on("request", () => requests++);
    const socket = connect((closing.server.address() as AddressInfo).port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
    const ended = new Promise((resolve) => socket.on("close", resolve));
    // The first request holds the connection busy, so closing cannot reap it as idle.
    socket.write("POST /api/v1/transactions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    await broadcasting;
    const closed = closing.close();
    // The server stops listening once the app's preClose hooks have run: it is closing.
    await waitFor("the app to close its listener", () => !closing.server.listening);
    socket.write("GET /api/v1/validators HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitFor("the second request to reach the server", () => requests === 2);
    release();
    await closed;
    await ended;
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => match[1]);
    assert.deepEqual(statuses, ["202", "503"], received);
    assert.ok(received.endsWith(errorBody(503, "The node is shutting down")), received);
  });
});
