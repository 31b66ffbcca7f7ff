// A restore's first pass hashing ids on worker threads (src/ledger/snapshotIds.ts): the same ids,
// in order, as on one thread, and the same first refusal.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { idsOfLines, SnapshotIdThreads } from "../../../src/ledger/snapshotIds.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { create, keypairOf } from "../../helpers/txFactory.js";

const owner = keypairOf("snapshot-ids");
const lines = Array.from({ length: 48 }, (_, i) => JSON.stringify({ height: i + 1, app_hash: "", txs: [writeJson(create(owner, 1n)), writeJson(create(owner, 2n))] }));
const threads = new SnapshotIdThreads(2);
after(() => threads.close());

describe("a restore's ids on two threads", () => {
  it("gives every line's ids in order, as one thread does", async () => {
    const shares = await threads.ids(lines);
    assert.equal(shares.length, 2, "the lines were shared");
    assert.deepEqual({ lines: shares.flatMap((s) => s.lines), refused: null }, idsOfLines(lines));
    assert.equal(shares.flatMap((s) => s.lines).length, 48);
  });

  it("stops each share at its first refused line, keeping the lines before it", async () => {
    const tampered = JSON.parse(lines[40]!) as { txs: string[] };
    tampered.txs[1] = tampered.txs[1]!.replace('"amount":"2"', '"amount":"3"');
    const spoiled = [...lines.slice(0, 40), JSON.stringify(tampered), ...lines.slice(41)];
    const shares = await threads.ids(spoiled);
    assert.equal(shares[0]!.refused, null);
    assert.equal(shares[1]!.refused, "block 41: transaction 1 hashes to no id");
    assert.equal(shares.flatMap((s) => s.lines).length, 40);
    assert.deepEqual(idsOfLines(spoiled).refused, shares[1]!.refused);
  });
});
