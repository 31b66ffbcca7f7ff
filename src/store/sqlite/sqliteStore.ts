// The SQLite backend of the Store interface (`../store.ts`): one database file in WAL mode,
// written one block per SQLite transaction, read through statements prepared once.
//
// This folder owns: the schema (`schema.ts`, with why it is laid out as it is), opening a
// connection on it (`connection.ts`), the deferred hash indexes that keep commits fast as the
// ledger grows (`deferredIndex.ts`, rebuilt by `follower.ts`), the SQL (`queries.ts`), the
// options (`options.ts`), the block writer (`blockWriter.ts`), the readers (`readers.ts`, on the
// lookups of `lookups.ts`), and the SQLite side of text search (`search.ts`): which text is
// indexed (`searchText.ts`) and how a parsed search becomes an FTS5 MATCH (`toFtsMatch.ts`).
// The search syntax itself is `../textQuery.ts`, shared with every backend. Queries by field
// are `fieldIndex.ts` here, on the leaves `../fieldQuery.ts` defines for every backend.
// verify-chain's check of every derived row against the transactions is `derivedCheck.ts`.
//
// better-sqlite3 is synchronous; the interface is async so that a networked backend fits. Each
// method does its work synchronously and returns a settled promise, so a commit never
// interleaves with a read.
//
// One writer per file (`options.access`). By default it owns the file outright. With `readers`,
// other processes may read it through a store opened with `access: "reader"` (or on a read-only
// `deps.database`), as the HTTP workers do: such a store refuses writes, and before each read it
// catches up with the writer's commits, inside one read transaction (a snapshot).
//
// Failure kinds (STYLE rule 1): a commit that breaks a ledger invariant (a height gap, a
// missing or spent output, an id stored twice) is an AssertionError and leaves nothing written;
// a search the client got wrong is a LedgerError BadParameter.

import assert from "node:assert/strict";
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import type { LegacyOutputRef } from "../../legacy/committed.js";
import type { Operation, OutputRef } from "../../transaction/committed.js";
import type { CommitmentVersion } from "../../proofs/commitment.js";
import type {
  Balance,
  Batches,
  BlockRecord,
  FieldHit,
  HistoryEntry,
  OutputEntry,
  PageOptions,
  BlockWrite,
  ChainRules,
  ChainState,
  LegacyRecord,
  SearchHit,
  Store,
  StoredLegacyOutput,
  StoredOutput,
  Validator,
  ValidatorSet,
  ElectionRecord,
  EvidenceEntry,
  StoredSignedHeader,
  BulkLoadOptions,
  BlockContents,
  RefusedLegacyTx,
  NodePlace,
  DerivedCheck,
  StreamBlockPage,
  StreamBlockRecord,
} from "../store.js";
import { blockTransactions, lastSeqOf, mapReader, searchHits, wholeReader, type BatchReader } from "./batchReaders.js";
import { outputsOfKey, transactionsOfAsset } from "./keyedReaders.js";
import { balancesOfKey } from "./balances.js";
import { evidencePages } from "../evidencePages.js";
import { encodePosition, pageAfterRank, parsePosition, ranksToRead } from "../positions.js";
import { BlockWriter, rowsWaitingIn } from "./blockWriter.js";
import type { BlockRows } from "./places.js";
import {
  busyTimeoutMs,
  configure,
  indexNames,
  onDisk,
  openDatabase,
  prepareConnection,
  type Connection,
} from "./connection.js";
import { Checkpointer, fallbackFactor } from "./checkpointer.js";
import { IndexFollower } from "./follower.js";
import { legacySeqsOf, noneMayBeCommitted, seqsOf } from "./lookups.js";
import { bulkLoadTxsPerCommit } from "./limits.js";
import { sqliteStoreOptionsDefault, type SqliteStoreOptions } from "./options.js";
import * as readers from "./readers.js";
import type { FieldFilter } from "../fieldQuery.js";
import { fieldMatches } from "./fieldIndex.js";
import { checkReadIndex, openReadIndexes } from "./readIndexes.js";
import { ensureSchema } from "./schema.js";
import { rankedPage, rankedSeqs, type SearchLimits } from "./search.js";
import { WriterPageCache } from "./pageCache.js";
import { SqliteDerivedCheck } from "./derivedCheck.js";
import { guardDamage, openSound } from "./damage.js";
import { LedgerError } from "../../errors/ledgerError.js";

