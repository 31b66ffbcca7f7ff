// The BigchainDB reader of `ledgerd import --from-bigchaindb`: the latest height found over
// `/api/v1/blocks/<h>` in about 2·log2(h) requests, BigchainDB's validators in ledgerd's shape,
// retries with a doubling wait and a limit on an answer's size; and the block order that puts a
// spend after what it spends.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { dependencyOrder } from "../../../src/tools/bigchaindbImport.js";
import { bigchaindbImportOptionsDefault } from "../../../src/tools/bigchaindbImportOptions.js";
import { baseUrlOf, BigchaindbSource, type SourceTx } from "../../../src/tools/bigchaindbSource.js";

let latest = 0;
let failuresLeft = 0;
let asked: string[] = [];
let server: Server;
let url = "";

before(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? "";
    asked.push(path);
    if (failuresLeft > 0) {
      failuresLeft--;
      response.writeHead(502).end("bad gateway");
      return;
    }
    const height = /^\/api\/v1\/blocks\/([0-9]+)$/.exec(path)?.[1];
    if (height !== undefined && Number(height) <= latest) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ height: Number(height), transactions: [] }));
    } else if (path === "/api/v1/validators") {
      const value = Buffer.alloc(32, 7).toString("base64");
      response.writeHead(200, { "content-type": "application/json" }).end(`[{"public_key": {"type": "ed25519-base64", "value": "${value}"}, "voting_power": 10}]`);
    } else if (path === "/big") {
      response.writeHead(200).end("x".repeat(2048));
    } else {
      response.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not found","status":404}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function source(overrides: Partial<typeof bigchaindbImportOptionsDefault> = {}, waits: number[] = []): BigchaindbSource {
  return new BigchaindbSource(url, { ...bigchaindbImportOptionsDefault, ...overrides }, { sleep: async (ms) => void waits.push(ms) });
}

describe("BigchaindbSource", () => {
  it("finds the latest height by doubling and halving", async () => {
    for (const height of [0, 1, 2, 3, 7, 8, 9, 1000, 65_537]) {
      latest = height;
      asked = [];
      assert.equal(await source().latestHeight(), height);
      const bound = 2 * Math.ceil(Math.log2(height + 1)) + 2;
      assert.ok(asked.length <= bound, `height ${height}: ${asked.length} requests, at most ${bound}`);
    }
  });

  it("gives BigchainDB's validators in ledgerd's shape", async () => {
    assert.deepEqual(await source().validators(), [{ publicKey: "07".repeat(32), power: 10 }]);
  });

  it("retries a 5xx with a doubling wait, up to its limit, then names the last failure", async () => {
    latest = 5;
    const waits: number[] = [];
    failuresLeft = 3;
    assert.deepEqual(await source({ retriesMax: 3, retryDelayMs: 100, retryDelayMsMax: 250 }, waits).block(5), { height: 5, txs: [] });
    assert.deepEqual(waits, [100, 200, 250]);
    failuresLeft = 3;
    await assert.rejects(source({ retriesMax: 2 }).block(5), /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/blocks\/5 failed 3 times \(retries: 2\); last: answered 502/);
    failuresLeft = 0;
  });

  it("refuses an answer longer than responseBytesMax", async () => {
    const small = source({ responseBytesMax: 1024 });
    await assert.rejects((small as unknown as { get(path: string): Promise<unknown> }).get("/big"), /\/big answers (2048 bytes, )?more than 1024( bytes)? \(responseBytesMax\)/);
  });

  it("takes the node's URL with or without /api/v1 and slashes", () => {
    for (const given of ["http://h:9984", "http://h:9984/", "http://h:9984/api/v1", "http://h:9984/api/v1/"]) assert.equal(baseUrlOf(given), "http://h:9984");
    assert.throws(() => baseUrlOf("ftp://h"), /not an http\(s\) URL/);
    assert.throws(() => baseUrlOf("http://h/?x=1"), /without a query/);
  });
});

describe("dependencyOrder", () => {
  const tx = (id: string, spends: string[] = []): SourceTx => ({ id, operation: spends.length === 0 ? "CREATE" : "TRANSFER", spends, json: "" });

  it("puts each spend after what it spends, the rest in the order served", () => {
    const [a, b, c, d, e] = [tx("a"), tx("b", ["a"]), tx("c", ["b", "x"]), tx("d"), tx("e", ["a", "d"])];
    assert.deepEqual(dependencyOrder([c, d, b, e, a]).map((t) => t.id), ["a", "b", "c", "d", "e"]);
    assert.deepEqual(dependencyOrder([d, a, b]).map((t) => t.id), ["d", "a", "b"]);
  });

  it("keeps a transaction served twice, the repeat after the block's others", () => {
    const [a, b, again] = [tx("a"), tx("b", ["a"]), tx("a")];
    const ordered = dependencyOrder([b, again, a]);
    assert.deepEqual(ordered.map((t) => t.id), ["a", "b", "a"]);
    assert.equal(ordered.filter((t) => t === again || t === a).length, 2);
  });

  it("takes a long chain of transfers without recursion", () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => tx(`t${i}`, i === 0 ? [] : [`t${i - 1}`]));
    const ordered = dependencyOrder([...chain].reverse());
    assert.deepEqual(ordered.map((t) => t.id), chain.map((t) => t.id));
  });
});
