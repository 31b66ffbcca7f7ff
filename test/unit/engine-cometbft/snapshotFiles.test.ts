// The snapshot files' writes (snapshotFiles.ts) run off the event loop, so a node's commits go on
// while it takes a snapshot (issue #39): nothing is written or removed in the caller's turn, and
// each step is done when its promise resolves. Real files in a temporary folder.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SnapshotFiles } from "../../../src/engine/cometbft/snapshotFiles.js";
import { chunkHash, snapshotKind, type SnapshotMetadata } from "../../../src/ledger/snapshotFormat.js";

const chunk = Buffer.from("chunk bytes");
const metadataOf = (height: number): SnapshotMetadata => ({
  format: snapshotKind,
  chain_id: "files",
  commitment: "v1",
  app_version: "1",
  rule_heights: {},
  height,
  app_hash: "ab".repeat(32),
  txs: 1,
  validators: [{ publicKey: "cd".repeat(32), power: 10 }],
  chunks: [chunkHash(chunk)],
});

describe("taking a snapshot's files", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-snapshot-files-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("writes, makes whole, abandons and prunes asynchronously: nothing changes in the caller's turn", async () => {
    const files = new SnapshotFiles(dir);
    for (const height of [4, 8]) {
      const opening = files.writer(height);
      assert.equal(existsSync(join(dir, `${height}.partial`)), false, "the partial folder is made off the loop");
      const writer = await opening;
      await writer.putChunk(0, chunk);
      const finishing = writer.finish(metadataOf(height));
      assert.equal(existsSync(join(dir, String(height))), false, "made whole off the loop");
      await finishing;
    }
    assert.deepEqual((await files.list()).map((kept) => kept.height), [8, 4]);
    const pruning = files.prune(1);
    assert.ok(existsSync(join(dir, "4")), "removed off the loop");
    await pruning;
    assert.deepEqual(await files.heights(), [8]);
    const abandoned = await files.writer(12);
    await abandoned.putChunk(0, chunk);
    const abandoning = abandoned.abandon();
    assert.ok(existsSync(join(dir, "12.partial")));
    await abandoning;
    assert.deepEqual(readdirSync(dir), ["8"]);
  });
});
