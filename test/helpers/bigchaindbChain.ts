// For the tests of `ledgerd import --from-bigchaindb`: a tiny HTTP server that answers with a
// recorded BigchainDB's answers (test/vectors/bigchaindb-chain/answers.jsonl), and the check that
// an imported ledger holds BigchainDB's chain (every accepted transaction's JSON as BigchainDB
// serves it, each block's transactions at its height), read through a ledgerd read server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config/loadConfig.js";
import { isJsonObject, type JsonObject } from "../../src/json/jsonValue.js";
import { readJson } from "../../src/json/readJson.js";
import { serializeCanonical } from "../../src/json/serializeCanonical.js";
import { writeJson } from "../../src/json/writeJson.js";
import { createLogger } from "../../src/node/logger.js";
import { startReadServer } from "../../src/node/readServer.js";
import { computeTxId } from "../../src/transaction/computeTxId.js";

export interface Answer {
  readonly path: string;
  readonly status: number;
  readonly content_type: string | null;
  readonly body: string;
}

export const recordedAnswersPath = fileURLToPath(new URL("../vectors/bigchaindb-chain/answers.jsonl", import.meta.url));

export function recordedAnswers(): Map<string, Answer> {
  const lines = readFileSync(recordedAnswersPath, "utf8").trim().split("\n");
  return new Map(lines.map((line) => JSON.parse(line) as Answer).map((answer) => [answer.path, answer]));
}

/** The recorded chain's latest height: the last block path answered 200. */
export function recordedLatest(answers: ReadonlyMap<string, Answer>): number {
  let height = 0;
  while (answers.get(`/api/v1/blocks/${height + 1}`)?.status === 200) height++;
  return height;
}

export interface RecordedNode {
  readonly url: string;
  /** Every path asked, in order. */
  readonly asked: string[];
  /**
   * From this height on, blocks answer 503 once the import fetches blocks (asks block 1 a second
   * time, after its search of the latest height): a node that went away mid-import. null: never.
   */
  failBlocksFrom: number | null;
  /** Replaces what `/` answers (a server that is not BigchainDB). */
  root: Answer | null;
  close(): Promise<void>;
}

/** Serves `answers` as BigchainDB did: a block past the latest gets its recorded 404. */
export async function serveRecorded(answers: ReadonlyMap<string, Answer>): Promise<RecordedNode> {
  const latest = recordedLatest(answers);
  const past = answers.get(`/api/v1/blocks/${latest + 1}`)!;
  const html404 = answers.get("/api/v1/blocks/latest")!;
  const node: RecordedNode = {
    url: "",
    asked: [],
    failBlocksFrom: null,
    root: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    node.asked.push(path);
    const height = /^\/api\/v1\/blocks\/([0-9]+)$/.exec(path)?.[1];
    let answer = path === "/" && node.root !== null ? node.root : (answers.get(path) ?? html404);
    if (height !== undefined && Number(height) > latest) answer = past;
    const searched = node.asked.filter((asked) => asked === "/api/v1/blocks/1").length >= 2;
    if (height !== undefined && searched && node.failBlocksFrom !== null && Number(height) >= node.failBlocksFrom) {
      answer = { path, status: 503, content_type: "text/plain", body: "unavailable" };
    }
    response.writeHead(answer.status, { "content-type": answer.content_type ?? "text/plain" }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  Object.assign(node, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  return node;
}

/** What a BigchainDB node answered: a recorded one or a live one. */
export type BigchaindbGet = (path: string) => Promise<{ status: number; body: string }>;

/**
 * Checks the ledger in `dataDir` against BigchainDB's chain up to `to`: each block's accepted
 * transactions at the same height, in BigchainDB's order (a spend after what it spends), and
 * each one's JSON as ledgerd serves it equal to BigchainDB's answer for it, JSON separators
 * aside (and canonically equal, its id recomputed). `refused`: the ids the import refused.
 */
export async function checkImported(dataDir: string, to: number, get: BigchaindbGet, refused: ReadonlySet<string>): Promise<{ accepted: number }> {
  const config = loadConfig({ flags: { data_dir: dataDir, "server.bind": "127.0.0.1:0", "log.level": "silent" }, env: {} });
  const server = await startReadServer(config, { writerUrl: "", logger: createLogger("silent") });
  const ledgerd = `http://127.0.0.1:${server.address.port}`;
  let accepted = 0;
  try {
    for (let height = 1; height <= to; height++) {
      const theirs = await get(`/api/v1/blocks/${height}`);
      assert.equal(theirs.status, 200, `BigchainDB's block ${height}`);
      const ids = (JSON.parse(theirs.body) as { transactions: { id: string }[] }).transactions.map((tx) => tx.id).filter((id) => !refused.has(id));
      const ours = await fetch(`${ledgerd}/api/v1/blocks/${height}`);
      assert.equal(ours.status, 200, `ledgerd's block ${height}`);
      const ourIds = ((await ours.json()) as { transactions: { id: string }[] }).transactions.map((tx) => tx.id);
      assert.deepEqual([...ourIds].sort(), [...ids].sort(), `block ${height}'s transactions`);
      for (const id of ids) {
        await checkTransaction(id, get, ledgerd);
        accepted++;
      }
    }
    const past = await fetch(`${ledgerd}/api/v1/blocks/${to + 1}`);
    assert.equal(past.status, 404, "no block past BigchainDB's latest");
  } finally {
    await server.close();
  }
  return { accepted };
}

async function checkTransaction(id: string, get: BigchaindbGet, ledgerd: string): Promise<void> {
  const theirs = await get(`/api/v1/transactions/${id}`);
  assert.equal(theirs.status, 200, `BigchainDB's ${id}`);
  const ours = await fetch(`${ledgerd}/api/v1/transactions/${id}`);
  assert.equal(ours.status, 200, `ledgerd's ${id}`);
  const ourText = await ours.text();
  const theirValue = readJson(theirs.body.trim());
  const ourValue = readJson(ourText);
  // Byte for byte once BigchainDB's separators are made compact: same keys, order, escapes, numbers.
  assert.equal(ourText, writeJson(theirValue), `${id} as served`);
  assert.equal(serializeCanonical(ourValue, "python"), serializeCanonical(theirValue, "python"), `${id} canonically`);
  assert.ok(isJsonObject(ourValue));
  assert.equal(computeTxId(ourValue as JsonObject, "python"), id, `${id} recomputed`);
}
