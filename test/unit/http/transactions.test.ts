// POST and GET /api/v1/transactions on a real stack: modes, BigchainDB's rejection texts,
// bodies that are not transactions (docs/compatibility.md #3), and the list query's parameter
// rules.
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { makeCreate } from "../../../src/transaction/builders/makeCreate.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { computeTxId } from "../../../src/transaction/computeTxId.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { readJson } from "../../../src/json/readJson.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { loadVector } from "../../helpers/vectors.js";
import { commit, committed, errorBody, expectJson, get, post, startHttpStack, type HttpStack } from "./helpers.js";

const missing = "Missing required parameter in the JSON body or the post body or the query string";

/** A driver vector's transaction, as the model (the file's JSON holds no big numbers). */
function vectorTx(file: string): JsonObject {
  return readJson(JSON.stringify(loadVector(file).tx)) as JsonObject;
}

/** The transaction changed by `edit`, with its id recomputed (BigchainDB's tests do this). */
function edited(tx: JsonObject, edit: (copy: JsonObject) => void): JsonObject {
  const copy = readJson(writeJson(tx)) as JsonObject;
  edit(copy);
  copy["id"] = computeTxId(copy, "python");
  return copy;
}

describe("POST /api/v1/transactions: modes", () => {
  let http: HttpStack;
  // Blocks are cut 300 ms after a transaction waits, so async and sync answer before commit.
  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 300 });
  });
  after(() => http.close());

  for (const mode of [undefined, "async", "sync"]) {
    test(`mode ${mode ?? "(none)"}: 202 with the posted transaction, readable only once committed`, async () => {
      const tx = create(keypairOf("alice"), 1n, { mode: mode ?? "none" });
      const body = writeJson(tx);
      const done = committed(http.stack, tx.id as string);
      expectJson(await post(http.app, body, mode), 202, body);
      expectJson(await get(http.app, `/api/v1/transactions/${tx.id}`), 404, errorBody(404, "Not found"));
      await done;
      expectJson(await get(http.app, `/api/v1/transactions/${tx.id}`), 200, body);
    });
  }

  test("mode commit: 202 once committed, so the next GET finds it", async () => {
    const tx = create(keypairOf("alice"), 1n, { mode: "commit" });
    const body = writeJson(tx);
    expectJson(await post(http.app, body, "commit"), 202, body);
    expectJson(await get(http.app, `/api/v1/transactions/${tx.id}`), 200, body);
  });

  test("the 202 echoes the posted bytes, not a re-serialization (key order, spacing kept)", async () => {
    const tx = create(keypairOf("alice"), 1n, { order: "kept" });
    const spaced = JSON.stringify(JSON.parse(writeJson(tx)), null, 1);
    const response = await post(http.app, spaced, "commit");
    expectJson(response, 202);
    assert.deepEqual(JSON.parse(response.body), JSON.parse(writeJson(tx)));
  });

  const badModes = ["nope", "ASYNC", "Commit", ""];
  for (const mode of badModes) {
    test(`mode=${JSON.stringify(mode)} is 400 with BigchainDB's text`, async () => {
      const tx = create(keypairOf("alice"));
      const response = await post(http.app, tx, mode);
      expectJson(response, 400, errorBody(400, 'mode: Mode must be "async", "sync" or "commit"'));
    });
  }

  test("the mode is checked before the body", async () => {
    expectJson(await post(http.app, "not json", "nope"), 400, errorBody(400, 'mode: Mode must be "async", "sync" or "commit"'));
  });

  test("the Content-Type of the body is ignored (BigchainDB get_json(force=True))", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "garbage", "application/octet-stream"]) {
      const tx = create(keypairOf("alice"), 1n, { type });
      expectJson(await post(http.app, tx, "commit", { "content-type": type }), 202, writeJson(tx));
    }
  });

  test("unknown query parameters on POST are ignored", async () => {
    const tx = create(keypairOf("alice"), 1n, { unknown: true });
    const response = await http.app.inject({ method: "POST", url: "/api/v1/transactions/?mode=commit&foo=bar", payload: writeJson(tx) });
    expectJson(response, 202, writeJson(tx));
  });
});

