// The read endpoints on a real stack: outputs, assets and metadata search, blocks, validators.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { testValidator } from "../../helpers/soloNode.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { commit, errorBody, expectJson, get, startHttpStack, type HttpStack } from "./helpers.js";

const missing = "Missing required parameter in the JSON body or the post body or the query string";

describe("read endpoints", () => {
  let http: HttpStack;
  const alice = keypairOf("alice");
  const bob = keypairOf("bob");
  const carol = keypairOf("carol");
  let bike: JsonObject;
  let car: JsonObject;
  let toBob: JsonObject;
  let shared: JsonObject;
  const heights = new Map<string, number>();

  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
    http.stack.ledger.onCommitted((block) => {
      for (const tx of block.txs) heights.set(tx.id, block.height);
    });
    bike = create(alice, 10n, { kind: "bicycle", colour: "red" });
    car = create(alice, 1n, { kind: "car", colour: "red bicycle rack" });
    await commit(http.app, bike);
    await commit(http.app, car);
    // 3 to bob, 7 back to alice; metadata searchable.
    toBob = transfer(
      [{ tx: bike, outputIndex: 0 }],
      [alice],
      [{ publicKeys: [bob.publicKey], amount: 3n }, { publicKeys: [alice.publicKey], amount: 7n }],
      { note: "bicycle sold to bob" },
    );
    await commit(http.app, toBob);
    // One output owned by bob and carol together: listed for each owner.
    shared = transfer([{ tx: toBob, outputIndex: 0 }], [bob], [{ publicKeys: [bob.publicKey, carol.publicKey], amount: 3n }]);
    await commit(http.app, shared);
  });
  after(() => http.close());

  const ref = (tx: JsonObject, index: number) => ({ transaction_id: tx["id"] as string, output_index: index });
  const outputs = async (query: string) => {
    const response = await get(http.app, `/api/v1/outputs?${query}`);
    expectJson(response, 200);
    return JSON.parse(response.body) as unknown;
  };

  describe("GET /api/v1/outputs", () => {
    test("all, spent and unspent outputs of a key, in commit order", async () => {
      assert.deepEqual(await outputs(`public_key=${alice.publicKey}`), [ref(bike, 0), ref(car, 0), ref(toBob, 1)]);
      assert.deepEqual(await outputs(`public_key=${alice.publicKey}&spent=true`), [ref(bike, 0)]);
      assert.deepEqual(await outputs(`public_key=${alice.publicKey}&spent=false`), [ref(car, 0), ref(toBob, 1)]);
      assert.deepEqual(await outputs(`public_key=${bob.publicKey}&spent=true`), [ref(toBob, 0)]);
    });

    test("a multi-owner output is listed for each owner", async () => {
      assert.deepEqual(await outputs(`public_key=${bob.publicKey}&spent=false`), [ref(shared, 0)]);
      assert.deepEqual(await outputs(`public_key=${carol.publicKey}`), [ref(shared, 0)]);
    });

    test("spent is lowercased first (spent=False works); an unknown key has []", async () => {
      assert.deepEqual(await outputs(`public_key=${alice.publicKey}&spent=False`), [ref(car, 0), ref(toBob, 1)]);
      assert.deepEqual(await outputs(`public_key=${alice.publicKey}&spent=TRUE`), [ref(bike, 0)]);
      assert.deepEqual(await outputs(`public_key=${keypairOf("nobody").publicKey}`), []);
    });

    test("the answer has BigchainDB's key order: transaction_id, output_index", async () => {
      const response = await get(http.app, `/api/v1/outputs/?public_key=${carol.publicKey}`);
      expectJson(response, 200, `[{"transaction_id": "${shared["id"] as string}", "output_index": 0}]`);
    });

    test("a GET carrying Content-Type: application/json and no body still gets 200", async () => {
      const response = await get(http.app, `/api/v1/outputs?public_key=${alice.publicKey}`, {
        headers: { "content-type": "application/json" },
      });
      expectJson(response, 200);
    });

    const errors: [string, string][] = [
      ["", `public_key: ${missing}`],
      ["spent=true", `public_key: ${missing}`],
      ["public_key=abc", "public_key: Invalid base58 ed25519 key"],
      [`public_key=${alice.publicKey}0`, "public_key: Invalid base58 ed25519 key"],
      [`public_key=${"I".repeat(44)}`, "public_key: Invalid base58 ed25519 key"],
      [`public_key=${alice.publicKey}&spent=tru`, 'spent: Boolean value must be "true" or "false" (lowercase)'],
      // strict=True: unknown names are refused, after the named ones are read.
      [`public_key=${alice.publicKey}&foo=1`, "Unknown arguments: foo"],
      [`public_key=${alice.publicKey}&foo=1&bar=`, "Unknown arguments: foo, bar"],
      ["public_key=abc&foo=1", "public_key: Invalid base58 ed25519 key"],
    ];
    for (const [query, message] of errors) {
      test(`?${query} is 400: ${message}`, async () => {
        expectJson(await get(http.app, `/api/v1/outputs?${query}`), 400, errorBody(400, message));
      });
    }
  });

  describe("GET /api/v1/assets and /api/v1/metadata", () => {
    const search = async (url: string) => {
      const response = await get(http.app, url);
      expectJson(response, 200);
      return JSON.parse(response.body) as { id: string }[];
    };

    test("assets: {data, id} with the stored data, best match first, with or without slash", async () => {
      for (const path of ["/api/v1/assets?search=bicycle", "/api/v1/assets/?search=bicycle"]) {
        const hits = await search(path);
        assert.deepEqual(hits.map((hit) => hit.id).sort(), [bike["id"], car["id"]].sort());
        const bikeHit = hits.find((hit) => hit.id === bike["id"]);
        assert.deepEqual(bikeHit, { data: { kind: "bicycle", colour: "red" }, id: bike["id"] });
      }
    });

    test("assets: the answer is assembled from the stored text, keys in BigchainDB's order", async () => {
      const response = await get(http.app, "/api/v1/assets?search=car");
      expectJson(response, 200, `[{"data": ${writeJson((car["asset"] as JsonObject)["data"]!)}, "id": "${car["id"] as string}"}]`);
    });

    test("metadata: {id, metadata}", async () => {
      const response = await get(http.app, "/api/v1/metadata/?search=sold");
      expectJson(response, 200, `[{"id": "${toBob["id"] as string}", "metadata": {"note":"bicycle sold to bob"}}]`);
    });

    test("limit n returns at most n; 0 or absent means all; no match is []", async () => {
      assert.equal((await search("/api/v1/assets?search=red&limit=1")).length, 1);
      assert.equal((await search("/api/v1/assets?search=red&limit=0")).length, 2);
      assert.equal((await search("/api/v1/assets?search=red")).length, 2);
      assert.deepEqual(await search("/api/v1/assets?search=submarine"), []);
      assert.deepEqual(await search("/api/v1/metadata?search=submarine"), []);
    });

    test("a limit over searchLimitMax is 400 naming it; 0 and absent still give all, never cut", async () => {
      const app = await http.appWith({ searchLimitMax: 1 });
      for (const limit of ["", "&limit=0"]) {
        const response = await get(app, `/api/v1/assets?search=red${limit}`);
        assert.equal((JSON.parse(response.body) as unknown[]).length, 2, limit);
      }
      const message = "limit: 5 is over the maximum of 1; 0 gives all results";
      expectJson(await get(app, "/api/v1/assets?search=red&limit=5"), 400, errorBody(400, message));
    });

    test("a search that repeats its words past the word cap is 400, whatever the repeats", async () => {
      const phrase = encodeURIComponent('"lorem ipsum dolor sit amet"');
      const repeatedPhrase = Array(50).fill(phrase).join("+");
      const repeatedWord = encodeURIComponent(`"${Array(2_000).fill("lorem").join(" ")}"`);
      for (const search of [repeatedPhrase, repeatedWord]) {
        const response = await get(http.app, `/api/v1/assets?search=${search}`);
        const message = "text_search has more than 64 words (every word counts, repeats included)";
        expectJson(response, 400, errorBody(400, message));
      }
    });

    for (const resource of ["assets", "metadata"]) {
      const errors: [string, string][] = [
        ["search=", "text_search cannot be empty"],
        ["", `search: ${missing}`],
        ["limit=1", `search: ${missing}`],
        ["search=red&limit=abc", "limit: invalid literal for int() with base 10: 'abc'"],
        ["search=red&limit=", "limit: invalid literal for int() with base 10: ''"],
        ["search=red&limit=1.5", "limit: invalid literal for int() with base 10: '1.5'"],
        ["search=red&limit=99999999999999999999", "limit: 99999999999999999999 is over the maximum of 1000; 0 gives all results"],
        ...["-1", "+5", "-0"].map((limit): [string, string] => [
          `search=red&limit=${encodeURIComponent(limit)}`,
          `limit: must be a whole number from 0 to 1000 without a sign, 0 for all results (got '${limit}')`,
        ]),
      ];
      for (const [query, message] of errors) {
        test(`${resource} ?${query} is 400: ${message}`, async () => {
          expectJson(await get(http.app, `/api/v1/${resource}?${query}`), 400, errorBody(400, message));
        });
      }
    }
  });

  describe("a repeated query parameter is 400 naming it, on every route", () => {
    const id = "0".repeat(64);
    const cases: [string, string, string][] = [
      ["GET", "/api/v1/transactions?asset_id=a&asset_id=b", "asset_id"],
      ["GET", `/api/v1/transactions?asset_id=${id}&operation=CREATE&operation=CREATE`, "operation"],
      ["GET", `/api/v1/outputs?public_key=${alice.publicKey}&spent=true&spent=false`, "spent"],
      ["GET", "/api/v1/assets?search=red&search=car", "search"],
      ["GET", "/api/v1/metadata?search=red&limit=1&limit=2", "limit"],
      ["GET", "/api/v1/blocks?transaction_id=a&transaction_id=b", "transaction_id"],
      ["GET", `/api/v1/transactions/${id}?x=1&x=1`, "x"],
      ["GET", "/api/v1/validators?x=1&x=2", "x"],
      ["POST", "/api/v1/transactions?mode=sync&mode=commit", "mode"],
    ];
    for (const [method, url, name] of cases) {
      test(`${method} ${url}`, async () => {
        const payload = method === "POST" ? { payload: "{}" } : {};
        const response = await http.app.inject({ method: method as "GET" | "POST", url, ...payload });
        expectJson(response, 400, errorBody(400, `${name}: given more than once; give each parameter once`));
      });
    }
    test("an unknown path stays 404 whatever its query", async () => {
      expectJson(await get(http.app, "/api/v1/nothing?x=1&x=2"), 404);
    });
  });

  describe("GET /api/v1/blocks", () => {
    test("a block: its height and its transactions as stored, in block order", async () => {
      const height = heights.get(toBob["id"] as string)!;
      const response = await get(http.app, `/api/v1/blocks/${height}`);
      expectJson(response, 200, `{"height": ${height}, "transactions": [${writeJson(toBob)}]}`);
      expectJson(await get(http.app, `/api/v1/blocks/${height}/`), 200);
      expectJson(await get(http.app, `/api/v1/blocks/00${height}`), 200);
    });

    test("no block with that height: 404; a height that is not an integer: 400", async () => {
      for (const height of ["123", "123/", "0", "99999999999999999999999"]) {
        expectJson(await get(http.app, `/api/v1/blocks/${height}`), 404, errorBody(404, "Not found"));
      }
      // `latest` is a route of its own since compatibility.md #26 (blocks/latest); other words are not.
      for (const height of ["last", "-1", "1.5", "0x1"]) {
        const message = "block_height: Block height must be a non-negative integer";
        expectJson(await get(http.app, `/api/v1/blocks/${height}`), 400, errorBody(400, message));
      }
    });

    test("by transaction id: [height], or [] for any id that names nothing", async () => {
      const id = shared["id"] as string;
      expectJson(await get(http.app, `/api/v1/blocks?transaction_id=${id}`), 200, `[${heights.get(id)!}]`);
      expectJson(await get(http.app, `/api/v1/blocks/?transaction_id=${id}`), 200, `[${heights.get(id)!}]`);
      for (const other of ["", "123", "0".repeat(64), id.toUpperCase()]) {
        expectJson(await get(http.app, `/api/v1/blocks?transaction_id=${other}`), 200, "[]");
      }
    });

    const errors: [string, string][] = [
      ["/api/v1/blocks", `transaction_id: ${missing}`],
      ["/api/v1/blocks/", `transaction_id: ${missing}`],
      ["/api/v1/blocks?ts_id=123", `transaction_id: ${missing}`],
      ["/api/v1/blocks?transaction_id=123&foo=", "Unknown arguments: foo"],
      ["/api/v1/blocks?transaction_id=123&status=", "Unknown arguments: status"],
    ];
    for (const [url, message] of errors) {
      test(`${url} is 400: ${message}`, async () => {
        expectJson(await get(http.app, url), 400, errorBody(400, message));
      });
    }
  });

  describe("GET /api/v1/validators", () => {
    test("the spec's shape (docs/compatibility.md #1): pub_key {data: hex, type: ed25519}, power", async () => {
      for (const path of ["/api/v1/validators", "/api/v1/validators/"]) {
        const response = await get(http.app, path);
        expectJson(response, 200);
        assert.deepEqual(JSON.parse(response.body), [
          { pub_key: { data: testValidator.publicKey.toUpperCase(), type: "ed25519" }, power: testValidator.power },
        ]);
      }
    });
  });
});