export interface SqliteStoreDeps {
  /** A connection to use instead of opening `options.path` (tests, tools). The store owns it. */
  readonly database?: Database.Database;
}

export class SqliteStore implements Store {
  readonly backend = "sqlite";

  /** Opens (creating when missing) the database at `options.path`, defaults for the rest. */
  static open(options: Partial<SqliteStoreOptions> = {}): SqliteStore {
    const all = { ...sqliteStoreOptionsDefault, ...options };
    return openSound(all.path, all.access !== "reader", () => new SqliteStore(all));
  }

  readonly #c: Connection;
  readonly #writer: BlockWriter;
  /** A writer's page cache, kept small while its file is (pageCache.ts); null for a reader. */
  readonly #pageCache: WriterPageCache | null;
  readonly #searchLimits: SearchLimits;
  /** A read-only store follows another process's commits (IndexFollower.refresh). */
  readonly #readOnly: boolean;
  readonly #readSnapshot: <T>(read: () => T) => T;
  readonly #follower: IndexFollower;
  readonly #followBlock: (rows: BlockRows) => void;
  /** Whether every commit to the file is followed here before it resolves (followsEveryCommit). */
  #followsEveryCommit = false;
  /** Told once of the first damage a read meets (onDamaged). */
  #damaged: ((error: Error) => void) | null = null;
  #damageTold = false;
  /** The checkpoint thread, once this store, writing a file others may open, has started it (checkpointer.ts). */
  #checkpointer: Checkpointer | null = null;
  /** How to start it, until it is: from the first commit that leaves the log at `startWalBytes`. */
  #checkpointerPlan: { readonly start: () => Checkpointer; readonly startWalBytes: number } | null = null;
  /** During a bulk load: the transactions written since its open SQLite transaction began. */
  #bulk: { txs: number } | null = null;

