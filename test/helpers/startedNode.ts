// A node started as a user starts it (config → startNode) on free local ports and its own data
// folder, for an end-to-end suite: started before the suite's tests, closed and removed after.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { loadConfig } from "../../src/config/loadConfig.js";
import { startNode, type NodeHandle } from "../../src/node/startNode.js";
import { writeJson } from "../../src/json/writeJson.js";
import { create, keypairOf } from "./txFactory.js";

export interface StartedNode {
  readonly handle: NodeHandle;
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  readonly streamsUrl: string;
}

/** Registers the suite's before/after; the node, once started, from the returned function. */
export function useStartedNode(name: string, settings: Record<string, string> = {}): () => StartedNode {
  const dir = mkdtempSync(join(tmpdir(), `ledgerd-${name}-`));
  let node: StartedNode | undefined;
  before(async () => {
    const config = loadConfig({
      flags: { data_dir: dir, "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0", "log.level": "warn", "engine.block_interval_ms": "5", ...settings },
      env: {},
    });
    const handle = await startNode(config);
    node = { handle, baseUrl: `http://127.0.0.1:${handle.http.port}`, streamsUrl: handle.streamsUrl };
  });
  after(async () => {
    await node?.handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (node === undefined) throw new Error("the node is started before the suite's tests");
    return node;
  };
}

/** A node started in `dir` (its data folder, kept), on `port` (0: a free one); the caller closes it. */
export async function startNodeIn(dir: string, settings: Record<string, string> = {}, port = 0): Promise<StartedNode & { readonly port: number }> {
  const config = loadConfig({
    flags: { data_dir: dir, "server.bind": `127.0.0.1:${port}`, "wsserver.bind": "127.0.0.1:0", "log.level": "warn", "engine.block_interval_ms": "5", ...settings },
    env: {},
  });
  const handle = await startNode(config);
  return { handle, baseUrl: `http://127.0.0.1:${handle.http.port}`, streamsUrl: handle.streamsUrl, port: handle.http.port };
}

/** Commits `count` CREATEs of `owner` (metadata `{ i }` from `from`) through the node's API. */
export async function commitCreates(baseUrl: string, owner: string, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const response = await fetch(`${baseUrl}/api/v1/transactions?mode=commit`, { method: "POST", body: writeJson(create(keypairOf(owner), 1n, { i })), headers: { "content-type": "application/json" } });
    if (response.status !== 202) throw new Error(`POST a transaction: ${response.status} ${await response.text()}`);
  }
}
