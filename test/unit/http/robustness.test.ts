// Bad input never gets a 500 (the guide's rule): seeded random mutations of signed transactions
// (v2.0 in every mode, and both legacy variants), and random parameters on every read endpoint,
// against the real stack.
// Every answer below 500 is JSON in the error shape of docs/compatibility.md #2 when it is a 4xx,
// and what was committed before stays readable.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { LegacyService } from "../../../src/node/legacyService.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { clientLegacyCreate, legacyCreate, legacyTransfer } from "../../helpers/legacyFactory.js";
import { Random } from "../../helpers/random.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { commit, get, startHttpStack, type HttpStack } from "./helpers.js";

const alice = keypairOf("robust alice");
const bob = keypairOf("robust bob");

let http: HttpStack;
/** The same stack's API with the earlier interface variants mounted, as `ledgerd start` serves it. */
let legacyApp: FastifyInstance;
let created: JsonObject;
let spend: JsonObject;

before(async () => {
  http = await startHttpStack();
  const { engine, ledger, store } = http.stack;
  const signer = keypairOf("robust node");
  const legacy = new LegacyService({ engine, ledger, store, signer, now: () => Date.now(), uuid: randomUUID });
  legacyApp = await buildHttpApp({}, { broadcaster: engine, store, legacy });
  created = create(alice, 5n, { robust: true, nested: { list: [1, "two", 3.5] } });
  await commit(http.app, created);
  spend = transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 5n }]);
});

after(async () => {
  await legacyApp.close();
  await http.close();
});

/** A 4xx is a JSON error body `{message, status}`; nothing is 5xx. */
function assertHandled(response: LightMyRequestResponse, what: string): void {
  assert.ok(response.statusCode < 500, `${what}: ${response.statusCode} ${response.body.slice(0, 300)}`);
  assert.match(String(response.headers["content-type"]), /^application\/json/, what);
  if (response.statusCode >= 400) {
    const body = JSON.parse(response.body) as { message?: unknown; status?: unknown };
    assert.equal(body.status, response.statusCode, what);
    assert.equal(typeof body.message, "string", what);
  }
}

/** A GET over a socket with the path exactly as given, as `assertHandled` reads an answer. */
function rawGet(address: string, path: string): Promise<LightMyRequestResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${address}${path.startsWith("/") ? "" : "/"}`, { path }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body } as LightMyRequestResponse);
      });
    });
    request.on("error", reject);
    request.end();
  });
}

/** JSON tokens that make type confusion: wrong kinds, edge numbers, deep or odd strings. */
const oddValues = [
  "null", "true", "0", "-0", "1.0", "1e400", "-1", "18446744073709551616", "9007199254740993",
  '""', '"\\ud800"', '"\\u0000"', "[]", "{}", "[[[[[[[[[[]]]]]]]]]]", '{"__proto__":{}}',
  '"ni:///sha-256;x?fpt=ed25519-sha-256&cost=1"', `"${"z".repeat(5000)}"`,
];

/** One random change of a JSON text: a byte, a cut, a repeat, or a value swapped for an odd one. */
function mutate(random: Random, text: string): string {
  const at = random.int(text.length);
  switch (random.int(6)) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(random.int(128)) + text.slice(at + 1);
    case 1:
      return text.slice(0, at);
    case 2:
      return text.slice(0, at) + text.slice(at, at + random.int(40)) + text.slice(at);
    case 3:
      return text.slice(0, at) + text.slice(at + 1 + random.int(20));
    case 4:
      return text.slice(0, at) + random.text(8) + text.slice(at);
    default: {
      // Replace the value after a random `":` with an odd one.
      const colon = text.indexOf('":', at);
      if (colon < 0) return `${text}${random.pick(oddValues)}`;
      const start = colon + 2;
      let end = start;
      let depth = 0;
      for (; end < text.length; end++) {
        const c = text[end];
        if (c === "[" || c === "{") depth++;
        else if (c === "]" || c === "}") {
          if (depth === 0) break;
          depth--;
        } else if (c === "," && depth === 0) break;
        else if (c === '"') end = skipString(text, end);
      }
      return text.slice(0, start) + random.pick(oddValues) + text.slice(end);
    }
  }
}