describe("POST /api/v1/transactions: rejections", () => {
  let http: HttpStack;
  const alice = keypairOf("alice");
  const bob = keypairOf("bob");
  let created: JsonObject;
  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
    created = create(alice, 7n, { rejections: true });
    await commit(http.app, created);
  });
  after(() => http.close());

  const cases: { name: string; body: () => string; status: number; message: string | RegExp }[] = [
    {
      name: "a wrong id (vector 92): InvalidHash with BigchainDB's text",
      body: () => writeJson(vectorTx("92_invalid_wrong_id.json")),
      status: 400,
      message: "Invalid transaction (InvalidHash): The transaction's id 'd3e52589457ff01c8f1b056bbcf1a2d257c7cd41655e60a0279d6617ecadf440' isn't equal to the hash of its body, i.e. it's not valid.",
    },
    {
      name: "no id: InvalidHash",
      body: () => writeJson(edited(create(alice), (tx) => delete tx["id"])).replace(/,?"id":"[0-9a-f]{64}"/, ""),
      status: 400,
      message: "Invalid transaction (InvalidHash): No transaction id found!",
    },
    {
      name: "an empty object: InvalidHash, the id is checked first",
      body: () => "{}",
      status: 400,
      message: "Invalid transaction (InvalidHash): No transaction id found!",
    },
    {
      name: "a fulfillment of '0'*64: InvalidSignature, Fulfillment URI couldn't been parsed",
      body: () => writeJson(edited(create(alice), (tx) => {
        ((tx["inputs"] as JsonObject[])[0]!)["fulfillment"] = "0".repeat(64);
      })),
      status: 400,
      message: "Invalid transaction (InvalidSignature): Fulfillment URI couldn't been parsed",
    },
    {
      name: "no version, id recomputed: the schema message (the id is checked before the schema)",
      body: () => writeJson(edited(create(alice), (tx) => delete tx["version"])),
      status: 400,
      message: "Invalid transaction schema: 'version' is a required property",
    },
    {
      name: "a tampered amount with the id recomputed (vector 91): InvalidSignature",
      body: () => writeJson(vectorTx("91_invalid_amount_tampered_id_recomputed.json")),
      status: 400,
      message: "Invalid transaction (InvalidSignature): Transaction signature is invalid.",
    },
    {
      name: "a CREATE signed by another key than its owners_before (vector 9b, docs/compatibility.md #8)",
      body: () => writeJson(vectorTx("9b_quirk_create_signed_by_other_key.json")),
      status: 400,
      message: /^Invalid transaction \(InvalidSignature\): /,
    },
    {
      name: "a key with a dot in asset data: ValidationError",
      body: () => writeJson(create(alice, 1n, { "bad.key": 1 })),
      status: 400,
      message: /^Invalid transaction \(ValidationError\): Invalid key name/,
    },
    {
      name: "a TRANSFER of a missing output: InputDoesNotExist",
      body: () => writeJson(transfer([{ tx: create(alice), outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 1n }])),
      status: 400,
      message: /^Invalid transaction \(InputDoesNotExist\): input `[0-9a-f]{64}` doesn't exist$/,
    },
    {
      name: "an over-spend: AmountError with BigchainDB's text",
      body: () => writeJson(transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 8n }])),
      status: 400,
      message: "Invalid transaction (AmountError): The amount used in the inputs `7` needs to be same as the amount used in the outputs `8`",
    },
    {
      name: "a body that is not JSON: 400, never 500",
      body: () => "{not json",
      status: 400,
      message: /^Invalid JSON at byte \d+: /,
    },
    {
      name: "an empty body: 400",
      body: () => "",
      status: 400,
      message: /^Invalid JSON at byte 0: /,
    },
    {
      name: "a JSON array: 400",
      body: () => "[1, 2]",
      status: 400,
      message: "A transaction must be a JSON object",
    },
    {
      name: "a JSON string: 400",
      body: () => '"tx"',
      status: 400,
      message: "A transaction must be a JSON object",
    },
    {
      name: "nesting deeper than the limit: 400",
      body: () => "[".repeat(10_000) + "]".repeat(10_000),
      status: 400,
      message: /^JSON nests deeper than depthMax/,
    },
  ];

  for (const { name, body, status, message } of cases) {
    test(name, async () => {
      for (const mode of ["async", "commit"]) {
        const response = await post(http.app, body(), mode);
        expectJson(response, status);
        const parsed = JSON.parse(response.body) as { message: string; status: number };
        assert.deepEqual(Object.keys(parsed), ["message", "status"]);
        assert.equal(parsed.status, status);
        if (typeof message === "string") assert.equal(parsed.message, message);
        else assert.match(parsed.message, message);
      }
    });
  }

  // issue 36 #1: `String(id)` of an object threw (a posted object inherits no toString): 500.
  test("an id that is an object or a list: InvalidHash with its repr, CREATE or TRANSFER, every mode, both paths", async () => {
    const ids: [string, string][] = [
      ["{}", "{}"],
      ['{"a":1}', "{'a': 1}"],
      ["[{}]", "[{}]"],
      ['[[{"toString":[]}]]', "[[{'toString': []}]]"],
      ["null", "None"],
      ["true", "True"],
    ];
    const spend = transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 7n }]);
    for (const tx of [create(alice), spend]) {
      for (const [id, repr] of ids) {
        const body = writeJson(tx).replace(/"id":"[0-9a-f]{64}"/, `"id":${id}`);
        const answer = errorBody(400, `Invalid transaction (InvalidHash): The transaction's id '${repr}' isn't equal to the hash of its body, i.e. it's not valid.`);
        for (const mode of [undefined, "async", "sync", "commit"]) {
          // Through the POST lane, as a socket's request goes, and through Fastify's route.
          expectJson(await post(http.app, body, mode), 400, answer);
          const url = mode === undefined ? "/api/v1/transactions" : `/api/v1/transactions?mode=${mode}`;
          expectJson(await http.app.inject({ method: "POST", url, payload: body }), 400, answer);
        }
      }
    }
  });

  test("a body that is not UTF-8: 400", async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
    const response = await http.app.inject({ method: "POST", url: "/api/v1/transactions", payload: bytes });
    expectJson(response, 400, errorBody(400, "Invalid JSON at byte 6: the text is not valid UTF-8"));
  });

  test("a double spend: the second TRANSFER of an output is DoubleSpend, in every mode", async () => {
    const first = transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 7n }]);
    await commit(http.app, first);
    const second = transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 7n }]);
    for (const mode of ["async", "sync", "commit"]) {
      const message = `Invalid transaction (DoubleSpend): input \`${created["id"] as string}\` was already spent`;
      expectJson(await post(http.app, second, mode), 400, errorBody(400, message));
    }
  });

  test("the same CREATE twice: DuplicateTransaction", async () => {
    const response = await post(http.app, created, "commit");
    expectJson(response, 400);
    assert.match(JSON.parse(response.body).message, /^Invalid transaction \(DuplicateTransaction\): /);
  });

  test("a body over bodyBytesMax is 413 with the limit in the message", async () => {
    const app = await http.appWith({ bodyBytesMax: 1024 });
    const big = writeJson(create(alice, 1n, { pad: "x".repeat(2000) }));
    expectJson(await post(app, big), 413, errorBody(413, "The request body is larger than the limit of 1024 bytes"));
    // Also when the length is not announced up front (chunked).
    const chunked = await app.inject({
      method: "POST",
      url: "/api/v1/transactions",
      headers: { "transfer-encoding": "chunked" },
      payload: Readable.from([Buffer.from(big.slice(0, 600)), Buffer.from(big.slice(600))]),
    });
    expectJson(chunked, 413);
    const small = create(alice, 1n, { pad: "small" });
    expectJson(await post(app, small, "commit"), 202, writeJson(small));
  });
});

