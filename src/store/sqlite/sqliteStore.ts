// The SQLite backend of the Store interface (`../store.ts`): one database file in WAL mode,
// written one block per SQLite transaction, read through statements prepared once.
//
// This folder owns: the schema (`schema.ts`, with why it is laid out as it is), the deferred
// hash indexes that keep commits fast as the ledger grows (`deferredIndex.ts`), the SQL
// (`queries.ts`), the options (`options.ts`), and the SQLite side of text search: which text is
// indexed (`searchText.ts`) and how a parsed search becomes an FTS5 MATCH (`toFtsMatch.ts`).
// The search syntax itself is `../textQuery.ts`, shared with every backend.
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
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { LedgerError } from "../../errors/ledgerError.js";
import { parseTextQuery } from "../textQuery.js";
import { legacyOutputKey, type LegacyOutputRef } from "../../legacy/committed.js";
import { outputKey, type CommittedTx, type Operation, type OutputRef } from "../../transaction/committed.js";
import type {
  BlockRecord,
  BlockWrite,
  ChainState,
  LegacyBlockWrite,
  LegacyRecord,
  SearchHit,
  Store,
  StoredLegacyOutput,
  StoredOutput,
  Validator,
} from "../store.js";
import { DeferredIndex, sliceOf, type IndexRow } from "./deferredIndex.js";
import { keyHash } from "./keyHash.js";
import { sqliteStoreOptionsDefault, type SqliteStoreOptions } from "./options.js";
import { indexTables, readSql, writeSql } from "./queries.js";
import { ensureSchema } from "./schema.js";
import { searchText } from "./searchText.js";
import { toFtsMatch } from "./toFtsMatch.js";

export interface SqliteStoreDeps {
  /** A connection to use instead of opening `options.path` (tests, tools). The store owns it. */
  readonly database?: Database.Database;
}

type Statements<T extends Record<string, string>> = { [K in keyof T]: Database.Statement };
type Indexes = { [K in keyof typeof indexTables]: DeferredIndex };

export class SqliteStore implements Store {
  readonly backend = "sqlite";

  /** Opens (creating when missing) the database at `options.path`, defaults for the rest. */
  static open(options: Partial<SqliteStoreOptions> = {}): SqliteStore {
    return new SqliteStore({ ...sqliteStoreOptionsDefault, ...options });
  }

  readonly #db: Database.Database;
  readonly #read: Statements<typeof readSql>;
  readonly #write: Statements<typeof writeSql>;
  readonly #index: Indexes;
  /** Per slice of the hashed indexes: rows with seq up to this are in the tables. */
  readonly #merged: number[];
  readonly #commit: (block: BlockWrite) => { slices: number[]; lastSeq: number };
  readonly #searchWordsMax: number;
  readonly #indexRowsWaitingMax: number;
  /** A read-only store follows another process's commits (#refresh). */
  readonly #readOnly: boolean;
  readonly #readSnapshot: <T>(read: () => T) => T;
  /** What #refresh has seen: the connection's data_version and the last seq. */
  #dataVersion = 0;
  #seenSeq = 0;

  constructor(options: SqliteStoreOptions, deps: SqliteStoreDeps = {}) {
    const slices = options.indexSlices;
    assert.ok(Number.isInteger(Math.log2(slices)) && slices <= 4096, "indexSlices: 2^n, <= 4096");
    const access = options.access ?? "owner";
    this.#db = deps.database ?? openDatabase(options.path, access);
    this.#readOnly = this.#db.readonly;
    assert.ok(this.#readOnly || access !== "reader", "access reader needs a read-only connection");
    const owner = access === "owner" && !this.#readOnly;
    // A reader fails at once on a file whose owner holds it, instead of waiting out a timeout.
    if (this.#readOnly) this.#db.pragma("busy_timeout = 0");
    configure(this.#db, options, owner);
    ensureSchema(this.#db, slices);
    if (this.#readOnly) this.#db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // A write takes the exclusive lock, and EXCLUSIVE mode keeps it until close: a second
    // ledgerd on the same file fails at open instead of writing behind this one's back.
    if (owner) this.#db.exec("BEGIN IMMEDIATE; UPDATE chain_state SET id = 1 WHERE id = 1; COMMIT");
    this.#read = prepareAll(this.#db, readSql);
    for (const name of singleColumnReads) this.#read[name].pluck();
    this.#write = prepareAll(this.#db, writeSql);
    this.#merged = this.#read.sweep.all() as number[];
    const db = this.#db;
    const count = this.#merged.length; // the database's own slice count
    const make = (t: { table: string; columns: readonly string[] }) =>
      new DeferredIndex(db, t.table, t.columns, count);
    this.#index = {
      ids: make(indexTables.ids),
      assets: make(indexTables.assets),
      keys: make(indexTables.keys),
      spent: make(indexTables.spent),
    };
    this.#dataVersion = this.#db.pragma("data_version", { simple: true }) as number;
    this.#seenSeq = (this.#read.lastSeq.get() as number | null) ?? 0;
    this.#restoreWaitingRows(Math.min(...this.#merged));
    const snapshot = this.#db.transaction((read: () => unknown) => {
      this.#refresh();
      return read();
    });
    this.#readSnapshot = <T>(read: () => T) => snapshot(read) as T;
    // IMMEDIATE: take the write lock at BEGIN, so a commit never fails halfway for a lock.
    const commit = this.#db.transaction((block: BlockWrite) => this.#writeBlock(block));
    this.#commit = (block) => commit.immediate(block);
    this.#searchWordsMax = options.searchWordsMax;
    this.#indexRowsWaitingMax = options.indexRowsWaitingMax;
  }

  /** The connection, for tests and diagnostics (pragmas, query plans). Do not write through it. */
  get database(): Database.Database {
    return this.#db;
  }

  async getChainState(): Promise<ChainState> {
    return this.#reading(() => {
      const row = this.#read.chainState.get() as ChainStateRow;
      return { height: row.height, appHash: row.appHash, chainId: row.chainId };
    });
  }

