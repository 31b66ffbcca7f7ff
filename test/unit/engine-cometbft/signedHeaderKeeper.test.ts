// The signed header keeper (engine/cometbft/signedHeaderKeeper.ts): after the ledger commits H it
// stores the headers of heights up to H - 1 from CometBFT's RPC, in order and in batched writes, into a real SQLite
// store; a failed read is tried again after the next commit; Commit's retain_height keeps the
// last engine.retain_blocks blocks and never passes the first header not stored; heights CometBFT
// no longer holds are skipped.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { SignedHeaderKeeper, signedHeadersPerWriteMax } from "../../../src/engine/cometbft/signedHeaderKeeper.js";
import type { SignedHeader } from "../../../src/proofs/verify.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { StoredSignedHeader } from "../../../src/store/store.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-keeper-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** CometBFT's RPC, as far as the keeper reads it: a header per height, or a failure while `down`. */
class Source {
  down = false;
  /** CometBFT's lowest block (state sync or pruning leaves it above 1). */
  earliest = 1;
  readonly asked: number[] = [];
  async signedHeader(height: number): Promise<SignedHeader> {
    this.asked.push(height);
    if (this.down) throw new Error("CometBFT's RPC does not answer");
    if (height < this.earliest) throw new Error(`height ${height} is not available, lowest height is ${this.earliest}`);
    return { header: { height: String(height) }, commit: { height: String(height) } } as unknown as SignedHeader;
  }
  async earliestHeight(): Promise<number> {
    if (this.down) throw new Error("CometBFT's RPC does not answer");
    return this.earliest;
  }
}

describe("signed header keeper", () => {
  it("stores the headers made final by each commit, once each, and resumes after a failed read", async () => {
    const store = SqliteStore.open({ path: join(dir, `store-${++files}.sqlite`) });
    const source = new Source();
    const keeper = await SignedHeaderKeeper.open(store, source, 3);
    keeper.committed(1);
    await keeper.settled();
    assert.deepEqual(source.asked, [], "the commit of height 1 is not final before height 2");
    keeper.committed(4);
    await keeper.settled();
    assert.deepEqual(source.asked, [1, 2, 3]);
    assert.equal(await store.getSignedHeader(3), '{"header":{"height":"3"},"commit":{"height":"3"}}');
    source.down = true;
    keeper.committed(6);
    await keeper.settled();
    assert.equal(await store.getSignedHeaderHeight(), 3);
    // Not stored: CometBFT must keep height 4 on (retain_height 4, not 10 - 3 + 1 = 8).
    assert.equal(keeper.retainHeight(10), 4);
    source.down = false;
    keeper.committed(7);
    await keeper.settled();
    assert.deepEqual(source.asked, [1, 2, 3, 4, 4, 5, 6]);
    assert.equal(keeper.retainHeight(10), 7);
    assert.equal(keeper.retainHeight(7), 5);
    // A reopened keeper goes on from the store.
    const reopened = await SignedHeaderKeeper.open(store, source, 3);
    assert.equal(reopened.retainHeight(100), 7);
    await store.close();
  });

  it("skips the heights CometBFT no longer holds (a node begun by state sync), and prunes from there", async () => {
    const store = SqliteStore.open({ path: join(dir, `store-${++files}.sqlite`) });
    const source = new Source();
    source.earliest = 5;
    const keeper = await SignedHeaderKeeper.open(store, source, 3);
    keeper.committed(8);
    await keeper.settled();
    assert.deepEqual(source.asked, [1, 5, 6, 7]);
    assert.equal(await store.getSignedHeader(4), null);
    assert.equal(await store.getSignedHeaderHeight(), 7);
    assert.equal(keeper.retainHeight(100), 8);
    await store.close();
  });

  it("a node catching up stores its headers in writes of at most signedHeadersPerWriteMax", async () => {
    const store = SqliteStore.open({ path: join(dir, `store-${++files}.sqlite`) });
    const writes: number[] = [];
    const counted = { putSignedHeaders: (headers: readonly StoredSignedHeader[]) => (writes.push(headers.length), store.putSignedHeaders(headers)), getSignedHeaderHeight: () => store.getSignedHeaderHeight() };
    const keeper = await SignedHeaderKeeper.open(counted, new Source(), 3);
    keeper.committed(151);
    await keeper.settled();
    assert.deepEqual(writes, [signedHeadersPerWriteMax, signedHeadersPerWriteMax, 150 - 2 * signedHeadersPerWriteMax]);
    assert.equal(await store.getSignedHeaderHeight(), 150);
    await store.close();
  });

  it("retains every block (0) without engine.retain_blocks, and while nothing would be pruned", async () => {
    const store = SqliteStore.open({ path: join(dir, `store-${++files}.sqlite`) });
    const keeper = await SignedHeaderKeeper.open(store, new Source(), 0);
    keeper.committed(50);
    await keeper.settled();
    assert.equal(keeper.retainHeight(50), 0);
    // CometBFT keeps every header then: none is read or stored.
    assert.equal(await store.getSignedHeaderHeight(), 0);
    const pruning = await SignedHeaderKeeper.open(store, new Source(), 3);
    // Turned on later: the headers CometBFT still holds are stored from height 1.
    pruning.committed(50);
    await pruning.settled();
    assert.equal(await store.getSignedHeaderHeight(), 49);
    assert.equal(pruning.retainHeight(2), 0);
    assert.equal(pruning.retainHeight(3), 0);
    assert.equal(pruning.retainHeight(4), 2);
    await store.close();
  });
});