describe("POST /api/v1/transactions: key and language rules (tests/web, §5.2)", () => {
  let http: HttpStack;
  const alice = keypairOf("alice");
  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
  });
  after(() => http.close());

  const keyMessage = (key: string, where: string) =>
    `Invalid transaction (ValidationError): Invalid key name "${key}" in ${where} object. ` +
    'The key name cannot contain characters ".", "$" or null characters';
  const languageMessage = (value: string) =>
    `Invalid transaction (ValidationError): MongoDB does not support text search for the language "${value}". ` +
    'If you do not understand this error message then please rename key/field "language" to something else like "lang".';

  /** A signed CREATE with `value` as its asset data or as its metadata. */
  function withData(where: "asset" | "metadata", value: JsonObject, salt: number): JsonObject {
    const assetData = where === "asset" ? { ...value, salt } : { salt };
    const metadata = where === "metadata" ? value : null;
    const outputs = [{ publicKeys: [alice.publicKey], amount: 1n }];
    return signTx(makeCreate({ issuers: [alice.publicKey], outputs, assetData, metadata }), [alice]);
  }

  let salt = 0;
  for (const where of ["asset", "metadata"] as const) {
    for (const [data, key] of [
      [{ "bad.key": 1 }, "bad.key"],
      [{ "$bad.key": 1 }, "$bad.key"],
      [{ $badkey: 1 }, "$badkey"],
      [{ "bad\u0000key": 1 }, "bad\u0000key"],
      [{ good_key: { "bad.key": 1 } }, "bad.key"],
      [{ list: [{ "bad.key": 1 }] }, "bad.key"],
    ] as [JsonObject, string][]) {
      test(`${where} ${JSON.stringify(data)}: 400 with the exact message`, async () => {
        const tx = withData(where, data, salt++);
        expectJson(await post(http.app, tx, "commit"), 400, errorBody(400, keyMessage(key, where)));
      });
    }
    test(`${where} with good_key and a $ inside a key: 202`, async () => {
      const tx = withData(where, { good_key: { "mid$dle": 1 } }, salt++);
      expectJson(await post(http.app, tx, "commit"), 202, writeJson(tx));
    });
    for (const language of ["english", "en", "none", "danish"]) {
      test(`${where} language ${language}: 202, at the top and nested`, async () => {
        for (const data of [{ language }, { root: { language } }]) {
          const tx = withData(where, data, salt++);
          expectJson(await post(http.app, tx, "commit"), 202, writeJson(tx));
        }
      });
    }
    test(`${where} language any: 400 with the exact message, at the top and nested`, async () => {
      for (const data of [{ language: "any" }, { root: { language: "any" } }]) {
        const tx = withData(where, data, salt++);
        expectJson(await post(http.app, tx, "commit"), 400, errorBody(400, languageMessage("any")));
      }
    });
  }
});

