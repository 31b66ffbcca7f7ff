// The OpenAPI document (src/http/openapi/) held to the code: every operation the app serves is
// described and nothing else; each operation's query parameters are the names its route reads
// (src/http/queryNames.ts); every status the error catalog answers appears; and real answers of
// a real stack (SQLite file, solo engine) validate against the document's schemas. The reference
// page loads only files the node serves.
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { after, before, describe, test } from "node:test";
import { codes } from "../../../src/errors/codes.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { unansweredCodes } from "../../../src/http/openapi/openapiDocument.js";
import { queryNames } from "../../../src/http/queryNames.js";
import { routesOf } from "../../../src/http/routeList.js";
import type { LegacyGateway } from "../../../src/http/routes/legacy.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { assertDescribed, defaultDocument, documentAjv, documentedOperations, validatorAt } from "../../helpers/openapiConformance.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { commit, get, post, startHttpStack, type HttpStack } from "./helpers.js";

/**
 * Whether the document's schema of a query parameter admits `text`, read as a query value is
 * (an integer's digits are the integer).
 */
function parameterValidator(key: string, name: string): (text: string) => boolean {
  const operation = documentedOperations.find((op) => op.key === key);
  assert.ok(operation, key);
  const parameter = (operation.operation.parameters ?? []).find((p) => p.name === name && p.in === "query");
  assert.ok(parameter, `${key} has no query parameter ${name}`);
  const schema = (parameter as unknown as { schema: { type?: string } }).schema;
  const validate = documentAjv.compile(schema);
  return (text) => validate(schema.type === "integer" && /^-?[0-9]+$/.test(text) ? Number(text) : text);
}

/** `/x/{id}` as Fastify writes it: `/x/:id`; `{tile_path}` spans segments, Fastify's `*`. */
const routeOf = (path: string) => path.replace("{tile_path}", "*").replace(/\{(\w+)\}/g, ":$1");
const operations = documentedOperations;

const noLegacy: LegacyGateway = {
  post: () => Promise.reject(new Error("not in this test")),
  status: async () => null,
};

