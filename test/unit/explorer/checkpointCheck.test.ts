// The explorer's check of the node's checkpoint (explorer/src/checkpointCheck.ts), without a
// browser, against real solo nodes over real sockets: the first checkpoint is kept, a grown one
// is consistent with it (a proof from the node's tiles), a second node sharing the first's key
// and origin with other transactions is a split view for the same browser, a smaller one than
// kept a rollback; only what verified replaces what is kept.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { checkCheckpoint, seenKeyPrefix, type CheckpointStorage } from "../../../explorer/src/checkpointCheck.js";
import { createNodeKey } from "../../../src/node/nodeKey.js";
import { commitCreates, startNodeIn, type StartedNode } from "../../helpers/startedNode.js";

const origin = "ledgerd.invalid/ledgerd-solo";

function memoryStorage(): CheckpointStorage & { readonly items: Map<string, string> } {
  const items = new Map<string, string>();
  return { items, getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
}

describe("the explorer's checkpoint check", () => {
  const dirs = [mkdtempSync(join(tmpdir(), "ledgerd-seen-a-")), mkdtempSync(join(tmpdir(), "ledgerd-seen-b-"))];
  const nodes: StartedNode[] = [];
  after(async () => {
    for (const node of nodes) await node.handle.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("first, consistent, a split view across two nodes of one origin, a rollback", async () => {
    createNodeKey(dirs[0]!);
    cpSync(join(dirs[0]!, "node_key.json"), join(dirs[1]!, "node_key.json"));
    const a = await startNodeIn(dirs[0]!);
    const b = await startNodeIn(dirs[1]!);
    nodes.push(a, b);
    const storage = memoryStorage();
    await commitCreates(a.baseUrl, "seen-alice", 0, 3);
    const first = await checkCheckpoint(a.baseUrl, storage);
    assert.ok(first.ok);
    assert.deepEqual([first.checkpoint.origin, first.checkpoint.size, first.lastSeen], [origin, 3, { verdict: "first" }]);
    assert.deepEqual(first.cosignatures, []);

    await commitCreates(a.baseUrl, "seen-alice", 3, 2);
    const grown = await checkCheckpoint(a.baseUrl, storage);
    assert.ok(grown.ok);
    assert.deepEqual(grown.lastSeen, { verdict: "consistent", size: 3 });
    assert.equal(JSON.parse(storage.items.get(seenKeyPrefix + origin)!).size, 5);

    await commitCreates(b.baseUrl, "seen-bob", 0, 6);
    const other = await checkCheckpoint(b.baseUrl, storage);
    assert.ok(other.ok);
    assert.deepEqual(other.lastSeen, { verdict: "split_view", size: 5 });
    assert.equal(JSON.parse(storage.items.get(seenKeyPrefix + origin)!).size, 5, "a split view is not kept");

    storage.setItem(seenKeyPrefix + origin, JSON.stringify({ size: 9, root: grown.checkpoint.root }));
    const back = await checkCheckpoint(a.baseUrl, storage);
    assert.ok(back.ok);
    assert.deepEqual(back.lastSeen, { verdict: "rollback", size: 9 });
  });
});