  async initChain(chainId: string, validators: readonly Validator[]): Promise<void> {
    assert.ok(!this.#readOnly, "initChain on a read-only store");
    this.#db
      .transaction(() => {
        const state = this.#read.chainState.get() as ChainStateRow;
        assert.equal(state.chainId, null, `initChain runs once; chain ${state.chainId} exists`);
        assert.equal(state.height, 0, "initChain runs before the first block");
        this.#write.setChainId.run(chainId);
        // The first validator set governs from height 1 (BigchainDB `init_chain`).
        this.#write.insertValidators.run(1, validatorsJson(validators));
      })
      .immediate();
  }

  async commitBlock(block: BlockWrite): Promise<void> {
    assert.ok(!this.#readOnly, "commitBlock on a read-only store");
    let merged: { slices: number[]; lastSeq: number };
    try {
      merged = this.#commit(block);
    } catch (error) {
      for (const index of Object.values(this.#index)) index.rolledBack();
      throw error;
    }
    for (const index of Object.values(this.#index)) index.committed(merged.slices);
    for (const slice of merged.slices) this.#merged[slice] = merged.lastSeq;
  }

  async findTransactions(ids: readonly string[]): Promise<Set<string>> {
    return this.#reading(() => {
      return new Set(this.#seqsOf(ids).keys());
    });
  }

  async getOutputs(refs: readonly OutputRef[]): Promise<Map<string, StoredOutput>> {
    return this.#reading(() => {
      const seqs = this.#seqsOf(refs.map((ref) => ref.transactionId));
      const places: Place[] = [];
      for (const ref of refs) {
        const seq = seqs.get(ref.transactionId);
        if (seq !== undefined) places.push([seq, ref.outputIndex]);
      }
      const rows = this.#outputsAt(places);
      const spenders = this.#spendersOf(places);
      const spenderIds = this.#idsAt(spenders.values());
      const outputs = new Map<string, StoredOutput>();
      for (const ref of refs) {
        const seq = seqs.get(ref.transactionId);
        const row = seq === undefined ? undefined : rows.get(placeKey(seq, ref.outputIndex));
        if (seq === undefined || row === undefined) continue;
        const spender = spenders.get(placeKey(seq, ref.outputIndex));
        outputs.set(outputKey(ref), {
          transactionId: ref.transactionId,
          outputIndex: ref.outputIndex,
          assetId: row.assetId,
          amount: BigInt(row.amount),
          conditionUri: row.conditionUri,
          publicKeys: JSON.parse(row.publicKeys) as string[],
          spentBy: spender === undefined ? null : (spenderIds.get(spender) as string),
        });
      }
      return outputs;
    });
  }

  async getTransaction(id: string): Promise<string | null> {
    return this.#reading(() => {
      for (const [seq] of this.#index.ids.lookup(keyHash(id))) {
        const json = this.#read.txJsonAt.get(seq, id) as string | undefined;
        if (json !== undefined) return json;
      }
      return null;
    });
  }

  async getTransactionsByAsset(
    assetId: string,
    options: { operation?: Operation; lastOnly?: boolean } = {},
  ): Promise<string[]> {
    return this.#reading(() => {
      const hash = keyHash(assetId);
      const lastOnly = options.lastOnly === true;
      const found: SeqJsonRow[] = [];
      // The CREATE is the transaction whose id is the asset id.
      if (options.operation !== "TRANSFER") {
        for (const [seq] of this.#index.ids.lookup(hash)) {
          const json = this.#read.createAt.get(seq, assetId) as string | undefined;
          if (json !== undefined) found.push({ seq: seq as number, json });
        }
      }
      // The TRANSFERs name the asset. Waiting index rows are newer than merged ones.
      if (options.operation !== "CREATE") {
        const waiting: SeqJsonRow[] = [];
        for (const row of this.#index.assets.waitingRows(hash)) {
          const seq = row[1] as number;
          const json = this.#read.transferAt.get(seq, assetId) as string | undefined;
          if (json !== undefined) waiting.push({ seq, json });
        }
        if (!lastOnly) {
          const merged = this.#read.transfersOfAsset.iterate(hash, assetId);
          for (const row of merged as Iterable<SeqJsonRow>) found.push(row);
        } else if (waiting.length === 0) {
          const last = this.#read.lastTransferOfAsset.get(hash, assetId) as SeqJsonRow | undefined;
          if (last !== undefined) found.push(last);
        }
        for (const row of waiting) found.push(row);
      }
      found.sort((a, b) => a.seq - b.seq); // commit order
      const last = found[found.length - 1];
      if (lastOnly) return last === undefined ? [] : [last.json];
      return found.map((tx) => tx.json);
    });
  }

  async getOutputsByPublicKey(publicKey: string, spent?: boolean): Promise<OutputRef[]> {
    return this.#reading(() => {
      const hash = keyHash(publicKey);
      const rows = this.#read.outputsOfKey.all(hash) as OutputOfKeyRow[];
      const waiting = this.#index.keys.waitingRows(hash).map((row) => [row[1], row[2]] as Place);
      for (const row of this.#outputsAt(waiting).values()) rows.push(row);
      rows.sort((a, b) => a.seq - b.seq || a.outputIndex - b.outputIndex); // commit order
      // keyHash is not unique: keep only outputs that really name this key.
      const names = (row: OutputOfKeyRow) =>
        (JSON.parse(row.publicKeys) as string[]).includes(publicKey);
      const mine = rows.filter(names);
      const spenders =
        spent === undefined ? new Map() : this.#spendersOf(mine.map((r) => [r.seq, r.outputIndex]));
      const refs: OutputRef[] = [];
      for (const row of mine) {
        const isSpent = spenders.has(placeKey(row.seq, row.outputIndex));
        if (spent !== undefined && spent !== isSpent) continue;
        refs.push({ transactionId: row.transactionId, outputIndex: row.outputIndex });
      }
      return refs;
    });
  }

  async searchAssets(query: string, limit: number): Promise<SearchHit[]> {
    return this.#reading(() => {
      return this.#search(this.#read.searchAssets, query, limit);
    });
  }

  async searchMetadata(query: string, limit: number): Promise<SearchHit[]> {
    return this.#reading(() => {
      return this.#search(this.#read.searchMetadata, query, limit);
    });
  }

  async getBlock(height: number): Promise<BlockRecord | null> {
    return this.#reading(() => {
      const row = this.#read.block.get(height) as BlockRow | undefined;
      if (row === undefined) return null;
      const end = row.seqFirst + row.txCount;
      const txIds = this.#read.txIdsBySeqRange.all(row.seqFirst, end) as string[];
      assert.equal(txIds.length, row.txCount, `block ${height} lost transactions`);
      return { height, appHash: row.appHash, txIds };
    });
  }

  async getBlockTransactions(height: number): Promise<string[] | null> {
    return this.#reading(() => {
      const row = this.#read.block.get(height) as BlockRow | undefined;
      if (row === undefined) return null;
      const end = row.seqFirst + row.txCount;
      const txs = this.#read.txJsonsBySeqRange.all(row.seqFirst, end) as string[];
      assert.equal(txs.length, row.txCount, `block ${height} lost transactions`);
      return txs;
    });
  }

  async getBlockHeightOfTransaction(id: string): Promise<number | null> {
    return this.#reading(() => {
      for (const [seq] of this.#index.ids.lookup(keyHash(id))) {
        const height = this.#read.txHeightAt.get(seq, id) as number | undefined;
        if (height !== undefined) return height;
      }
      return null;
    });
  }

  async getValidators(height?: number): Promise<Validator[]> {
    return this.#reading(() => {
      const at = height ?? Number.MAX_SAFE_INTEGER;
      const json = this.#read.validatorsAt.get(at) as string | undefined;
      return json === undefined ? [] : (JSON.parse(json) as Validator[]);
    });
  }

  async findLegacyTransactions(ids: readonly string[]): Promise<Set<string>> {
    return this.#reading(() => new Set(this.#legacySeqsOf(ids).keys()));
  }

  async getLegacyOutputs(refs: readonly LegacyOutputRef[]): Promise<Map<string, StoredLegacyOutput>> {
    return this.#reading(() => {
      const seqs = this.#legacySeqsOf(refs.map((ref) => ref.txid));
      const places: Place[] = [];
      for (const ref of refs) {
        const seq = seqs.get(ref.txid);
        if (seq !== undefined) places.push([seq, ref.cid]);
      }
      const rows = this.#legacyOutputsAt(places);
      const outputs = new Map<string, StoredLegacyOutput>();
      for (const ref of refs) {
        const seq = seqs.get(ref.txid);
        const row = seq === undefined ? undefined : rows.get(placeKey(seq, ref.cid));
        if (row === undefined) continue;
        outputs.set(legacyOutputKey(ref), {
          txid: ref.txid,
          cid: ref.cid,
          conditionUri: row.conditionUri,
          publicKeys: JSON.parse(row.publicKeys) as string[],
          spentBy: row.spentBy,
        });
      }
      return outputs;
    });
  }

  async getLegacyTransaction(id: string): Promise<string | null> {
    return this.#reading(() => {
      const json = this.#read.legacyTxJson.get(keyHash(id), id) as string | undefined;
      return json ?? null;
    });
  }

  async getLegacyRecord(id: string): Promise<LegacyRecord | null> {
    return this.#reading(() => {
      const hash = keyHash(id);
      const height = this.#read.legacyTxHeight.get(hash, id) as number | undefined;
      if (height !== undefined) return { status: "valid", height } as const;
      const refusal = this.#read.legacyLastRefusal.get(hash, id) as RefusalRow | undefined;
      if (refusal === undefined) return null;
      return { status: "invalid", height: refusal.height, code: refusal.code, message: refusal.message } as const;
    });
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  /** The seqs of the committed legacy transactions among these ids. */
  #legacySeqsOf(ids: Iterable<string>): Map<string, number> {
    const wanted = new Set(ids);
    const found = new Map<string, number>();
    if (wanted.size === 0) return found;
    const hashes = JSON.stringify([...new Set([...wanted].map(keyHash))]);
    for (const row of this.#read.legacyIdsIn.iterate(hashes) as Iterable<SeqIdRow>) {
      if (wanted.has(row.id)) found.set(row.id, row.seq);
    }
    return found;
  }

  /** The stored legacy outputs at these places ([seq, cid]), keyed by placeKey. */
  #legacyOutputsAt(places: readonly Place[]): Map<string, LegacyOutputRow> {
    const rows = new Map<string, LegacyOutputRow>();
    if (places.length === 0) return rows;
    const found = this.#read.legacyOutputsIn.iterate(JSON.stringify(places));
    for (const row of found as Iterable<LegacyOutputRow>) rows.set(placeKey(row.seq, row.cid), row);
    return rows;
  }

  /** The seqs of the committed transactions among these ids. */
  #seqsOf(ids: Iterable<string>): Map<string, number> {
    const wanted = new Map<string, number>(); // id -> keyHash
    for (const id of ids) if (!wanted.has(id)) wanted.set(id, keyHash(id));
    const found = new Map<string, number>();
    if (wanted.size === 0) return found;
    const rows =
      wanted.size === 1
        ? this.#read.idsEq.all(wanted.values().next().value)
        : this.#read.idsIn.iterate(JSON.stringify([...new Set(wanted.values())]));
    for (const row of rows as Iterable<{ id: string; seq: number }>) {
      if (wanted.has(row.id)) found.set(row.id, row.seq);
    }
    // Ids of recent transactions are in the waiting rows: check their candidates in one read.
    const candidates: number[] = [];
    for (const [id, hash] of wanted) {
      if (found.has(id)) continue;
      for (const row of this.#index.ids.waitingRows(hash)) candidates.push(row[1] as number);
    }
    for (const [seq, id] of this.#idsAt(candidates)) if (wanted.has(id)) found.set(id, seq);
    return found;
  }

  /** The ids of the transactions at these seqs. */
  #idsAt(seqs: Iterable<number>): Map<number, string> {
    const unique = [...new Set(seqs)];
    const ids = new Map<number, string>();
    if (unique.length === 0) return ids;
    if (unique.length === 1) {
      const id = this.#read.txIdAt.get(unique[0]) as string | undefined;
      if (id !== undefined) ids.set(unique[0]!, id);
      return ids;
    }
    for (const row of this.#read.txIdsIn.iterate(JSON.stringify(unique)) as Iterable<SeqIdRow>) {
      ids.set(row.seq, row.id);
    }
    return ids;
  }

  /** The stored outputs at these places, keyed by placeKey. */
  #outputsAt(places: readonly Place[]): Map<string, OutputRow> {
    const rows = new Map<string, OutputRow>();
    if (places.length === 0) return rows;
    for (const row of this.#read.outputsIn.iterate(JSON.stringify(places)) as Iterable<OutputRow>) {
      rows.set(placeKey(row.seq, row.outputIndex), row);
    }
    return rows;
  }

  /** The seqs of the transactions that spent these outputs, keyed by placeKey. */
  #spendersOf(places: readonly Place[]): Map<string, number> {
    const spenders = new Map<string, number>();
    if (places.length === 0) return spenders;
    const wanted = new Set(places.map(([seq, index]) => placeKey(seq, index)));
    const hashes = [...new Set(places.map(([seq, index]) => outputHash(seq, index)))];
    const merged = this.#read.spentIn.iterate(JSON.stringify(hashes)) as Iterable<SpentRow>;
    const rows: number[][] = [];
    for (const row of merged) rows.push([row.seq, row.outputIndex, row.spender]);
    for (const hash of hashes) {
      for (const row of this.#index.spent.waitingRows(hash)) rows.push(row.slice(1));
    }
    for (const [seq, index, spender] of rows as [number, number, number][]) {
      const key = placeKey(seq, index);
      if (wanted.has(key)) spenders.set(key, spender);
    }
    return spenders;
  }

  // Runs inside the commit transaction: any throw rolls the whole block back.
  #writeBlock(block: BlockWrite): { slices: number[]; lastSeq: number } {
    const state = this.#read.chainState.get() as ChainStateRow;
    assert.equal(block.height, state.height + 1, "block heights are contiguous");
    const seqFirst = ((this.#read.lastSeq.get() as number | null) ?? 0) + 1;
    const context = this.#blockContext(block.txs);
    for (let i = 0; i < block.txs.length; i++) {
      this.#writeTx(block.txs[i] as CommittedTx, seqFirst + i, block.height, context);
    }
    // Only a block that carried legacy transactions does any legacy work.
    if (block.legacy !== undefined) this.#writeLegacy(block.legacy, block.height, block.txs.length);
    this.#write.insertBlock.run(block.height, block.appHash, seqFirst, block.txs.length);
    if (block.validators !== undefined) {
      // A validator update takes effect from the next height (BigchainDB `end_block`).
      this.#write.insertValidators.run(block.height + 1, validatorsJson(block.validators));
    }
    this.#write.setHead.run(block.height, block.appHash);
    // Last: lookups above must not see rows both merged and waiting.
    const lastSeq = seqFirst + block.txs.length - 1;
    return { slices: this.#mergeSlices(lastSeq), lastSeq };
  }

  /** What the block's checks need from the committed state, read in a few bulk statements. */
  #blockContext(txs: readonly CommittedTx[]): BlockContext {
    const named = txs.flatMap((tx) => [tx.id, ...tx.spends.map((ref) => ref.transactionId)]);
    const ids = this.#seqsOf(named);
    const places: Place[] = [];
    for (const tx of txs) {
      for (const ref of tx.spends) {
        const seq = ids.get(ref.transactionId);
        if (seq !== undefined) places.push([seq, ref.outputIndex]);
      }
    }
    const outputs = new Set(this.#outputsAt(places).keys());
    return { ids, outputs, spent: this.#spendersOf(places) };
  }

  /** Writes one transaction; `context` holds the committed state plus this block so far. */
  #writeTx(tx: CommittedTx, seq: number, height: number, context: BlockContext): void {
    assert.equal(context.ids.get(tx.id), undefined, `${tx.id} is stored twice`);
    const { insertTx, insertInput, insertOutput } = this.#write;
    insertTx.run(seq, height, tx.operation, tx.id, tx.assetId, tx.assetData, tx.metadata, tx.json);
    context.ids.set(tx.id, seq);
    const rows = txIndexRows(seq, tx.id, tx.operation, tx.assetId);
    for (const row of rows.ids) this.#index.ids.add(row);
    for (const row of rows.assets) this.#index.assets.add(row);
    // Spends before outputs: a transaction can never spend its own output.
    for (let i = 0; i < tx.spends.length; i++) {
      const ref = tx.spends[i] as OutputRef;
      const spentSeq = context.ids.get(ref.transactionId);
      const place = spentSeq === undefined ? "" : placeKey(spentSeq, ref.outputIndex);
      // The validator checked these against the same state: failing here is a ledger bug.
      const what = `${tx.id} spends ${outputKey(ref)}`;
      assert.ok(context.outputs.has(place), `${what}, which does not exist`);
      const spender = context.spent.get(place);
      if (spender !== undefined) {
        const by = this.#read.txIdAt.get(spender) as string;
        assert.fail(`${what}, already spent by ${by}`);
      }
      context.spent.set(place, seq);
      insertInput.run(seq, i, spentSeq, ref.outputIndex);
      this.#index.spent.add(spentIndexRow(spentSeq as number, ref.outputIndex, seq));
    }
    for (const output of tx.outputs) {
      const index = output.outputIndex;
      const keys = JSON.stringify(output.publicKeys);
      insertOutput.run(seq, index, output.amount.toString(), output.conditionUri, keys);
      context.outputs.add(placeKey(seq, index));
      for (const row of keyIndexRows(seq, index, output.publicKeys)) this.#index.keys.add(row);
    }
    if (tx.assetData !== null) {
      this.#write.insertAssetText.run(seq, searchText(tx.id, tx.assetData));
    }
    if (tx.metadata !== null) {
      this.#write.insertMetadataText.run(seq, searchText(tx.id, tx.metadata));
    }
  }

  /**
   * Writes the block's legacy part, checking each spend against the committed legacy outputs
   * plus those written earlier in the block (one spent index for both variants). Inside the
   * commit transaction: an assertion rolls the whole block back.
   */
  #writeLegacy(legacy: LegacyBlockWrite, height: number, currentCount: number): void {
    const { insertLegacyTx, insertLegacyOutput, spendLegacyOutput, insertLegacyInvalid } = this.#write;
    const ids = this.#legacySeqsOf(legacy.txs.flatMap((tx) => [tx.id, ...tx.spends.map((r) => r.txid)]));
    const places: Place[] = [];
    for (const tx of legacy.txs) {
      for (const ref of tx.spends) {
        const seq = ids.get(ref.txid);
        if (seq !== undefined) places.push([seq, ref.cid]);
      }
    }
    const stored = this.#legacyOutputsAt(places);
    const outputs = new Set(stored.keys());
    const spent = new Set([...stored].filter(([, row]) => row.spentBy !== null).map(([key]) => key));
    const validCount = currentCount + legacy.txs.length;
    let seq = ((this.#read.legacyLastSeq.get() as number | null) ?? 0) + 1;
    let position = -1;
    for (const tx of legacy.txs) {
      assert.equal(ids.get(tx.id), undefined, `legacy ${tx.id} is stored twice`);
      assert.ok(tx.position > position && tx.position < validCount, `legacy ${tx.id}: bad position`);
      position = tx.position;
      const hash = keyHash(tx.id);
      insertLegacyTx.run(seq, hash, tx.id, height, tx.position, tx.variant, tx.operation, tx.json);
      ids.set(tx.id, seq);
      // Spends before outputs: a transaction can never spend its own output.
      for (const ref of tx.spends) {
        const spentSeq = ids.get(ref.txid);
        const place = spentSeq === undefined ? "" : placeKey(spentSeq, ref.cid);
        // The validator checked these against the same state: failing here is a ledger bug.
        const what = `legacy ${tx.id} spends ${legacyOutputKey(ref)}`;
        assert.ok(outputs.has(place), `${what}, which does not exist`);
        assert.ok(!spent.has(place), `${what}, which is already spent`);
        spent.add(place);
        const changed = spendLegacyOutput.run(seq, spentSeq, ref.cid).changes;
        assert.equal(changed, 1, `${what}: the output row did not take the spend`);
      }
      for (const output of tx.outputs) {
        const keys = JSON.stringify(output.publicKeys);
        insertLegacyOutput.run(seq, output.cid, output.conditionUri, keys);
        outputs.add(placeKey(seq, output.cid));
      }
      seq++;
    }
    for (const refused of legacy.invalid) {
      insertLegacyInvalid.run(keyHash(refused.id), refused.id, height, refused.code, refused.message);
    }
  }

  /**
   * Merges the slice that waited longest, and more while too many rows wait. Inside the commit
   * transaction; the in-memory side follows in commitBlock once the commit has succeeded.
   */
  #mergeSlices(lastSeq: number): number[] {
    const order = this.#merged.map((mark, slice) => ({ mark, slice }));
    order.sort((a, b) => a.mark - b.mark || a.slice - b.slice);
    const waiting = (slice: number) =>
      indexNames.reduce((n, name) => n + this.#index[name].waitingCount(slice), 0);
    let left = order.reduce((n, { slice }) => n + waiting(slice), 0);
    const slices: number[] = [];
    for (const { slice } of order) {
      if (slices.length > 0) {
        if (left <= this.#indexRowsWaitingMax) break;
        if (waiting(slice) === 0) continue; // the extra merges are for rows, not marks
      }
      slices.push(slice);
      left -= waiting(slice);
    }
    for (const name of indexNames) this.#index[name].merge(slices);
    for (const slice of slices) this.#write.setSweep.run(lastSeq, slice);
    return slices;
  }

  /**
   * Re-derives, exactly as #writeTx derived them, the index rows of the transactions after seq
   * `from` that are above their slice's merge mark, so lookups see every committed transaction.
   * On open, and in a read-only store for each block the writer committed.
   */
  #restoreWaitingRows(from: number): void {
    const slices = this.#merged.length;
    const restore = (name: IndexName, row: IndexRow, seq: number) => {
      if (seq > (this.#merged[sliceOf(row[0] as number, slices)] as number)) {
        this.#index[name].restore(row);
      }
    };
    for (const tx of this.#read.txsAfter.iterate(from) as Iterable<TxRow>) {
      const rows = txIndexRows(tx.seq, tx.id, tx.operation, tx.assetId);
      for (const row of rows.ids) restore("ids", row, tx.seq);
      for (const row of rows.assets) restore("assets", row, tx.seq);
    }
    for (const output of this.#read.outputsAfter.iterate(from) as Iterable<OutputAfterRow>) {
      const keys = JSON.parse(output.publicKeys) as string[];
      for (const row of keyIndexRows(output.seq, output.outputIndex, keys)) {
        restore("keys", row, output.seq);
      }
    }
    for (const input of this.#read.inputsAfter.iterate(from) as Iterable<InputAfterRow>) {
      const row = spentIndexRow(input.txSeq, input.outputIndex, input.spenderSeq);
      restore("spent", row, input.spenderSeq);
    }
  }

  /**
   * In a read-only store, inside the read transaction: catches up with the writer. A slice whose
   * mark moved was merged after the last refresh, so all its staged rows are in the table now.
   */
  #refresh(): void {
    const version = this.#db.pragma("data_version", { simple: true }) as number;
    if (version === this.#dataVersion) return;
    this.#dataVersion = version;
    const marks = this.#read.sweep.all() as number[];
    for (let slice = 0; slice < marks.length; slice++) {
      if (marks[slice] === this.#merged[slice]) continue;
      for (const name of indexNames) this.#index[name].dropSlice(slice);
      this.#merged[slice] = marks[slice] as number;
    }
    const from = this.#seenSeq;
    this.#seenSeq = (this.#read.lastSeq.get() as number | null) ?? 0;
    this.#restoreWaitingRows(from);
  }

  /** Runs a read; in a read-only store, on a snapshot that has caught up with the writer. */
  #reading<T>(read: () => T): T {
    return this.#readOnly ? this.#readSnapshot(read) : read();
  }

  #search(statement: Database.Statement, query: string, limit: number): SearchHit[] {
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new LedgerError("BadParameter", "limit must be a whole number, 0 or more");
    }
    // Refuses a search over the word or phrase caps (every word counted, repeats included).
    const parsed = parseTextQuery(query, this.#searchWordsMax);
    const match = toFtsMatch(parsed);
    if (match === null) return [];
    try {
      return statement.all(match, limit === 0 ? -1 : limit) as SearchHit[];
    } catch (error) {
      // Every word is quoted, so this is not expected; if FTS5 still objects, it is the query.
      if (error instanceof Database.SqliteError && error.message.startsWith("fts5:")) {
        throw new LedgerError("BadParameter", "text_search cannot be parsed", { cause: error });
      }
      throw error;
    }
  }
}

// Reads of one column return the value itself, not a row object.
const singleColumnReads = [
  "lastSeq",
  "txIdAt",
  "txJsonAt",
  "txHeightAt",
  "createAt",
  "transferAt",
  "txIdsBySeqRange",
  "txJsonsBySeqRange",
  "validatorsAt",
  "sweep",
  "legacyLastSeq",
  "legacyTxJson",
  "legacyTxHeight",
] as const satisfies readonly (keyof typeof readSql)[];

type IndexName = keyof typeof indexTables;
const indexNames = Object.keys(indexTables) as IndexName[];

// The index rows of a transaction. Commit and restore both derive them here, so they agree.

function txIndexRows(seq: number, id: string, operation: string, assetId: string) {
  return {
    ids: [[keyHash(id), seq]] as IndexRow[],
    // A CREATE is found by its id; only TRANSFERs go in the asset index.
    assets: (operation === "TRANSFER" ? [[keyHash(assetId), seq]] : []) as IndexRow[],
  };
}

function keyIndexRows(seq: number, outputIndex: number, keys: readonly string[]): IndexRow[] {
  // Two keys of one output may share a hash; one row serves both.
  return [...new Set(keys.map(keyHash))].map((hash) => [hash, seq, outputIndex]);
}

function spentIndexRow(txSeq: number, outputIndex: number, spenderSeq: number): IndexRow {
  return [outputHash(txSeq, outputIndex), txSeq, outputIndex, spenderSeq];
}

/** Spent outputs are indexed by a hash of their place, so a merge touches one range. */
function outputHash(txSeq: number, outputIndex: number): number {
  return keyHash(`${txSeq}:${outputIndex}`);
}

/** An output's place: [seq of its transaction, output index]. */
type Place = [number, number];

function placeKey(seq: number, outputIndex: number): string {
  return `${seq}:${outputIndex}`;
}

/** The committed state a block's checks read, updated as the block's transactions are written. */
interface BlockContext {
  /** Transaction id -> seq. */
  readonly ids: Map<string, number>;
  /** placeKey of every output that exists. */
  readonly outputs: Set<string>;
  /** placeKey -> seq of the spender. */
  readonly spent: Map<string, number>;
}

interface LegacyOutputRow {
  seq: number;
  cid: number;
  conditionUri: string;
  publicKeys: string;
  spentBy: string | null;
}

interface RefusalRow {
  height: number;
  code: string;
  message: string;
}

interface SeqJsonRow {
  seq: number;
  json: string;
}

interface SeqIdRow {
  seq: number;
  id: string;
}

interface SpentRow {
  seq: number;
  outputIndex: number;
  spender: number;
}

interface OutputOfKeyRow {
  seq: number;
  outputIndex: number;
  transactionId: string;
  publicKeys: string;
}

interface ChainStateRow {
  chainId: string | null;
  height: number;
  appHash: string;
}

interface OutputRow {
  seq: number;
  outputIndex: number;
  transactionId: string;
  assetId: string;
  amount: string;
  conditionUri: string;
  publicKeys: string;
}

interface BlockRow {
  appHash: string;
  seqFirst: number;
  txCount: number;
}

interface TxRow {
  seq: number;
  id: string;
  operation: string;
  assetId: string;
}

interface OutputAfterRow {
  seq: number;
  outputIndex: number;
  publicKeys: string;
}

interface InputAfterRow {
  spenderSeq: number;
  txSeq: number;
  outputIndex: number;
}

/** How long a statement waits for a lock another connection holds (better-sqlite3's default). */
const busyTimeoutMs = 5000;

function openDatabase(path: string, access: "owner" | "readers" | "reader"): Database.Database {
  if (access === "reader") return new Database(path, { readonly: true, fileMustExist: true });
  if (path !== ":memory:" && path !== "") mkdirSync(dirname(path), { recursive: true });
  return new Database(path, { timeout: busyTimeoutMs });
}

function configure(db: Database.Database, options: SqliteStoreOptions, owner: boolean): void {
  // Before WAL is entered, so an owner makes no shared-memory index either.
  if (owner) db.pragma("locking_mode = EXCLUSIVE");
  // WAL: readers (HTTP workers) do not block the writer, and a commit is one sequential append.
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${options.synchronous.toUpperCase()}`);
  db.pragma(`cache_size = -${Math.floor(options.cacheSizeBytes / 1024)}`);
  db.pragma(`mmap_size = ${Math.floor(options.mmapSizeBytes)}`);
  db.pragma(`wal_autocheckpoint = ${Math.floor(options.walAutocheckpointPages)}`);
  db.pragma(`journal_size_limit = ${Math.floor(options.journalSizeLimitBytes)}`);
  db.pragma("temp_store = MEMORY");
}

function prepareAll<T extends Record<string, string>>(
  db: Database.Database,
  sql: T,
): Statements<T> {
  const statements: Partial<Record<keyof T, Database.Statement>> = {};
  for (const name of Object.keys(sql) as (keyof T)[]) {
    statements[name] = db.prepare(sql[name] as string);
  }
  return statements as Statements<T>;
}

function validatorsJson(validators: readonly Validator[]): string {
  return JSON.stringify(validators.map((v) => ({ publicKey: v.publicKey, power: v.power })));
}
