// The filter of committed ids (src/store/sqlite/hashFilter.ts) spares the duplicate check a read
// for an id that cannot be committed. It must never say "no" for a committed id: not for one
// merged into id_index before the store opened (built from the table), not for one merged by the
// writer thread before the main thread followed its block (noted by the follower), not for one
// a reader in another connection sees merged already, nor for one committed by another connection
// since this one last looked (a check with no read asks whether one was). A duplicate is refused
// as before. Only the connection the ledger's checks run on keeps the filter (options.idFilter):
// a store that only answers reads goes without, and finds the same ids in the index.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { configDefault } from "../../../src/config/defaults.js";
import { moduleOptions } from "../../../src/config/moduleOptions.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { openStore } from "../../../src/node/openStore.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { HashFilter } from "../../../src/store/sqlite/hashFilter.js";
import { keyHash } from "../../../src/store/sqlite/keyHash.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { openThreadedSqliteStore } from "../../../src/store/sqlite/threadedStore.js";
import type { Store } from "../../../src/store/store.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { block, createTx, validator } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-id-filter-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });

/** The node's options on a fresh file, one index slice (each commit merges every waiting row). */
const nodeOptions = (engine: "solo" | "cometbft") =>
  moduleOptions({
    ...configDefault,
    engine: { ...configDefault.engine, kind: engine },
    database: { ...configDefault.database, path: freshPath(), index_slices: 1 },
  });

/** The filter's bytes in the connection a store reads through (SqliteStore's getter, through the threaded store's proxy). */
const filterBytes = (store: Store) => (store as unknown as SqliteStore).idFilterBytes;

