// The node as a user starts it, over real sockets: every answer of every described operation,
// successes and refusals, is one the OpenAPI document describes, and validates against it.
import { describe, test } from "node:test";
import { assertDescribed } from "../helpers/openapiConformance.js";
import { useStartedNode } from "../helpers/startedNode.js";
import { create, keypairOf, transfer } from "../helpers/txFactory.js";

describe("a started node's answers, against its OpenAPI document", () => {
  const node = useStartedNode("e2e-openapi");

  const described = async (key: string, url: string, init?: RequestInit) => {
    const response = await fetch(`${node().baseUrl}${url}`, init);
    const body = await response.text();
    assertDescribed(key, { status: response.status, contentType: response.headers.get("content-type") ?? "", body });
    return body;
  };
  const posting = (body: string) => ({ method: "POST", body, headers: { "content-type": "application/json" } });

  test("every operation, with the transactions of a real ledger", async () => {
    const alice = keypairOf("e2e-openapi");
    const tx = create(alice, 3n, { e2e: "openapi" });
    await described("POST /api/v1/transactions", "/api/v1/transactions?mode=commit", posting(JSON.stringify(tx)));
    const moved = transfer([{ tx, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 3n }]);
    await described("POST /api/v1/transactions", "/api/v1/transactions?mode=commit", posting(JSON.stringify(moved)));
    await described("POST /api/v1/transactions", "/api/v1/transactions?mode=commit", posting(JSON.stringify(moved)));
    await described("POST /api/v1/transactions", "/api/v1/transactions", posting("[1, 2"));
    const id = tx["id"] as string;
    const key = alice.publicKey;
    const gets: [string, string][] = [
      ["GET /", "/"],
      ["GET /api/v1", "/api/v1/"],
      ["GET /api/v1/transactions/{transaction_id}", `/api/v1/transactions/${id}`],
      ["GET /api/v1/transactions/{transaction_id}", "/api/v1/transactions/nothing"],
      ["GET /api/v1/transactions", `/api/v1/transactions?asset_id=${id}&limit=1`],
      ["GET /api/v1/transactions", `/api/v1/transactions?asset_id=${id}&last_tx=true`],
      ["GET /api/v1/outputs", `/api/v1/outputs?public_key=${key}&include=amount,asset_id`],
      ["GET /api/v1/outputs", `/api/v1/outputs?public_key=${key}&cursor=forged`],
      ["GET /api/v1/balances", `/api/v1/balances?public_key=${key}`],
      ["GET /api/v1/assets", "/api/v1/assets?search=openapi"],
      ["GET /api/v1/assets", "/api/v1/assets?data.e2e=openapi"],
      ["GET /api/v1/metadata", "/api/v1/metadata?search=openapi&limit=5"],
      ["GET /api/v1/validators", "/api/v1/validators"],
      ["GET /api/v1/blocks/latest", "/api/v1/blocks/latest"],
      ["GET /api/v1/blocks/{block_height}", "/api/v1/blocks/1"],
      ["GET /api/v1/blocks/{block_height}", "/api/v1/blocks/99999999"],
      ["GET /api/v1/blocks", `/api/v1/blocks?transaction_id=${id}`],
      ["GET /api/v1/openapi.json", "/api/v1/openapi.json"],
      ["GET /api/v1/docs", "/api/v1/docs/"],
      ["GET /api/v1/docs/{asset}", "/api/v1/docs/swagger-ui-bundle.js"],
      ["GET /healthz", "/healthz"],
      ["GET /readyz", "/readyz"],
      ["GET /api/v1/checkpoint", "/api/v1/checkpoint"],
      ["GET /api/v1/checkpoint", "/api/v1/checkpoint?size=1"],
      ["GET /api/v1/checkpoint/key", "/api/v1/checkpoint/key"],
      ["GET /api/v1/tlog/checkpoint", "/api/v1/tlog/checkpoint"],
      ["GET /api/v1/tlog/tile/{tile_path}", "/api/v1/tlog/tile/entries/000.p/1"],
      ["GET /api/v1/tlog/tile/{tile_path}", "/api/v1/tlog/tile/9/000"],
      ["GET /api/v1/witness/key", "/api/v1/witness/key"],
      ["GET /transactions/{tx_id}", `/transactions/${"a".repeat(64)}`],
      ["GET /transactions/{tx_id}/status", `/transactions/${"a".repeat(64)}/status`],
    ];
    for (const [operation, url] of gets) await described(operation, url);
    await described("POST /transactions", "/transactions", posting('{"not": "a legacy transaction"}'));
  });
});
