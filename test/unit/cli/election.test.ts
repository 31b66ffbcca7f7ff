// `ledgerd election new | approve | show` as a newcomer meets them (issue 37): only the options
// they use, `--url` to name the node, and a missing key, a key that is no validator's and an
// unreachable node each explained. The node is a real HTTP server on loopback (the socket is the
// subject: the command must reach the address it is given).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { runLedgerd, runLedgerdAsync, useTempDirs } from "./ledgerdProcess.js";

const tempDir = useTempDirs("ledgerd-election-");

const electionId = "ab".repeat(32);

interface FakeNode {
  readonly url: string;
  /** Each request's method and path, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port answering each GET path from `answers` (404 otherwise). */
async function fakeNode(answers: Readonly<Record<string, unknown>>): Promise<FakeNode> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const body = req.method === "GET" ? answers[req.url ?? ""] : undefined;
    res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { message: "Not found", status: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A loopback port nothing listens on: one the OS just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("ledgerd election", () => {
  it("offers only --data_dir, --config and --url (and new's own flags), not the node's fifty settings", () => {
    const own: Record<string, string[]> = { new: ["--public-key", "--power", "--node-id"], approve: [], show: [] };
    for (const [command, flags] of Object.entries(own)) {
      const help = runLedgerd(["election", command, "--help"]);
      assert.equal(help.status, 0, help.stderr);
      const listed = [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w.-]+)/gm)].map((match) => match[1]);
      assert.deepEqual(listed.sort(), [...flags, "--config", "--data_dir", "--help", "--url"].sort(), help.stdout);
    }
  });

  it("show asks the node --url names and prints its answer", async () => {
    const node = await fakeNode({ [`/api/v1/elections/${electionId}`]: { election_id: electionId, status: "ongoing" } });
    try {
      const shown = await runLedgerdAsync(["election", "show", electionId, "--url", `${node.url}/`]);
      assert.equal(shown.status, 0, shown.stderr);
      assert.deepEqual(node.requests, [`GET /api/v1/elections/${electionId}`]);
      assert.match(shown.stdout, /^status=ongoing$/m);
    } finally {
      await node.close();
    }
  });

  it("show names the address it tried and why it failed, from --url or the node's settings", async () => {
    const port = await closedPort();
    const tried = `http://127.0.0.1:${port}/api/v1/elections/${electionId}`;
    const byUrl = runLedgerd(["election", "show", electionId, "--url", `http://127.0.0.1:${port}`]);
    assert.equal(byUrl.status, 1);
    assert.match(byUrl.stderr, new RegExp(`cannot reach the node at ${tried}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    const dataDir = tempDir();
    assert.equal(runLedgerd(["init", "--data_dir", dataDir, "--server.bind", `127.0.0.1:${port}`]).status, 0);
    const bySettings = runLedgerd(["election", "show", electionId, "--data_dir", dataDir]);
    assert.equal(bySettings.status, 1);
    assert.match(bySettings.stderr, new RegExp(`cannot reach the node at ${tried}: connect ECONNREFUSED`));
  });

  it("approve without a key asks for a validator's data_dir and its node_key.json, not `ledgerd init`", () => {
    const dataDir = tempDir();
    const result = runLedgerd(["election", "approve", electionId, "--data_dir", dataDir]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, new RegExp(`no node_key\\.json in ${dataDir}: .*give --data_dir the data_dir of a validator's ledgerd`));
    assert.doesNotMatch(result.stderr, /run `ledgerd init`/);
  });

  it("new with a key that is no validator's says so and posts nothing", async () => {
    const dataDir = tempDir();
    assert.equal(runLedgerd(["init", "--data_dir", dataDir]).status, 0);
    const validators = [{ pub_key: { type: "ed25519-base16", data: "11".repeat(32) }, power: 1 }];
    const node = await fakeNode({ "/api/v1/validators": validators });
    try {
      const args = ["--public-key", Buffer.alloc(32, 2).toString("base64"), "--power", "1", "--node-id", "22".repeat(20)];
      const result = await runLedgerdAsync(["election", "new", "upsert-validator", ...args, "--data_dir", dataDir, "--url", node.url]);
      assert.equal(result.status, 1);
      assert.match(result.stderr, new RegExp(`the key in ${dataDir} \\(\\w+\\) is not a validator's at ${node.url}: only a validator proposes`));
      assert.deepEqual(node.requests, ["GET /api/v1/validators"]);
    } finally {
      await node.close();
    }
  });
});