describe("the filter of committed ids", () => {
  it("holds every hash added, across the layers it grows by, and few others", () => {
    const filter = new HashFilter(0);
    const added = Array.from({ length: 400_000 }, (_, i) => keyHash(`added ${i}`));
    for (const hash of added) filter.add(hash);
    assert.equal(added.filter((hash) => !filter.mayHold(hash)).length, 0);
    const others = Array.from({ length: 20_000 }, (_, i) => keyHash(`other ${i}`));
    const maybe = others.filter((hash) => filter.mayHold(hash)).length;
    assert.ok(maybe < others.length / 10, `${maybe} of ${others.length} absent hashes held`);
  });

  // One slice: each commit merges every waiting row into id_index, so no id stays in memory.
  it("finds ids merged before the store opened, and ids its writer thread merged before the main thread followed", async () => {
    const path = freshPath();
    const first = await openThreadedSqliteStore({ path, indexSlices: 1, idFilter: true });
    const txs = Array.from({ length: 6 }, (_, i) => createTx({ label: `filtered-${i}` }));
    try {
      await first.initChain("filter-chain", [validator("a")], "bigchaindb");
      for (const [i, tx] of txs.entries()) {
        await first.commitBlock(block(i + 1, [tx]));
        assert.deepEqual(await first.findTransactions([tx.id]), new Set([tx.id]), `block ${i + 1}`);
      }
    } finally {
      await first.close();
    }
    const reopen = [async () => SqliteStore.open({ path, idFilter: true }), () => openThreadedSqliteStore({ path, idFilter: true })];
    for (const open of reopen) {
      const store: Store = await open();
      try {
        const ids = txs.map((tx) => tx.id);
        assert.ok(filterBytes(store) > 0);
        assert.deepEqual(await store.findTransactions(ids), new Set(ids));
        assert.notEqual(await store.getTransaction(ids[0]!), null);
        assert.deepEqual(await store.findTransactions([createTx({ label: "never" }).id]), new Set());
      } finally {
        await store.close();
      }
    }
  });

  it("a reader in another connection finds ids the writer merged before the reader looked", async () => {
    const path = freshPath();
    const writer = SqliteStore.open({ path, access: "readers", indexSlices: 1, idFilter: true });
    const reader = SqliteStore.open({ path, access: "reader", idFilter: true });
    try {
      await writer.initChain("filter-chain", [validator("a")], "bigchaindb");
      const ids: string[] = [];
      for (let height = 1; height <= 4; height++) {
        const tx = createTx({ label: `reader-${height}` });
        await writer.commitBlock(block(height, [tx]));
        ids.push(tx.id);
        // The new id alone first: the reader's filter learns of it only by looking.
        assert.deepEqual(await reader.findTransactions([tx.id]), new Set([tx.id]), `block ${height}`);
        assert.deepEqual(await reader.findTransactions(ids), new Set(ids), `block ${height}`);
      }
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("a store that only answers reads keeps no filter and reads the index instead: ids merged, waiting, and new", async () => {
    const options = nodeOptions("solo");
    // Two slices: of each block's rows, those of the slice merged go to id_index, the others wait.
    const writer = SqliteStore.open({ ...options.sqliteStore, indexSlices: 2, idFilter: true });
    const readers = [await openStore(options, "reader"), SqliteStore.open({ path: options.sqliteStore.path, access: "reader" })];
    try {
      await writer.initChain("filter-chain", [validator("a")], "bigchaindb");
      const ids: string[] = [];
      for (let height = 1; height <= 6; height++) {
        const txs = [createTx({ label: `read-only-${height}-a` }), createTx({ label: `read-only-${height}-b` })];
        await writer.commitBlock(block(height, txs));
        ids.push(...txs.map((tx) => tx.id));
        for (const [i, reader] of readers.entries()) {
          assert.deepEqual(await reader.findTransactions(ids), new Set(ids), `reader ${i}, block ${height}`);
          assert.deepEqual(await reader.findTransactions([txs[1]!.id]), new Set([txs[1]!.id]), `reader ${i}, block ${height}`);
          assert.deepEqual(await reader.findTransactions([createTx({ label: `never-${height}` }).id]), new Set());
        }
      }
      assert.ok(writer.indexRowsWaiting > 0, "some ids wait in memory");
      for (const reader of readers) assert.equal(filterBytes(reader), 0);
      assert.ok(filterBytes(writer) > 0);
    } finally {
      for (const reader of readers) await reader.close();
      await writer.close();
    }
  });

  for (const engine of ["solo", "cometbft"] as const) {
    it(`the ledger on the node's store (${engine}: ${engine === "solo" ? "its writer thread's reader" : "its writer"}) keeps the filter and refuses a duplicate after its block and after a restart`, async () => {
      const options = nodeOptions(engine);
      const tx = bytesOf(create(keypairOf(`alice-${engine}`)));
      const open = async (): Promise<{ ledger: LedgerApp; store: Store }> => {
        const store = await openStore(options, "writer");
        const ledger = await LedgerApp.open({}, { store, pool });
        return { ledger, store };
      };
      const first = await open();
      try {
        assert.ok(filterBytes(first.store) > 0, "the checking connection keeps the filter");
        await first.ledger.initChain("filter-chain", [{ publicKey: "ab".repeat(32), power: 10 }]);
        assert.equal((await first.ledger.checkTx(tx)).ok, true);
        const finalized = await first.ledger.finalizeBlock(1, [tx]);
        await first.ledger.commit();
        assert.equal(finalized.results[0], null);
        const again = await first.ledger.checkTx(tx);
        assert.equal(again.ok ? null : again.rejection.code, "DuplicateTransaction");
      } finally {
        await first.store.close();
      }
      const second = await open();
      try {
        assert.ok(filterBytes(second.store) > 0, "the checking connection keeps the filter");
        const again = await second.ledger.checkTx(tx);
        assert.equal(again.ok ? null : again.rejection.code, "DuplicateTransaction");
        const finalized = await second.ledger.finalizeBlock(2, [tx]);
        assert.equal(finalized.results[0]?.code, "DuplicateTransaction");
      } finally {
        await second.store.close();
      }
    });
  }
});