describe("the OpenAPI document", () => {
  let http: HttpStack;

  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
  });
  after(() => http.close());

  test("is OpenAPI 3.1 and every component schema compiles", () => {
    assert.equal(defaultDocument.openapi, "3.1.0");
    for (const name of Object.keys(defaultDocument.components.schemas)) {
      assert.ok(validatorAt("components", "schemas", name), name);
    }
  });

  test("describes every operation the app serves, and no other", async () => {
    const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, legacy: noLegacy });
    try {
      const served = new Set(routesOf(app));
      const described = new Set(operations.map((op) => `${op.method.toUpperCase()} ${routeOf(op.path)}`));
      assert.ok(served.size > 15);
      assert.deepEqual([...served].filter((r) => !described.has(r)), [], "served but not described");
      assert.deepEqual([...described].filter((r) => !served.has(r)), [], "described but not served");
    } finally {
      await app.close();
    }
  });

  test("each operation's query parameters are the names its route reads", () => {
    const named = queryNames as Record<string, readonly string[]>;
    for (const { key, operation } of operations) {
      const documented = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name).sort();
      assert.deepEqual(documented, [...(named[key] ?? [])].sort(), key);
    }
    for (const key of Object.keys(named)) assert.ok(operations.some((op) => op.key === key), `${key} is not described`);
  });

  test("every status the error catalog answers is described, and no other error status", () => {
    const documented = new Set(operations.flatMap((op) => Object.keys(op.operation.responses)).map(Number));
    const unanswered = new Set<string>(unansweredCodes);
    const answered = new Set(Object.entries(codes).filter(([code]) => !unanswered.has(code)).map(([, spec]) => spec.status as number));
    for (const status of answered) assert.ok(documented.has(status), `catalog status ${status} is not described`);
    for (const status of documented) {
      assert.ok(status < 400 || answered.has(status), `described status ${status} is in no catalog code`);
    }
  });

  const conforms = (key: string, response: LightMyRequestResponse) =>
    assertDescribed(key, { status: response.statusCode, contentType: String(response.headers["content-type"]), body: response.body });

  test("its validators refuse what the node does not write", () => {
    const at = validatorAt;
    const root = at("paths", "/", "get", "responses", "200", "content", "application/json", "schema");
    assert.equal(root({}), false);
    const outputs = at("paths", "/api/v1/outputs", "get", "responses", "200", "content", "application/json", "schema");
    assert.equal(outputs([{ transaction_id: "a".repeat(64), output_index: 0 }]), true);
    assert.equal(outputs([{ transaction_id: "a".repeat(64), output_index: 0, amount: 5 }]), false);
    const error = at("paths", "/api/v1/outputs", "get", "responses", "400", "content", "application/json", "schema");
    assert.equal(error({ message: "x", status: 400, extra: 1 }), false);
  });

  test("real answers validate against it, successes and refusals", async () => {
    const alice = keypairOf("openapi-alice");
    const tx = create(alice, 5n, { openapi: "word" });
    await commit(http.app, tx);
    const moved: JsonObject = transfer([{ tx, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 5n }]);
    const txId = tx["id"] as string;
    const key = alice.publicKey;
    const app = http.app;
    const gets: [string, string][] = [
      ["GET /", "/"],
      ["GET /api/v1", "/api/v1"],
      ["GET /api/v1/transactions/{transaction_id}", `/api/v1/transactions/${txId}`],
      ["GET /api/v1/transactions/{transaction_id}", `/api/v1/transactions/${"0".repeat(64)}`],
      ["GET /api/v1/transactions", `/api/v1/transactions?asset_id=${txId}`],
      ["GET /api/v1/transactions", `/api/v1/transactions?asset_id=${txId}&limit=1`],
      ["GET /api/v1/transactions", "/api/v1/transactions"],
      ["GET /api/v1/outputs", `/api/v1/outputs?public_key=${key}`],
      ["GET /api/v1/outputs", `/api/v1/outputs?public_key=${key}&include=amount,asset_id&limit=1`],
      ["GET /api/v1/outputs", `/api/v1/outputs?public_key=${key}&include=x`],
      ["GET /api/v1/balances", `/api/v1/balances?public_key=${key}`],
      ["GET /api/v1/balances", "/api/v1/balances?public_key=nokey"],
      ["GET /api/v1/assets", "/api/v1/assets?search=word"],
      ["GET /api/v1/assets", "/api/v1/assets?data.openapi=word&limit=1"],
      ["GET /api/v1/assets", "/api/v1/assets?search=word&limit=-1"],
      ["GET /api/v1/metadata", "/api/v1/metadata?search=word"],
      ["GET /api/v1/validators", "/api/v1/validators"],
      ["GET /api/v1/blocks/latest", "/api/v1/blocks/latest"],
      ["GET /api/v1/blocks/{block_height}", "/api/v1/blocks/1"],
      ["GET /api/v1/blocks/{block_height}", "/api/v1/blocks/999999"],
      ["GET /api/v1/blocks/{block_height}", "/api/v1/blocks/x"],
      ["GET /api/v1/blocks", `/api/v1/blocks?transaction_id=${txId}`],
      ["GET /api/v1/evidence", "/api/v1/evidence"],
      ["GET /api/v1/evidence", "/api/v1/evidence?height=1&limit=1"],
      ["GET /api/v1/evidence", "/api/v1/evidence?height=0"],
      ["GET /api/v1/elections/{election_id}", `/api/v1/elections/${txId}`],
      ["GET /api/v1/elections/{election_id}", `/api/v1/elections/${txId}?x=1`],
      ["GET /api/v1/openapi.json", "/api/v1/openapi.json"],
      ["GET /api/v1/docs", "/api/v1/docs"],
      ["GET /api/v1/docs/{asset}", "/api/v1/docs/swagger-ui.css"],
      ["GET /api/v1/docs/{asset}", "/api/v1/docs/nothing.js"],
      ["GET /explorer", "/explorer/"],
      ["GET /explorer/{asset}", "/explorer/nothing.js"],
      ["GET /api/v1/checkpoint", "/api/v1/checkpoint"],
      ["GET /api/v1/checkpoint", "/api/v1/checkpoint?size=1"],
      ["GET /api/v1/checkpoint", "/api/v1/checkpoint?size=999"],
      ["GET /api/v1/checkpoint", "/api/v1/checkpoint?size=x"],
      ["GET /api/v1/checkpoint/key", "/api/v1/checkpoint/key"],
      ["GET /api/v1/tlog/checkpoint", "/api/v1/tlog/checkpoint"],
      ["GET /api/v1/witness/key", "/api/v1/witness/key"],
      ["GET /api/v1/tlog/tile/{tile_path}", "/api/v1/tlog/tile/0/000.p/1"],
      ["GET /api/v1/tlog/tile/{tile_path}", "/api/v1/tlog/tile/entries/000.p/1"],
      ["GET /api/v1/tlog/tile/{tile_path}", "/api/v1/tlog/tile/0/000"],
      ["GET /healthz", "/healthz"],
      ["GET /readyz", "/readyz"],
    ];
    for (const [key, url] of gets) conforms(key, await get(app, url));
    conforms("POST /api/v1/transactions", await post(app, moved, "sync"));
    conforms("POST /api/v1/transactions", await post(app, moved, "sync"));
    conforms("POST /api/v1/transactions", await post(app, "{not json"));
    conforms("POST /api/v1/transactions", await post(app, moved, "never"));
    conforms("POST /api/v1/witness/add-checkpoint", await app.inject({ method: "POST", url: "/api/v1/witness/add-checkpoint", payload: "old 0\n" }));
  });

  // Issue 36, finding 14: the document allowed requests the node refuses (an empty search, a
  // key without its pattern, from=0, a limit past the maximum, ...). Each parameter's schema
  // now admits exactly the values its route accepts: checked here value by value, both ways.
  test("each parameter's schema admits what its route accepts and nothing it refuses", async () => {
    const alice = keypairOf("openapi-parameters");
    const tx = create(alice, 2n, { parameters: "word" });
    await commit(http.app, tx);
    const id = tx["id"] as string;
    const key = alice.publicKey;
    const base: Record<string, string> = {
      "GET /api/v1/transactions": `asset_id=${id}`,
      "GET /api/v1/outputs": `public_key=${key}`,
      "GET /api/v1/balances": `public_key=${key}`,
      "GET /api/v1/assets": "search=word",
      "GET /api/v1/metadata": "search=word",
      "GET /api/v1/blocks": `transaction_id=${id}`,
      "GET /api/v1/proofs/consistency": "from=1",
    };
    const limits = { accepted: ["0", "1", "1000"], refused: ["", "-1", "+1", "1001", "1e2", "x", "1".repeat(30)] };
    // `refused` are answered 400; `absent`, which the document refuses too, 404 (no block has them).
    const cases: { key: string; name: string; accepted: string[]; refused: string[]; absent?: string[] }[] = [
      { key: "GET /api/v1/transactions", name: "asset_id", accepted: [id, id.toUpperCase()], refused: ["", "x", id.slice(1)] },
      { key: "GET /api/v1/transactions", name: "operation", accepted: ["CREATE", "transfer", "TRANſFER"], refused: ["", "MINT", "CREATE "] },
      { key: "GET /api/v1/transactions", name: "last_tx", accepted: ["true", "False"], refused: ["", "1", "yes"] },
      { key: "GET /api/v1/transactions", name: "limit", ...limits },
      { key: "GET /api/v1/outputs", name: "public_key", accepted: [key], refused: ["", "nokey", `${key}0`, "0".repeat(44)] },
      { key: "GET /api/v1/outputs", name: "spent", accepted: ["TRUE", "false"], refused: ["", "no"] },
      { key: "GET /api/v1/outputs", name: "include", accepted: ["amount", "asset_id", "asset_id,amount"], refused: ["", "x", "amount,amount", "amount,"] },
      { key: "GET /api/v1/outputs", name: "cursor", accepted: [], refused: ["", "a".repeat(257), "a+b"] },
      { key: "GET /api/v1/balances", name: "public_key", accepted: [key], refused: ["", "nokey"] },
      { key: "GET /api/v1/balances", name: "asset_id", accepted: [id], refused: ["", "x"] },
      { key: "GET /api/v1/balances", name: "limit", ...limits },
      { key: "GET /api/v1/assets", name: "search", accepted: ["word", " "], refused: [""] },
      { key: "GET /api/v1/assets", name: "limit", ...limits },
      { key: "GET /api/v1/metadata", name: "search", accepted: ["word"], refused: [""] },
      { key: "GET /api/v1/blocks", name: "transaction_id", accepted: ["", "x", id], refused: [] },
      { key: "GET /api/v1/blocks", name: "cursor", accepted: [], refused: ["", "abc"] },
      { key: "GET /api/v1/blocks", name: "limit", ...limits },
      { key: "GET /api/v1/proofs/consistency", name: "from", accepted: ["1"], refused: ["", "0", "-1", "x", "1".repeat(21)], absent: ["9007199254740992"] },
      { key: "GET /api/v1/proofs/consistency", name: "to", accepted: ["1"], refused: ["", "0", "x"] },
      { key: "GET /api/v1/evidence", name: "height", accepted: ["1", "9007199254740991"], refused: ["", "0", "-1", "x", "9007199254740992", "1".repeat(21)] },
      { key: "GET /api/v1/evidence", name: "limit", ...limits },
      { key: "GET /api/v1/checkpoint", name: "size", accepted: ["0", "1", "9007199254740991"], refused: ["", "-1", "01", "x", "1".repeat(17)] },
      { key: "GET /api/v1/evidence", name: "cursor", accepted: [], refused: ["", "a".repeat(257), "a+b"] },
      { key: "POST /api/v1/transactions", name: "mode", accepted: [], refused: ["", "Commit", "never"] },
    ];
    for (const { key: op, name, accepted, refused, absent = [] } of cases) {
      const admits = parameterValidator(op, name);
      const path = op.split(" ")[1]!;
      for (const value of [...accepted, ...refused, ...absent]) {
        const ok = accepted.includes(value);
        assert.equal(admits(value), ok, `${op} ${name}=${JSON.stringify(value)}: the document should ${ok ? "admit" : "refuse"} it`);
        if (op.startsWith("POST")) continue; // the POST's mode is refused before its body is read (unit/http tests)
        const params = new URLSearchParams(base[op] ?? "");
        params.set(name, value);
        const status = (await get(http.app, `${path}?${params.toString()}`)).statusCode;
        const expected = absent.includes(value) ? status === 404 : (status === 400) === !ok;
        assert.ok(expected, `${op} ${name}=${JSON.stringify(value)}: the node answered ${status}`);
      }
    }
  });

  test("it describes the node as configured: limit's maximum, the explorer on or off", async () => {
    const app = await http.appWith({ searchLimitMax: 7, explorer: false });
    const document = JSON.parse((await get(app, "/api/v1/openapi.json")).body) as { paths: Record<string, { get?: { parameters: { name: string; schema: { maximum?: number } }[] } }> };
    const maxima = Object.values(document.paths).flatMap((p) => p.get?.parameters ?? []).filter((p) => p.name === "limit").map((p) => p.schema.maximum);
    assert.ok(maxima.length >= 5);
    assert.deepEqual(new Set(maxima), new Set([7]));
    assert.equal((await get(app, "/api/v1/assets?search=word&limit=8")).statusCode, 400);
    assert.equal((await get(app, "/api/v1/assets?search=word&limit=7")).statusCode, 200);
    assert.deepEqual(Object.keys(document.paths).filter((p) => p.startsWith("/explorer")), []);
    assert.equal((await get(app, "/explorer/")).statusCode, 404);
  });

  test("the reference page loads only what the node serves", async () => {
    const page = await get(http.app, "/api/v1/docs/");
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers["content-type"]), /^text\/html/);
    const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length >= 3, page.body);
    for (const ref of refs) {
      assert.ok(ref.startsWith("/api/v1/docs/"), `${ref} is not the node's`);
      const file = await get(http.app, ref);
      assert.equal(file.statusCode, 200, ref);
      assert.ok(file.rawPayload.length > 0, ref);
    }
    const starter = await get(http.app, "/api/v1/docs/ledgerd-docs.js");
    assert.match(starter.body, /url: "\/api\/v1\/openapi\.json"/);
  });
});
