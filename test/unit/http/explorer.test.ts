// The explorer page's files as the node serves them (routes/explorer.ts): from a folder of
// built files, gzipped for browsers that take it, with validators, and nothing outside it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { acceptsGzip, registerExplorerRoutes } from "../../../src/http/routes/explorer.js";
import { get, startHttpStack, type HttpStack } from "./helpers.js";
import { rawExchange } from "./rawSocket.js";

describe("the explorer's files", () => {
  let http: HttpStack;
  let app: FastifyInstance;
  let unbuilt: FastifyInstance;
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-explorer-"));
  const script = "console.log('explorer');\n".repeat(50);
  before(async () => {
    writeFileSync(join(dir, "index.html"), "<!doctype html><title>explorer</title>");
    writeFileSync(join(dir, "app.js"), script);
    writeFileSync(join(dir, "notes.txt"), "not a page file");
    mkdirSync(join(dir, "sub"));
    http = await startHttpStack({}, { explorer: false });
    app = await http.appWith({ explorer: false });
    registerExplorerRoutes(app, dir);
    unbuilt = await http.appWith({ explorer: false });
    registerExplorerRoutes(unbuilt, join(dir, "missing"));
  });
  after(async () => {
    await http.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page at /explorer/, under a content security policy", async () => {
    const page = await get(app, "/explorer/");
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(page.body, "<!doctype html><title>explorer</title>");
    assert.match(String(page.headers["content-security-policy"]), /default-src 'self'/);
  });

  it("sends /explorer to /explorer/, the query kept, since the page's files are named relative to it", async () => {
    const bare = await get(app, "/explorer");
    assert.equal(bare.statusCode, 308);
    assert.equal(bare.headers.location, "/explorer/");
    const pointed = await get(app, "/explorer?node=http%3A%2F%2Fother%3A9984");
    assert.equal(pointed.statusCode, 308);
    assert.equal(pointed.headers.location, "/explorer/?node=http%3A%2F%2Fother%3A9984");
    const odd = await get(app, "/explorer?a=1?b=2");
    assert.equal(odd.headers.location, "/explorer/?a=1?b=2", "the whole query, a second ? included");
  });

  it("sends gzip to a client that takes it, plain to one that does not, each with its own validator", async () => {
    const zipped = await get(app, "/explorer/app.js", { headers: { "accept-encoding": "br, gzip" } });
    assert.equal(zipped.headers["content-encoding"], "gzip");
    assert.equal(gunzipSync(zipped.rawPayload).toString(), script);
    assert.ok(zipped.rawPayload.length < script.length / 4);
    const plain = await get(app, "/explorer/app.js", { headers: { "accept-encoding": "gzip;q=0" } });
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal(plain.body, script);
    assert.notEqual(plain.headers.etag, zipped.headers.etag);
    const again = await get(app, "/explorer/app.js", { headers: { "accept-encoding": "gzip", "if-none-match": String(zipped.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, "");
    const stale = await get(app, "/explorer/app.js", { headers: { "if-none-match": String(zipped.headers.etag) } });
    assert.equal(stale.statusCode, 200, "the gzip validator does not stand for the plain file");
  });

  it("answers 304 to If-None-Match as RFC 9110 says: a list, weak tags, *", async () => {
    const plain = await get(app, "/explorer/app.js");
    const etag = String(plain.headers.etag);
    const opaque = etag.slice(1, -1);
    const hits = [etag, `W/${etag}`, `"other", ${etag}`, `"other",W/${etag} , "more"`, "*", " * "];
    for (const header of hits) {
      const response = await get(app, "/explorer/app.js", { headers: { "if-none-match": header } });
      assert.equal(response.statusCode, 304, header);
      assert.equal(response.headers.etag, etag, header);
    }
    const misses = ['"other"', `W/"${opaque}x"`, opaque, `"${opaque}-gz"`, ""];
    for (const header of misses) {
      const response = await get(app, "/explorer/app.js", { headers: { "if-none-match": header } });
      assert.equal(response.statusCode, 200, header);
    }
  });

  it("never carries a fragment into the redirect: /explorer#x?y is refused, /explorer?a=1 sent to /explorer/?a=1", async () => {
    // Over a socket: an HTTP client drops a fragment before sending, so only raw bytes carry one.
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const send = (target: string) => rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: node.example\r\nConnection: close\r\n\r\n`).answer;
    for (const target of ["/explorer#x?y", "/explorer?a=1#x?y"]) {
      const answer = await send(target);
      assert.equal(answer.status, 400, target);
      assert.equal(answer.headers.get("location") ?? null, null, target);
    }
    const redirected = await send("/explorer?a=1");
    assert.equal(redirected.status, 308);
    assert.equal(redirected.headers.get("location"), "/explorer/?a=1");
  });

  it("answers 404 for anything but the built page's files", async () => {
    for (const url of ["/explorer/notes.txt", "/explorer/sub", "/explorer/..%2Fpackage.json", "/explorer/nothing.js", "/explorer/sub/app.js"]) {
      const answer = await get(app, url);
      assert.equal(answer.statusCode, 404, url);
      assert.equal(answer.headers["content-type"], "application/json");
    }
  });

  it("says how to build the page when it is not built", async () => {
    const answer = await get(unbuilt, "/explorer/");
    assert.equal(answer.statusCode, 404);
    assert.match(answer.body, /npm run build/);
  });

  it("is not served with server.explorer = false", async () => {
    const answer = await get(await http.appWith({ explorer: false }), "/explorer/");
    assert.equal(answer.statusCode, 404);
    assert.doesNotMatch(answer.body, /npm run build/);
  });

  it("reads Accept-Encoding as RFC 9110 says", () => {
    assert.equal(acceptsGzip(undefined), false);
    assert.equal(acceptsGzip("gzip"), true);
    assert.equal(acceptsGzip("deflate, GZIP;q=0.5"), true);
    assert.equal(acceptsGzip("gzip;q=0"), false);
    assert.equal(acceptsGzip("*"), true);
    assert.equal(acceptsGzip("*;q=0, gzip"), true);
    assert.equal(acceptsGzip("gzip;q=0, *"), false);
    assert.equal(acceptsGzip("identity"), false);
  });
});