function skipString(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

describe("random bad input over HTTP", () => {
  test("1,500 mutated CREATEs and TRANSFERs, in every mode, get a 2xx or a JSON 4xx", async () => {
    const random = new Random(20261122);
    const texts = [writeJson(created), writeJson(spend), writeJson(create(bob, 2n, { other: "asset" }))];
    const modes = [undefined, "async", "sync", "commit", "", "COMMIT", "x", "async&mode=sync"];
    const statuses = new Map<number, number>();
    for (let n = 0; n < 1_500; n++) {
      let text = random.pick(texts);
      for (let k = 1 + random.int(3); k > 0; k--) text = mutate(random, text);
      const mode = random.pick(modes);
      const url = mode === undefined ? "/api/v1/transactions" : `/api/v1/transactions?mode=${mode}`;
      const response = await http.app.inject({ method: "POST", url, payload: text, headers: { "content-type": "application/json" } });
      assertHandled(response, `case ${n}: ${text.slice(0, 200)}`);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
    }
    assert.ok((statuses.get(400) ?? 0) > 1_000, `statuses ${JSON.stringify([...statuses])}`);
  });

  test("800 mutated legacy transactions (variants A and B) get a 2xx or a JSON 4xx", async () => {
    const random = new Random(6);
    const texts = (["A", "B"] as const).flatMap((variant) => [
      writeJson(clientLegacyCreate(variant, [alice.publicKey], { robust: variant })),
      writeJson(legacyTransfer(variant, [{ tx: legacyCreate(variant, alice, [alice.publicKey]), cid: 0 }], [bob.publicKey], [alice])),
    ]);
    let refused = 0;
    for (let n = 0; n < 800; n++) {
      let text = random.pick(texts);
      for (let k = 1 + random.int(3); k > 0; k--) text = mutate(random, text);
      const response = await legacyApp.inject({ method: "POST", url: "/transactions/", payload: text });
      assertHandled(response, `case ${n}: ${text.slice(0, 200)}`);
      if (response.statusCode === 400) refused++;
    }
    assert.ok(refused > 500, `only ${refused} answers were 400`);
  });

  test("random parameters on every read endpoint get a 2xx or a JSON 4xx", async () => {
    const random = new Random(11);
    const junk = (): string => {
      const pool = [
        "", "0", "-1", "1.5", "1e9", "99999999999999999999", "true", "%ZZ", "%00", "%F0%9F%94%91", "%", "a%20b",
        "x".repeat(3000), alice.publicKey, String(created["id"]), "null", "[]", "{}", "'", "\\", "../..",
      ];
      return random.next() < 0.6 ? random.pick(pool) : encodeURIComponent(random.text(30));
    };
    const paths = [
      () => `/api/v1/transactions/${junk()}`,
      () => `/api/v1/transactions?asset_id=${junk()}&operation=${junk()}&last_tx=${junk()}`,
      () => `/api/v1/outputs?public_key=${junk()}&spent=${junk()}`,
      () => `/api/v1/assets?search=${junk()}&limit=${junk()}`,
      () => `/api/v1/metadata/?search=${junk()}&limit=${junk()}`,
      () => `/api/v1/blocks/${junk()}`,
      () => `/api/v1/blocks?transaction_id=${junk()}`,
      () => `/api/v1/validators?${junk()}=${junk()}`,
      () => `/api/v1/${junk()}`,
      () => `/transactions/${junk()}/status`,
      () => `/transactions/${junk()}`,
      () => `/${junk()}?${junk()}`,
    ];
    // A real socket: `inject` refuses some of these paths itself (`Invalid URL`), a server may not.
    const address = await legacyApp.listen({ host: "127.0.0.1", port: 0 });
    let refused = 0;
    for (let n = 0; n < 1_000; n++) {
      const url = random.pick(paths)();
      const response = await rawGet(address, url);
      assertHandled(response, `GET ${url.slice(0, 200)}`);
      if (response.statusCode === 400) refused++;
    }
    // Parameters were checked, not only paths missed (about 400 of each, then 200s).
    assert.ok(refused > 200, `only ${refused} answers were 400`);
  });

  test("what was committed before is still there, and a valid spend still commits", async () => {
    const read = await get(http.app, `/api/v1/transactions/${String(created["id"])}`);
    assert.equal(read.statusCode, 200);
    assert.equal(read.body, writeJson(created));
    // The spend may have gone through already, unchanged by a mutation that kept it valid.
    const again = await http.app.inject({ method: "POST", url: "/api/v1/transactions?mode=commit", payload: writeJson(spend) });
    assertHandled(again, "the valid spend");
    if (again.statusCode !== 202) assert.match(again.body, /DuplicateTransaction|DoubleSpend/);
  });
});