  constructor(options: SqliteStoreOptions, deps: SqliteStoreDeps = {}) {
    const slices = options.indexSlices;
    assert.ok(Number.isInteger(Math.log2(slices)) && slices <= 4096, "indexSlices: 2^n, <= 4096");
    const access = options.access ?? "owner";
    const db = deps.database ?? openDatabase(options.path, access);
    this.#readOnly = db.readonly;
    assert.ok(this.#readOnly || access !== "reader", "access reader needs a read-only connection");
    const owner = access === "owner" && !this.#readOnly;
    // An owner's exclusive lock lets no other connection in, so it checkpoints inside commits.
    const checkpoints = access === "readers" && !this.#readOnly && onDisk(db.name) && options.checkpointIntervalMs > 0;
    // A reader fails at once on a file whose owner holds it, instead of waiting out a timeout.
    if (this.#readOnly) db.pragma("busy_timeout = 0");
    // A file refused here (not a ledgerd database, a newer schema) is closed before the error
    // leaves: left to the GC, an owner's exclusive lock held the file, and the damage check
    // after a failed open (damage.ts) waited the whole busy timeout on it before it could say why.
    closedOnThrow(db, deps.database === undefined, () => {
      configure(db, options, owner, checkpoints ? options.walAutocheckpointPages * fallbackFactor : options.walAutocheckpointPages);
      ensureSchema(db, slices);
      // The read indexes are added and caught up by the writer (fieldIndex.ts explains why).
      if (!this.#readOnly) openReadIndexes(db, options.readIndexes !== false);
    });
    this.#pageCache = this.#readOnly ? null : new WriterPageCache(db, options.cacheSizeBytes);
    if (this.#readOnly) db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // A write takes the exclusive lock, and EXCLUSIVE mode keeps it until close: a second
    // ledgerd on the same file fails at open instead of writing behind this one's back.
    if (owner) db.exec("BEGIN IMMEDIATE; UPDATE chain_state SET id = 1 WHERE id = 1; COMMIT");
    this.#c = prepareConnection(db, options.idFilter === true);
    const follower = new IndexFollower(this.#c);
    this.#follower = follower;
    const snapshot = db.transaction((read: () => unknown) => {
      follower.refresh();
      return read();
    });
    this.#readSnapshot = <T>(read: () => T) => snapshot(read) as T;
    const follow = db.transaction((rows: BlockRows) => follower.follow(rows));
    this.#followBlock = (rows) => void follow(rows);
    this.#writer = new BlockWriter(this.#c, {
      rowsWaitingMax: options.indexRowsWaitingMax,
      mergeRowsMax: options.indexMergeRowsMax,
      readIndexes: options.readIndexes !== false,
    });
    if (!this.#readOnly && options.indexMergeAtOpen !== false) this.#writer.mergeWaiting();
    this.#searchLimits = {
      wordsMax: options.searchWordsMax,
      rankedMatchesMax: options.searchRankedMatchesMax,
    };
    if (checkpoints) {
      const data = { path: db.name, synchronous: options.synchronous, intervalMs: options.checkpointIntervalMs };
      const start = (): Checkpointer =>
        Checkpointer.start(data, (error) => {
          // The writer takes its checkpoints back; the log stays bounded either way.
          if (db.open) db.pragma(`wal_autocheckpoint = ${Math.floor(options.walAutocheckpointPages)}`);
          process.emitWarning(`SQLite checkpoints are back inside commits: ${error.message}`, "LedgerdWarning");
        });
      this.#checkpointerPlan = { start, startWalBytes: options.checkpointStartWalBytes };
      this.#startCheckpointerWhenDue();
    }
  }

  /** Starts the checkpoint thread once the log has reached the plan's size (a syscall a commit until then). */
  #startCheckpointerWhenDue(): void {
    const plan = this.#checkpointerPlan;
    if (plan === null) return;
    if (plan.startWalBytes > 0 && fileBytes(`${this.#c.db.name}-wal`) < plan.startWalBytes) return;
    this.#checkpointerPlan = null;
    this.#checkpointer = plan.start();
  }

  /** The connection, for tests and diagnostics (pragmas, query plans). Do not write through it. */
  get database(): Database.Database {
    return this.#c.db;
  }

  /** Rows of the hashed indexes waiting in memory for their slice's merge (deferredIndex.ts), for tests and diagnostics. */
  get indexRowsWaiting(): number {
    return this.#c.merged.reduce((n, _, slice) => n + rowsWaitingIn(this.#c, slice), 0);
  }

  /** Whether the checkpoint thread runs (options.checkpointStartWalBytes), for tests and diagnostics. */
  get checkpointing(): boolean {
    return this.#checkpointer !== null;
  }

  /** The bytes of this connection's filter of the committed ids (options.idFilter), for tests and diagnostics; 0 without. */
  get idFilterBytes(): number {
    return this.#c.index.ids.filterBytes;
  }

  async getChainState(): Promise<ChainState> {
    return this.#reading(() => readers.readChainState(this.#c));
  }

  async initChain(chainId: string, validators: readonly Validator[], commitment: CommitmentVersion = "v1", rules?: ChainRules): Promise<void> {
    assert.ok(!this.#readOnly, "initChain on a read-only store");
    this.#writer.initChain(chainId, validators, commitment, rules);
  }

  async commitBlock(block: BlockWrite): Promise<void> {
    this.#commit(block, false);
  }

  /**
   * A bulk load: the blocks committed in SQLite transactions of `bulkLoadTxsPerCommit`
   * transactions each (one fsync a batch, not one a block), which this connection's reads see
   * before they commit (each block is a savepoint inside: a refused one still rolls back alone).
   * `synchronous` stays as configured: with it off, a power loss could leave a log whose
   * checkpointed pages never reached the disk, a file no resume could build on.
   */
  async beginBulkLoad(options: BulkLoadOptions = {}): Promise<void> {
    assert.ok(!this.#readOnly, "beginBulkLoad on a read-only store");
    assert.ok(this.#bulk === null, "a bulk load is already under way");
    this.#bulk = { txs: 0 };
    // A restore's: the deferred indexes merged once a commit, not a slice a block (holdMerges).
    if (options.restore === true) this.#writer.holdMerges(true);
  }

  /**
   * The last SQLite transaction committed (durable as `synchronous` makes every commit). No
   * checkpoint here: one that waited for readers (HTTP workers) would hold the engine's ABCI call.
   */
  async endBulkLoad(): Promise<void> {
    assert.ok(this.#bulk !== null, "endBulkLoad without beginBulkLoad");
    const db = this.#c.db;
    this.#bulk = null;
    try {
      if (db.inTransaction) this.#commitBulk();
    } finally {
      this.#writer.holdMerges(false);
    }
  }

  /** A bulk load's SQLite transaction committed; a restore's merges every slice first (holdMerges). */
  #commitBulk(): void {
    const db = this.#c.db;
    guardDamage(db.name, () => {
      const merges = this.#writer.mergeHeld();
      db.exec("COMMIT");
      this.#writer.merged(merges);
    });
  }

  /** commitBlock, giving back the index rows the block added, for `followBlock` on another thread. */
  commitBlockRows(block: BlockWrite): BlockRows {
    return this.#commit(block, true)!;
  }

  /**
   * A read-only store: follows the block that the writer on another thread of this process has
   * just committed, with the rows it gives back (commitBlockRows), instead of reading them back.
   */
  followBlock(rows: BlockRows): void {
    assert.ok(this.#readOnly, "followBlock on a store that writes");
    this.#followBlock(rows);
  }

  /**
   * A read-only store whose writer is a thread of this process (threadedStore.ts) is told so:
   * every block committed to the file is then followed here (followBlock, or a read's catch-up
   * before it) before its commit resolves, so this connection's ids' filter holds every id of
   * every commit resolved, and a duplicate check the filter answers "none" needs no look at
   * whether the writer committed since: a commit not resolved yet may go unseen by any read.
   * Told `false` again when a commit fails (one durable but never followed must be looked for).
   */
  followsEveryCommit(yes: boolean): void {
    assert.ok(this.#readOnly || !yes, "followsEveryCommit on a store that writes");
    this.#followsEveryCommit = yes;
  }

  async findTransactions(ids: readonly string[]): Promise<Set<string>> {
    // The duplicate check of new ids (issue #42): when this connection has seen every commit
    // resolved and its filter none of the ids, no read transaction either (~4 µs a call).
    const seenAll = this.#followsEveryCommit || this.#follower.current();
    if (seenAll && noneMayBeCommitted(this.#c, ids)) return new Set();
    return this.#reading(() => new Set(seqsOf(this.#c, ids).keys()));
  }

  async getOutputs(refs: readonly OutputRef[]): Promise<Map<string, StoredOutput>> {
    return this.#reading(() => readers.readOutputs(this.#c, refs));
  }

  async getTransaction(id: string): Promise<string | null> {
    return this.#reading(() => readers.readTransaction(this.#c, id));
  }

  async getBlock(height: number): Promise<BlockRecord | null> {
    return this.#reading(() => readers.readBlock(this.#c, height));
  }

  streamTransactionsByAsset(
    assetId: string,
    options: { operation?: Operation; lastOnly?: boolean } = {},
  ): Batches<string> {
    const c = this.#c;
    if (options.lastOnly === true) {
      const operation = options.operation;
      return this.#batches(() => wholeReader(readers.readLastTransactionOfAsset(c, assetId, operation)));
    }
    return this.#batches(() => mapReader(transactionsOfAsset(c, assetId, options.operation), (entry) => entry.json));
  }

  streamOutputsByPublicKey(publicKey: string, spent?: boolean): Batches<OutputRef> {
    const ref = (entry: OutputEntry): OutputRef => ({ transactionId: entry.transactionId, outputIndex: entry.outputIndex });
    return this.#batches(() => mapReader(outputsOfKey(this.#c, publicKey, spent), ref));
  }

  streamOutputEntries(publicKey: string, spent: boolean | undefined, page: PageOptions = {}): Batches<OutputEntry> {
    return this.#batches(() => outputsOfKey(this.#c, publicKey, spent, page));
  }

  streamAssetHistory(assetId: string, operation: Operation | undefined, page: PageOptions = {}): Batches<HistoryEntry> {
    return this.#batches(() => transactionsOfAsset(this.#c, assetId, operation, page));
  }

  streamSearchPage(kind: "assets" | "metadata", query: string, page: PageOptions & { limit: number }): Batches<FieldHit> {
    const c = this.#c;
    return this.#batches(() => {
      checkReadIndex(c.db, "text", lastSeqOf(c));
      const [snapshot, offset] = page.after === undefined
        ? [lastSeqOf(c), 0]
        : (parsePosition(page.after, 2, lastSeqOf(c), false) as [number, number]);
      const read = rankedPage(c, kind, query, { snapshot, ...ranksToRead(offset, page.limit) }, this.#searchLimits);
      const seqs = pageAfterRank(offset, read);
      const position = (index: number) => encodePosition([snapshot, offset + index + 1]);
      return mapReader(searchHits(c, kind, seqs), (hit, index) => ({ ...hit, position: position(index) }));
    });
  }

  streamBalances(publicKey: string, assetId: string | undefined, page: PageOptions = {}): Batches<Balance> {
    return this.#batches(() => balancesOfKey(this.#c, publicKey, assetId, page));
  }

  streamSearchAssets(query: string, limit: number | undefined): Batches<SearchHit> {
    return this.#search("assets", query, limit);
  }

  streamSearchMetadata(query: string, limit: number | undefined): Batches<SearchHit> {
    return this.#search("metadata", query, limit);
  }

  streamFieldMatches(
    kind: "assets" | "metadata",
    filters: readonly FieldFilter[],
    page: PageOptions = {},
  ): Batches<FieldHit> {
    const c = this.#c;
    return this.#batches(() => {
      checkReadIndex(c.db, "fields", lastSeqOf(c));
      const [upTo, after] = page.after === undefined
        ? [lastSeqOf(c), 0]
        : (parsePosition(page.after, 2, lastSeqOf(c), true) as [number, number]);
      return fieldMatches(c.db, kind, filters, { after, upTo }, page.limit);
    });
  }

  async streamBlockTransactions(height: number): Promise<Batches<string> | null> {
    const reader = this.#reading(() => blockTransactions(this.#c, height));
    return reader === null ? null : this.#batches(() => reader);
  }

  async getBlockHeightOfTransaction(id: string): Promise<number | null> {
    return this.#reading(() => readers.readBlockHeightOfTransaction(this.#c, id));
  }

  async openDerivedCheck(from: number): Promise<DerivedCheck> {
    return new SqliteDerivedCheck(this.#c.db, from);
  }

  async getBlockContents(height: number): Promise<BlockContents | null> {
    return this.#reading(() => readers.readBlockContents(this.#c, height));
  }

  async getRefusedLegacyTxs(from: number, to: number): Promise<RefusedLegacyTx[]> {
    return this.#reading(() => readers.readRefusedLegacyTxs(this.#c, from, to));
  }

  async getBlockHead(height: number): Promise<Omit<BlockRecord, "txIds"> | null> {
    return this.#reading(() => readers.readBlockHead(this.#c, height));
  }

  async getBlockIds(height: number): Promise<string[] | null> {
    return this.#reading(() => readers.readBlockIds(this.#c, height));
  }

  async getStreamBlocks(from: number, page: StreamBlockPage): Promise<StreamBlockRecord[]> {
    return this.#reading(() => readers.readStreamBlocks(this.#c, from, page));
  }

  async getHistoryNodes(places: readonly NodePlace[]): Promise<(Uint8Array | null)[]> {
    return this.#reading(() => readers.readHistoryNodes(this.#c, places));
  }

  async recordAppVersion(appVersion: bigint): Promise<void> {
    assert.ok(!this.#readOnly, "recordAppVersion on a read-only store");
    guardDamage(this.#c.db.name, () => {
      this.#c.db.prepare("UPDATE chain_state SET app_version = ? WHERE id = 1 AND app_version IS NULL").run(String(appVersion));
    });
  }

  async putSignedHeaders(headers: readonly StoredSignedHeader[]): Promise<void> {
    assert.ok(!this.#readOnly, "putSignedHeaders on a read-only store");
    // Damage met here is StoreDamaged, as in a block's write (damage.ts).
    guardDamage(this.#c.db.name, () => {
      const insert = this.#c.db.prepare("INSERT OR IGNORE INTO signed_headers (height, json) VALUES (?, ?)");
      this.#c.db.transaction(() => {
        for (const { height, json } of headers) insert.run(height, json);
      }).immediate();
    });
  }

  async getSignedHeader(height: number): Promise<string | null> {
    return this.#reading(() => (this.#c.db.prepare("SELECT json FROM signed_headers WHERE height = ?").pluck().get(height) as string | undefined) ?? null);
  }

  async getSignedHeaderHeight(): Promise<number> {
    return this.#reading(() => (this.#c.db.prepare("SELECT coalesce(max(height), 0) FROM signed_headers").pluck().get() as number));
  }

  async getBlockNodes(height: number, places: readonly NodePlace[]): Promise<(Uint8Array | null)[]> {
    return this.#reading(() => readers.readBlockNodes(this.#c, height, places));
  }

  async getValidators(height?: number): Promise<Validator[]> {
    return this.#reading(() => [...(readers.readValidatorSet(this.#c, height)?.validators ?? [])]);
  }

  async getValidatorSet(height?: number): Promise<ValidatorSet | null> {
    return this.#reading(() => readers.readValidatorSet(this.#c, height));
  }

  async getValidatorSetsFrom(from: number, to: number, limit: number): Promise<ValidatorSet[]> {
    return this.#reading(() => readers.readValidatorSetsFrom(this.#c, from, to, limit));
  }

  async getElections(ids: readonly string[]): Promise<Map<string, ElectionRecord>> {
    return this.#reading(() => readers.readElections(this.#c, ids));
  }

  streamEvidence(height: number | undefined, page: PageOptions = {}): Batches<EvidenceEntry> {
    return evidencePages(
      {
        lastHeight: async () => this.#reading(() => (this.#c.read.chainState.get() as { height: number }).height),
        after: async (place, snapshot, only, count) => this.#reading(() => readers.readEvidenceAfter(this.#c, place, snapshot, only, count)),
      },
      height,
      page,
    );
  }

  async findLegacyTransactions(ids: readonly string[]): Promise<Set<string>> {
    return this.#reading(() => new Set(legacySeqsOf(this.#c, ids).keys()));
  }

  async getLegacyOutputs(refs: readonly LegacyOutputRef[]): Promise<Map<string, StoredLegacyOutput>> {
    return this.#reading(() => readers.readLegacyOutputs(this.#c, refs));
  }

  async getLegacyTransaction(id: string): Promise<string | null> {
    return this.#reading(() => readers.readLegacyTransaction(this.#c, id));
  }

  async getLegacyRecord(id: string): Promise<LegacyRecord | null> {
    return this.#reading(() => readers.readLegacyRecord(this.#c, id));
  }

  /** The database file and its write-ahead log; an in-memory database's pages. */
  async sizeBytes(): Promise<number> {
    const db = this.#c.db;
    if (onDisk(db.name)) return fileBytes(db.name) + fileBytes(`${db.name}-wal`);
    return (db.pragma("page_count", { simple: true }) as number) * (db.pragma("page_size", { simple: true }) as number);
  }

  onDamaged(listener: (error: Error) => void): void {
    this.#damaged = listener;
  }

  async close(): Promise<void> {
    await this.#checkpointer?.close();
    if (this.#c.db.open) this.#c.db.close();
  }

  #search(kind: "assets" | "metadata", query: string, limit?: number): Batches<SearchHit> {
    const c = this.#c;
    return this.#batches(() => {
      checkReadIndex(c.db, "text", lastSeqOf(c));
      const seqs = rankedSeqs(c, kind, query, limit, this.#searchLimits);
      return searchHits(c, kind, seqs);
    });
  }

  /** A reader opened in one read, then one read per batch: commits run between batches. */
  async *#batches<T>(open: () => BatchReader<T>): Batches<T> {
    const reader = this.#reading(open);
    for (;;) {
      const batch = this.#reading(() => reader.next());
      if (batch === null) return;
      yield batch;
    }
  }

  /** A block written (with its index rows, for `followBlock`, when `journal`), then the cache sized. */
  #commit(block: BlockWrite, journal: boolean): BlockRows | null {
    assert.ok(!this.#readOnly, "commitBlock on a read-only store");
    const db = this.#c.db;
    const bulk = this.#bulk;
    if (bulk !== null && !db.inTransaction) db.exec("BEGIN IMMEDIATE");
    const rows = guardDamage(db.name, () => this.#writer.commitBlock(block, journal));
    if (bulk !== null && (bulk.txs += block.txs.length + 1) >= bulkLoadTxsPerCommit) {
      this.#commitBulk();
      bulk.txs = 0;
    }
    this.#pageCache!.update();
    this.#startCheckpointerWhenDue();
    return rows;
  }

  /**
   * Runs a read; in a read-only store, on a snapshot that has caught up with the writer. A page
   * SQLite finds damaged is StoreDamaged (503), never a 500 (damage.ts).
   */
  #reading<T>(read: () => T): T {
    try {
      return guardDamage(this.#c.db.name, () => (this.#readOnly ? this.#readSnapshot(read) : read()));
    } catch (error) {
      if (error instanceof LedgerError && error.code === "StoreDamaged" && !this.#damageTold) {
        this.#damageTold = true;
        this.#damaged?.(error);
      }
      throw error;
    }
  }
}

/** A file's size, 0 when it is not there (a log not yet made, or checkpointed away). */
function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Runs `work` on a connection just opened, closing it (when `owned`) if `work` throws. */
function closedOnThrow(db: Database.Database, owned: boolean, work: () => void): void {
  try {
    work();
  } catch (error) {
    if (owned) db.close();
    throw error;
  }
}