describe("GET /api/v1/transactions", () => {
  let http: HttpStack;
  const alice = keypairOf("alice");
  const bob = keypairOf("bob");
  let asset: JsonObject;
  let move1: JsonObject;
  let move2: JsonObject;
  let assetId: string;
  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
    asset = create(alice, 2n, { list: "asset" });
    assetId = asset["id"] as string;
    move1 = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 2n }]);
    move2 = transfer([{ tx: move1, outputIndex: 0 }], [bob], [{ publicKeys: [alice.publicKey], amount: 2n }]);
    for (const tx of [asset, move1, move2, create(alice, 1n, { list: "other" })]) await commit(http.app, tx);
  });
  after(() => http.close());

  const list = (...txs: JsonObject[]) => txs.map((tx) => writeJson(tx));
  const parse = (body: string) => (JSON.parse(body) as unknown[]).map((tx) => JSON.stringify(tx));

  test("by id: the stored transaction as posted; 404 for unknown, non-hex and uppercase ids", async () => {
    expectJson(await get(http.app, `/api/v1/transactions/${assetId}`), 200, writeJson(asset));
    expectJson(await get(http.app, `/api/v1/transactions/${assetId}/`), 200, writeJson(asset));
    for (const id of ["123", "123/", "0".repeat(64), assetId.toUpperCase(), "zz", "%20", "x".repeat(500)]) {
      expectJson(await get(http.app, `/api/v1/transactions/${id}`), 404, errorBody(404, "Not found"));
    }
  });

  test("by asset: the CREATE and every TRANSFER, in commit order", async () => {
    const response = await get(http.app, `/api/v1/transactions?asset_id=${assetId}`);
    expectJson(response, 200);
    assert.deepEqual(parse(response.body), list(asset, move1, move2));
  });

  test("operation is uppercased, so any case works", async () => {
    for (const [operation, expected] of [["CREATE", [asset]], ["create", [asset]], ["Transfer", [move1, move2]]] as const) {
      const response = await get(http.app, `/api/v1/transactions?asset_id=${assetId}&operation=${operation}`);
      expectJson(response, 200);
      assert.deepEqual(parse(response.body), list(...expected), operation);
    }
  });

  test("last_tx: true gives the last one only, false all; lowercased first", async () => {
    for (const value of ["true", "TRUE", "True"]) {
      const response = await get(http.app, `/api/v1/transactions?asset_id=${assetId}&last_tx=${value}`);
      assert.deepEqual(parse(response.body), list(move2), value);
    }
    const all = await get(http.app, `/api/v1/transactions?asset_id=${assetId}&last_tx=false`);
    assert.deepEqual(parse(all.body), list(asset, move1, move2));
    const lastCreate = await get(http.app, `/api/v1/transactions?asset_id=${assetId}&last_tx=true&operation=CREATE`);
    assert.deepEqual(parse(lastCreate.body), list(asset));
  });

  test("asset_id is lowercased; an unknown asset is 200 []; unknown parameters are ignored", async () => {
    const upper = await get(http.app, `/api/v1/transactions/?asset_id=${assetId.toUpperCase()}&foo=bar`);
    assert.deepEqual(parse(upper.body), list(asset, move1, move2));
    expectJson(await get(http.app, `/api/v1/transactions?asset_id=${"0".repeat(64)}`), 200, "[]");
  });

  const errors: [string, string][] = [
    ["/api/v1/transactions", `asset_id: ${missing}`],
    ["/api/v1/transactions/", `asset_id: ${missing}`],
    ["/api/v1/transactions?operation=CREATE", `asset_id: ${missing}`],
    [`/api/v1/transactions?asset_id=${"a".repeat(63)}`, "asset_id: Invalid hash"],
    [`/api/v1/transactions?asset_id=${"g".repeat(64)}`, "asset_id: Invalid hash"],
    ["/api/v1/transactions?asset_id=", "asset_id: Invalid hash"],
    [`/api/v1/transactions?asset_id=${"a".repeat(64)}&operation=CEATE`, 'operation: Operation must be "CREATE" or "TRANSFER"'],
    // reqparse reads operation before asset_id.
    ["/api/v1/transactions?operation=CEATE", 'operation: Operation must be "CREATE" or "TRANSFER"'],
    [`/api/v1/transactions?asset_id=${"a".repeat(64)}&last_tx=tru`, 'last_tx: Boolean value must be "true" or "false" (lowercase)'],
    [`/api/v1/transactions?asset_id=${"a".repeat(64)}&last_tx=`, 'last_tx: Boolean value must be "true" or "false" (lowercase)'],
  ];
  for (const [url, message] of errors) {
    test(`${url} is 400: ${message}`, async () => {
      expectJson(await get(http.app, url), 400, errorBody(400, message));
    });
  }
});
