// ledgerd/client held to the OpenAPI document (built by src/http/openapi/openapiDocument.ts):
// every route of the client's table is an operation of the document with the parameters the
// client sends; and every request each method makes, recorded, is such an operation, with
// values the document's schemas accept, so that a method cannot bypass the table.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { clientRoutes, LedgerdClient, type FetchLike } from "../../../src/client/client.js";
import { openapiDocument, type Parameter } from "../../../src/http/openapi/openapiDocument.js";
import { httpOptionsDefault } from "../../../src/http/options.js";

const document = openapiDocument(httpOptionsDefault);
const paths = document.paths as unknown as Record<string, Record<string, { parameters?: readonly Parameter[] }>>;
const ajv = new Ajv2020({ strict: false });

function operationOf(method: string, path: string): { parameters?: readonly Parameter[] } {
  const operation = paths[path]?.[method];
  assert.ok(operation !== undefined, `${method.toUpperCase()} ${path} is not in the OpenAPI document`);
  return operation;
}

test("every route of the client's table is in the OpenAPI document, with the parameters it sends", () => {
  for (const [name, route] of Object.entries(clientRoutes)) {
    const parameters = operationOf(route.method, route.path).parameters ?? [];
    for (const query of route.query) {
      assert.ok(parameters.some((p) => p.in === "query" && p.name === query), `${name}: ${route.path} takes no ${query}`);
    }
    const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    assert.deepEqual(inPath, parameters.filter((p) => p.in === "path").map((p) => p.name), `${name}: path parameters`);
    // A parameter the document requires, the client sends; but a query by field sends its
    // filters instead of `search`, as the document's description of `search` says.
    if ("fields" in route) assert.ok(parameters.some((p) => p.name === "search" && p.description.includes(` ${route.fields}.<path>=<value>`)), `${name}: the document tells of no ${route.fields}.<path> filters`);
    for (const p of parameters.filter((p) => p.in === "query" && p.required === true && !("fields" in route && p.name === "search"))) {
      assert.ok((route.query as readonly string[]).includes(p.name), `${name}: ${route.path} requires ${p.name}`);
    }
  }
});

/** The document's path whose template matches `pathname`. */
function templateOf(method: string, pathname: string): string {
  const found = Object.keys(paths).filter((template) => {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    return pattern.test(pathname) && paths[template]![method] !== undefined;
  });
  // A literal path (/api/v1/blocks/latest) wins over a template.
  assert.ok(found.length > 0, `${method.toUpperCase()} ${pathname} is not in the OpenAPI document`);
  return found.find((t) => !t.includes("{")) ?? found[0]!;
}

function checkRequest(method: string, url: URL): void {
  const parameters = operationOf(method, templateOf(method, url.pathname)).parameters ?? [];
  for (const [name, value] of url.searchParams) {
    const filter = /^(data|metadata)\./.exec(name);
    if (filter !== null) {
      assert.ok(parameters.some((p) => p.name === "search" && p.description.includes(` ${filter[1]}.<path>=<value>`)), `${url.pathname} takes no ${name}`);
      continue;
    }
    const parameter = parameters.find((p) => p.in === "query" && p.name === name);
    assert.ok(parameter !== undefined, `${url.pathname} takes no ${name}`);
    const schema = parameter.schema as { type?: string };
    const sent = schema.type === "integer" ? Number(value) : value;
    assert.ok(ajv.validate(parameter.schema, sent), `${url.pathname}: ${name}=${value} is not what the document accepts`);
  }
}

test("every request the client's methods make is an operation of the document, with values it accepts", async () => {
  const seen: string[] = [];
  const record: FetchLike = async (url, init) => {
    const method = (init?.method ?? "GET").toLowerCase();
    checkRequest(method, new URL(url));
    seen.push(`${method} ${new URL(url).pathname}`);
    return { status: 200, ok: true, headers: { get: () => null }, text: async () => "[]" };
  };
  const client = new LedgerdClient("http://node.test", { fetch: record });
  const id = "ab".repeat(32);
  const key = "9qLvREC54mhKYivr88VpckyVWdAFmifJpGjbvV5AiTRs";
  await client.getTransaction(id);
  await client.postTransaction({ id }, "commit");
  await client.listTransactions(id, "TRANSFER");
  for await (const _ of client.transactions(id, "CREATE", { pageSize: 10 })) void _;
  await client.getOutputs(key, false);
  for await (const _ of client.outputs(key, true, { include: ["amount", "asset_id"] })) void _;
  for await (const _ of client.balances(key, id)) void _;
  await client.searchAssets("gold", 5);
  await client.searchMetadata("gold", 5);
  for await (const _ of client.assets("gold")) void _;
  for await (const _ of client.metadata("gold")) void _;
  for await (const _ of client.assetsWhere({ "owner.name": "alice", serial: 42 })) void _;
  for await (const _ of client.metadataWhere({ shipped: true })) void _;
  await client.getBlock(3);
  await client.blocksOf(id);
  await client.getValidators();
  await client.getProof(id, 4);
  await client.getConsistency(1, 4);
  await client.getCheckpoint();
  await client.getCheckpoint(2);
  await client.getCheckpointKey();
  await client.getLatestBlock();
  await client.getElection(id);
  for await (const _ of client.evidence(2)) void _;
  await client.getValidatorChanges(1, 5);
  // Each route of the table was exercised.
  for (const route of Object.values(clientRoutes)) {
    const template = new RegExp(`^${route.method} ${route.path.replace(/\{\w+\}/g, "[^/]+")}$`);
    assert.ok(seen.some((s) => template.test(s)), `no method calls ${route.method} ${route.path}`);
  }
});

/** The operations the client leaves out, each with why: every other one it calls. */
const notInTheClient: Record<string, string> = {
  "get /": "discovery documents: the client knows the routes",
  "get /api/v1": "discovery documents: the client knows the routes",
  "get /api/v1/openapi.json": "the document itself",
  "get /api/v1/docs": "a page for people",
  "get /api/v1/docs/{asset}": "a page for people",
  "get /explorer": "a page for people",
  "get /explorer/{asset}": "a page for people",
  "get /healthz": "an operator's probe",
  "get /readyz": "an operator's probe",
  "get /api/v1/tlog/checkpoint": "the same checkpoint as /api/v1/checkpoint, for tlog-tiles clients",
  "get /api/v1/tlog/tile/{tile_path}": "tiles are for transparency-log clients and mirrors (ledgerd audit)",
  "get /api/v1/witness/key": "the witness protocol is between logs and witnesses",
  "post /api/v1/witness/add-checkpoint": "the witness protocol is between logs and witnesses",
  "post /transactions": "interface variants A and B, not the v2.0 model",
  "get /transactions/{tx_id}": "interface variants A and B, not the v2.0 model",
  "get /transactions/{tx_id}/status": "interface variants A and B, not the v2.0 model",
};

test("every operation of the document is called by the client or left out by name, with why", () => {
  const explorerDocument = openapiDocument({ ...httpOptionsDefault, explorer: true }).paths as unknown as Record<string, object>;
  const called = new Set(Object.values(clientRoutes).map((route) => `${route.method} ${route.path}`));
  for (const [path, methods] of Object.entries(explorerDocument)) {
    for (const method of Object.keys(methods)) {
      const key = `${method} ${path}`;
      assert.ok(called.has(key) !== (key in notInTheClient), `${key}: call it in the client or name it in notInTheClient (not both)`);
    }
  }
});
