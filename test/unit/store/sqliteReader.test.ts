// A read-only SqliteStore in another connection (what each HTTP worker process of
// server.workers > 1 opens) beside the one writer: it must answer exactly as the writer does
// after every commit, although the writer keeps index rows in its own memory until it merges
// them (deferredIndex.ts). The conformance suite runs with every read sent to the reader.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Store } from "../../../src/store/store.js";
import type { CommittedTx, OutputRef } from "../../../src/transaction/committed.js";
import { storeConformance } from "./conformance.js";
import { block, createTx, publicKey, ref, transferTx, validator } from "./fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-sqlite-reader-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `store-${++files}.sqlite`);

/** Writes go to the writer, every read to a reader on the same file. */
function splitStore(writer: SqliteStore, reader: SqliteStore): Store {
  return {
    backend: reader.backend,
    initChain: (chainId, validators, commitment, rules) => writer.initChain(chainId, validators, commitment, rules),
    commitBlock: (write) => writer.commitBlock(write),
    putSignedHeaders: (headers) => writer.putSignedHeaders(headers),
    recordAppVersion: (appVersion) => writer.recordAppVersion(appVersion),
    // As the threaded store's: reads from another connection see only committed blocks.
    beginBulkLoad: () => Promise.resolve(),
    endBulkLoad: () => Promise.resolve(),
    getSignedHeader: (height) => reader.getSignedHeader(height),
    getSignedHeaderHeight: () => reader.getSignedHeaderHeight(),
    getChainState: () => reader.getChainState(),
    getValidatorSet: (height) => reader.getValidatorSet(height),
    getValidatorSetsFrom: (from, to, limit) => reader.getValidatorSetsFrom(from, to, limit),
    getBlockContents: (height) => reader.getBlockContents(height),
    getRefusedLegacyTxs: (from, to) => reader.getRefusedLegacyTxs(from, to),
    openDerivedCheck: (from) => reader.openDerivedCheck(from),
    getHistoryNodes: (places) => reader.getHistoryNodes(places),
    getBlockIds: (height) => reader.getBlockIds(height),
    getStreamBlocks: (from, page) => reader.getStreamBlocks(from, page),
    getBlockHead: (height) => reader.getBlockHead(height),
    getBlockNodes: (height, places) => reader.getBlockNodes(height, places),
    getElections: (ids) => reader.getElections(ids),
    findTransactions: (ids) => reader.findTransactions(ids),
    getOutputs: (refs) => reader.getOutputs(refs),
    getTransaction: (id) => reader.getTransaction(id),
    getBlock: (height) => reader.getBlock(height),
    streamTransactionsByAsset: (assetId, options) => reader.streamTransactionsByAsset(assetId, options),
    streamOutputsByPublicKey: (key, spent) => reader.streamOutputsByPublicKey(key, spent),
    streamSearchAssets: (query, limit) => reader.streamSearchAssets(query, limit),
    streamSearchMetadata: (query, limit) => reader.streamSearchMetadata(query, limit),
    streamFieldMatches: (kind, filters, options) => reader.streamFieldMatches(kind, filters, options),
    streamOutputEntries: (key, spent, page) => reader.streamOutputEntries(key, spent, page),
    streamAssetHistory: (assetId, operation, page) => reader.streamAssetHistory(assetId, operation, page),
    streamSearchPage: (kind, query, page) => reader.streamSearchPage(kind, query, page),
    streamBalances: (key, assetId, page) => reader.streamBalances(key, assetId, page),
    streamBlockTransactions: (height) => reader.streamBlockTransactions(height),
    streamEvidence: (height, page) => reader.streamEvidence(height, page),
    getBlockHeightOfTransaction: (id) => reader.getBlockHeightOfTransaction(id),
    getValidators: (height) => reader.getValidators(height),
    findLegacyTransactions: (ids) => reader.findLegacyTransactions(ids),
    getLegacyOutputs: (refs) => reader.getLegacyOutputs(refs),
    getLegacyTransaction: (id) => reader.getLegacyTransaction(id),
    getLegacyRecord: (id) => reader.getLegacyRecord(id),
    sizeBytes: () => reader.sizeBytes(),
    close: async () => {
      await reader.close();
      await writer.close();
    },
  };
}

