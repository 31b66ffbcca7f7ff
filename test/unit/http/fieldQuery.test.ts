// Queries by field over HTTP on a real stack (docs/compatibility.md #25): the form of a filter,
// AND, values as JSON scalars, paging with limit + cursor + Link, and every refusal a 400.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { commit, expectJson, get, startHttpStack, type HttpStack } from "./helpers.js";

describe("queries by field", () => {
  let http: HttpStack;
  const alice = keypairOf("alice");
  const cars: JsonObject[] = [];
  let bike: JsonObject;
  let sold: JsonObject;

  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
    for (let i = 0; i < 5; i++) {
      const car = create(alice, 1n, { kind: "car", serial: `S${i}`, year: 2019, a: { b: { c: i } } });
      cars.push(car);
      await commit(http.app, car);
    }
    bike = create(alice, 1n, { kind: "bike", serial: "42", wheels: [2, "spare"], ok: true, gone: null });
    await commit(http.app, bike);
    sold = transfer([{ tx: bike, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 1n }], {
      buyer: { name: "bob" },
      price: 10.5,
    });
    await commit(http.app, sold);
  });
  after(() => http.close());

  const ids = async (url: string): Promise<string[]> => {
    const response = await get(http.app, url);
    expectJson(response, 200);
    return (JSON.parse(response.body) as { id: string }[]).map((hit) => hit.id);
  };
  const id = (tx: JsonObject) => tx["id"] as string;
  const refused = async (url: string, text: RegExp) => {
    const response = await get(http.app, url);
    expectJson(response, 400);
    const body = JSON.parse(response.body) as { message: string; status: number };
    assert.equal(body.status, 400);
    assert.match(body.message, text);
  };

  test("one filter: the search's element shape, exact bytes, commit order", async () => {
    const response = await get(http.app, "/api/v1/assets?data.serial=S3");
    expectJson(response, 200);
    // The document as stored (compact), as the text search writes it.
    const data = JSON.stringify((cars[3]!["asset"] as JsonObject)["data"]);
    assert.equal(response.body, `[{"data": ${data}, "id": "${id(cars[3]!)}"}]`);
    assert.deepEqual(await ids("/api/v1/assets?data.kind=car"), cars.map(id));
  });

  test("filters are AND'ed; nested paths", async () => {
    assert.deepEqual(await ids("/api/v1/assets?data.kind=car&data.serial=S1"), [id(cars[1]!)]);
    assert.deepEqual(await ids("/api/v1/assets?data.kind=bike&data.serial=S1"), []);
    assert.deepEqual(await ids("/api/v1/assets?data.a.b.c=2"), [id(cars[2]!)]);
  });

  test("values: numbers, true, false, null as JSON; quoted text is a string", async () => {
    assert.deepEqual(await ids("/api/v1/assets?data.serial=42"), []);
    assert.deepEqual(await ids('/api/v1/assets?data.serial=%2242%22'), [id(bike)]);
    assert.deepEqual(await ids("/api/v1/assets?data.year=2019.0&data.serial=S0"), [id(cars[0]!)]);
    assert.deepEqual(await ids("/api/v1/assets?data.ok=true"), [id(bike)]);
    assert.deepEqual(await ids("/api/v1/assets?data.gone=null"), [id(bike)]);
    assert.deepEqual(await ids("/api/v1/assets?data.wheels=2"), [id(bike)]);
    assert.deepEqual(await ids("/api/v1/assets?data.wheels=spare"), [id(bike)]);
  });

  test("metadata: its own prefix and shape", async () => {
    const response = await get(http.app, "/api/v1/metadata?metadata.buyer.name=bob&metadata.price=10.5");
    expectJson(response, 200, `[{"id": "${id(sold)}", "metadata": {"buyer":{"name":"bob"},"price":10.5}}]`);
    // data.* on metadata is not a filter there: without search it is the search's own 400.
    expectJson(await get(http.app, "/api/v1/metadata?data.kind=car"), 400);
  });

  test("pages: limit, a Link to the next page, every element once, no Link on the last", async () => {
    const seen: string[] = [];
    let url: string | undefined = "/api/v1/assets?data.kind=car&limit=2";
    let pages = 0;
    while (url !== undefined) {
      const response = await get(http.app, url);
      expectJson(response, 200);
      seen.push(...(JSON.parse(response.body) as { id: string }[]).map((hit) => hit.id));
      const link = response.headers["link"] as string | undefined;
      url = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
      pages++;
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, cars.map(id));
  });

  test("a walk of pages while transactions commit gives exactly the matches of its first page's ledger", async () => {
    const before = await ids("/api/v1/assets?data.kind=car");
    const seen: string[] = [];
    let url: string | undefined = "/api/v1/assets?data.kind=car&limit=1";
    let added = 0;
    while (url !== undefined) {
      const response = await get(http.app, url);
      expectJson(response, 200);
      seen.push(...(JSON.parse(response.body) as { id: string }[]).map((hit) => hit.id));
      if (added < 2) {
        await commit(http.app, create(alice, 1n, { kind: "car", serial: `late${added++}` }));
      }
      const link = response.headers["link"] as string | undefined;
      url = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
    }
    assert.equal(added, 2, "every commit ran during the walk");
    assert.deepEqual(seen, before);
    // A new walk sees the ledger as it is now.
    assert.equal((await ids("/api/v1/assets?data.kind=car")).length, before.length + 2);
  });

  test("search answers as before, with a Link only when more matches follow", async () => {
    const first = await get(http.app, "/api/v1/assets?search=car&limit=1");
    const unpaged = await get(http.app, "/api/v1/assets?search=car");
    expectJson(unpaged, 200);
    expectJson(first, 200);
    const all = JSON.parse(unpaged.body) as unknown[];
    assert.ok(all.length > 1);
    assert.deepEqual(JSON.parse(first.body), all.slice(0, 1));
    assert.match(first.headers["link"] as string, /^<\/api\/v1\/assets\?search=car&limit=1&cursor=[\w-]+>; rel="next"$/);
    const whole = await get(http.app, `/api/v1/assets?search=car&limit=${all.length}`);
    assert.equal(whole.headers["link"], undefined);
  });

  test("bad input is a 400 that says what is wrong", async () => {
    await refused("/api/v1/assets?data.kind=car&search=car", /search: give either search or data\.\* filters/);
    await refused("/api/v1/assets?data.kind=car&colour=red", /Unknown arguments: colour/);
    await refused("/api/v1/assets?data.kind=car&limit=-1", /limit/);
    await refused("/api/v1/assets?data.kind=car&cursor=forged", /cursor/);
    const other = await get(http.app, "/api/v1/assets?data.kind=car&limit=1");
    const cursor = /cursor=([^&>]+)/.exec(other.headers["link"] as string)![1]!;
    await refused(`/api/v1/assets?data.kind=bike&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    // A forged position: past the chain, or a place past its snapshot.
    const [scope, position] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const forge = (text: string) => Buffer.from(JSON.stringify([scope, text])).toString("base64url");
    const snapshot = position.split(".")[0]!;
    for (const forged of ["999999999", "999999999.1", `${snapshot}.999999999`]) {
      await refused(`/api/v1/assets?data.kind=car&limit=1&cursor=${forge(forged)}`, /cursor: not a cursor this node gave/);
    }
    await refused("/api/v1/assets?data..x=1", /empty key/);
    await refused("/api/v1/assets?data.=1", /empty key/);
    await refused(`/api/v1/assets?data.x=${"y".repeat(300)}`, /at most 256 are indexed/);
    await refused("/api/v1/assets?data.a.b.c.d.e.f.g.h.i=1", /at most 8 are indexed/);
    await refused("/api/v1/assets?data.x=%22unterminated", /JSON string literal/);
    await refused("/api/v1/assets?data.x=1e999", /out of range/);
    const many = Array.from({ length: 9 }, (_, i) => `data.k${i}=1`).join("&");
    await refused(`/api/v1/assets?${many}`, /at most 8/);
    await refused("/api/v1/assets?data.kind=car&data.kind=bike", /given more than once/);
  });
});
