// The state-sync snapshot format (ledger/snapshotFormat.ts, docs/state-sync.md): chunks cut at
// a fixed size and read back into the same lines wherever the cuts fall; a chunk's hash and the
// snapshot's hash, which commits to the metadata and so to every chunk's hash; and the checks
// of untrusted metadata and lines, each refusal with its reason.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import {
  ChunkLines,
  chunkHash,
  encodeMetadata,
  readBlockLine,
  readMetadata,
  SnapshotChunker,
  snapshotChunkBytes,
  snapshotHash,
  type SnapshotMetadata,
} from "../../../src/ledger/snapshotFormat.js";

const metadata: SnapshotMetadata = {
  format: "ledgerd-snapshot",
  chain_id: "chain",
  commitment: "v1",
  app_version: "1",
  rule_heights: {},
  height: 3,
  app_hash: "ab".repeat(32),
  txs: 2,
  validators: [{ publicKey: "cd".repeat(32), power: 10 }],
  chunks: ["ef".repeat(32)],
};

async function chunksOf(lines: readonly string[]): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  const chunker = new SnapshotChunker(async (chunk) => void chunks.push(chunk));
  for (const line of lines) await chunker.add(line);
  assert.equal(await chunker.end(), chunks.length);
  return chunks;
}

describe("snapshot chunks", () => {
  it("cuts lines into chunks of snapshotChunkBytes (a line may run on into the next) and reads back the same lines", async () => {
    const long = "x".repeat(snapshotChunkBytes + 100);
    const lines = ["first", long, "third"];
    const chunks = await chunksOf(lines);
    // Each chunk is gzip: its lines' bytes inflate to the fixed size (the last, what is left).
    assert.deepEqual(chunks.map((c) => gunzipSync(c).length), [snapshotChunkBytes, 100 + 1 + 6 + 6]);
    assert.ok(chunks[0]!.length < snapshotChunkBytes / 100, "a run of one byte compresses");
    const reader = new ChunkLines();
    const read = chunks.flatMap((chunk) => reader.push(chunk) as string[]);
    assert.deepEqual(read, lines);
    assert.ok(reader.ended);
  });

  it("compresses a full chunk off the caller's turn, so the event loop goes on (a validator keeps committing)", async () => {
    const chunks: Buffer[] = [];
    const chunker = new SnapshotChunker(async (chunk) => void chunks.push(chunk));
    const filling = chunker.add("y".repeat(snapshotChunkBytes));
    // A compression inside the call would have handed the chunk over before it returned.
    assert.equal(chunks.length, 0);
    await filling;
    assert.equal(chunks.length, 1);
    assert.equal(gunzipSync(chunks[0]!).toString("utf8"), "y".repeat(snapshotChunkBytes));
  });

  it("reads the same lines however the bytes are cut, and says when the last cut is inside a line", () => {
    const text = Buffer.from("alpha\nβeta\n\ngamma\n", "utf8");
    for (let cut = 0; cut <= text.length; cut++) {
      const reader = new ChunkLines();
      const read = [...(reader.push(gzipSync(text.subarray(0, cut))) as string[]), ...(reader.push(gzipSync(text.subarray(cut))) as string[])];
      assert.deepEqual(read, ["alpha", "βeta", "", "gamma"], `cut at ${cut}`);
    }
    const unfinished = new ChunkLines();
    unfinished.push(gzipSync("a\nb"));
    assert.equal(unfinished.ended, false);
    // Not gzip, or inflating past a chunk's size: refused, never held.
    assert.match(new ChunkLines().push(Buffer.from("a\n")) as string, /not gzip data/);
    assert.match(new ChunkLines().push(gzipSync(Buffer.alloc(snapshotChunkBytes + 1))) as string, /not gzip data of at most/);
  });

  it("a snapshot of nothing still has one (empty) chunk", async () => {
    assert.deepEqual((await chunksOf([])).map((c) => gunzipSync(c).length), [0]);
  });

  it("hashes a chunk by its bytes, and the snapshot by its metadata's: a changed chunk hash changes the snapshot's", () => {
    assert.equal(chunkHash(Buffer.from("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const other = { ...metadata, chunks: ["ee".repeat(32)] };
    assert.notDeepEqual(snapshotHash(encodeMetadata(metadata)), snapshotHash(encodeMetadata(other)));
    assert.equal(snapshotHash(encodeMetadata(metadata)).length, 32);
  });
});

describe("a snapshot's metadata and lines, read from a peer", () => {
  it("reads metadata that holds every field", () => {
    assert.deepEqual(readMetadata(encodeMetadata(metadata)), metadata);
  });

  it("refuses metadata with a field missing or wrong, naming it", () => {
    const cases: [Partial<Record<keyof SnapshotMetadata, unknown>>, RegExp][] = [
      [{ format: "other" }, /format is not ledgerd-snapshot/],
      [{ chain_id: "" }, /names no chain id/],
      [{ commitment: "v2" }, /no app hash rule/],
      [{ app_version: "one" }, /app_version is not a number/],
      [{ rule_heights: undefined }, /names no rule_heights/],
      [{ rule_heights: { "no-such-rule": 5 } }, /rule_heights: /],
      [{ height: 0 }, /height is not 1 or more/],
      [{ app_hash: "AB" }, /app_hash is not hex/],
      [{ txs: -1 }, /txs is not a count/],
      [{ validators: [] }, /not 1 to 10000 validators/],
      [{ validators: [{ publicKey: "cd".repeat(32), power: 0 }] }, /power in the metadata is not 1 or more/],
      [{ validators: [metadata.validators[0], metadata.validators[0]] }, /a validator twice/],
      [{ chunks: [] }, /not 1 to 50000 chunks/],
      [{ chunks: ["xyz"] }, /not 64 hex digits/],
    ];
    for (const [change, reason] of cases) {
      assert.match(readMetadata(Buffer.from(JSON.stringify({ ...metadata, ...change }))) as string, reason, JSON.stringify(change));
    }
    assert.equal(readMetadata(Buffer.from("{")), "the metadata is not JSON");
    assert.equal(readMetadata(Buffer.from("[]")), "the metadata is not a JSON object");
  });

  it("reads a block's line and refuses one of the wrong shape", () => {
    const line = { height: 2, app_hash: "", txs: ["{}"], signed_header: "{}" };
    assert.deepEqual(readBlockLine(JSON.stringify(line)), line);
    assert.equal(readBlockLine("nope"), "a line is not JSON");
    assert.equal(readBlockLine(JSON.stringify({ ...line, height: 0 })), "a line's height is not 1 or more");
    assert.equal(readBlockLine(JSON.stringify({ ...line, txs: [1] })), "block 2's txs are not strings");
    assert.equal(readBlockLine(JSON.stringify({ ...line, evidence: [{ type: "other" }] })), "block 2's evidence is malformed");
    assert.equal(readBlockLine(JSON.stringify({ ...line, signed_header: {} })), "block 2's signed_header is not a string");
  });

  it("reads a format 2 line's refused transactions, in block order, and refuses them in a format 1 line", () => {
    const line = { height: 2, app_hash: "", txs: ["{}"], refused: [{ at: 0, tx: "{}" }, { at: 1, tx: "{}" }, { at: 1, tx: "{}" }] };
    assert.deepEqual(readBlockLine(JSON.stringify(line), 2), line);
    const malformed = "block 2's refused transactions are malformed";
    assert.equal(readBlockLine(JSON.stringify(line), 1), malformed);
    for (const refused of [[], [{ at: 2, tx: "{}" }], [{ at: 1, tx: "{}" }, { at: 0, tx: "{}" }], [{ at: 0, tx: {} }], [{ at: -1, tx: "{}" }], {}]) {
      assert.equal(readBlockLine(JSON.stringify({ ...line, refused }), 2), malformed, JSON.stringify(refused));
    }
  });
});