/** A writer that lets readers in, and a reader on the same file (as an HTTP worker opens it). */
function openPair(options: { indexSlices?: number; indexRowsWaitingMax?: number; indexMergeRowsMax?: number } = {}) {
  const path = freshPath();
  const writer = SqliteStore.open({ ...options, path, access: "readers" });
  const reader = SqliteStore.open({ path, access: "reader" });
  return { writer, reader, path };
}

storeConformance("sqlite reader beside its writer", async () => {
  const { writer, reader } = openPair({ indexSlices: 4 });
  return splitStore(writer, reader);
});

describe("sqlite reader", () => {
  // Few slices and a low waiting limit: rows move from memory to the tables every few blocks;
  // with a low merge limit too, slices are merged in parts, their marks below the block's.
  for (const limits of [{ indexSlices: 4, indexRowsWaitingMax: 6 }, { indexSlices: 2, indexRowsWaitingMax: 6, indexMergeRowsMax: 3 }]) {
  it(`sees every commit at once, before and after the writer merges its index rows (${JSON.stringify(limits)})`, async () => {
    const { writer, reader } = openPair(limits);
    try {
      await writer.initChain("reader-chain", [validator("a")], "bigchaindb");
      const txs: CommittedTx[] = [];
      const unspent: OutputRef[] = [];
      for (let height = 1; height <= 24; height++) {
        const blockTxs: CommittedTx[] = [];
        const c = createTx({ label: `r-${height}`, data: { height } });
        blockTxs.push(c);
        const spend = unspent.shift();
        if (spend !== undefined) {
          const spent = txs.find((tx) => tx.id === spend.transactionId)!;
          blockTxs.push(transferTx({ label: `r-t-${height}`, assetId: spent.assetId, spends: [spend] }));
        }
        await writer.commitBlock(block(height, blockTxs));
        txs.push(...blockTxs);
        unspent.push(...blockTxs.map((tx) => ref(tx, 0)));
        await assertSameAnswers(writer, reader, txs, height);
        assert.equal(reader.indexRowsWaiting, writer.indexRowsWaiting, `rows waiting after block ${height}`);
      }
    } finally {
      await reader.close();
      await writer.close();
    }
  });
  }

  it("refuses to write", async () => {
    const { writer, reader } = openPair();
    try {
      await assert.rejects(reader.initChain("x", [validator("a")]), /read-only/);
      await assert.rejects(reader.commitBlock(block(1, [])), /read-only/);
      assert.equal((await writer.getChainState()).height, 0);
    } finally {
      await reader.close();
      await writer.close();
    }
  });


  it("cannot open beside a writer that owns its file (the default), nor without a file", async () => {
    const path = freshPath();
    const writer = SqliteStore.open({ path });
    try {
      assert.throws(() => SqliteStore.open({ path, access: "reader" }), /locked|busy/i);
    } finally {
      await writer.close();
    }
    assert.throws(() => SqliteStore.open({ path: join(dir, "missing.sqlite"), access: "reader" }));
  });
});

async function assertSameAnswers(writer: Store, reader: Store, txs: readonly CommittedTx[], height: number): Promise<void> {
  assert.deepEqual(await reader.getChainState(), await writer.getChainState());
  const ids = txs.map((tx) => tx.id);
  assert.deepEqual(await reader.findTransactions(ids), new Set(ids));
  const refs = txs.map((tx) => ref(tx, 0));
  assert.deepEqual(await reader.getOutputs(refs), await writer.getOutputs(refs));
  for (const tx of txs) {
    assert.equal(await reader.getTransaction(tx.id), tx.json, `${tx.id} at height ${height}`);
    assert.deepEqual(await wholeOf(reader).getTransactionsByAsset(tx.assetId), await wholeOf(writer).getTransactionsByAsset(tx.assetId));
    const key = tx.outputs[0]!.publicKeys[0]!;
    for (const spent of [undefined, true, false]) {
      assert.deepEqual(await wholeOf(reader).getOutputsByPublicKey(key, spent), await wholeOf(writer).getOutputsByPublicKey(key, spent));
    }
    assert.equal(await reader.getBlockHeightOfTransaction(tx.id), await writer.getBlockHeightOfTransaction(tx.id));
  }
  assert.deepEqual(await wholeOf(reader).getBlockTransactions(height), await wholeOf(writer).getBlockTransactions(height));
  assert.deepEqual(await wholeOf(reader).getOutputsByPublicKey(publicKey("nobody")), []);
}
