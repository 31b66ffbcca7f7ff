// The SQLite backend of the Store interface (`../store.ts`): one database file in WAL mode,
// written one block per SQLite transaction, read through statements prepared once.
//
// This folder owns: the schema (`schema.ts`, with why it is laid out as it is), the SQL
// (`queries.ts`), the options (`options.ts`), and the SQLite side of text search: which text is
// indexed (`searchText.ts`) and how a parsed search becomes an FTS5 MATCH (`toFtsMatch.ts`).
// The search syntax itself is `../textQuery.ts`, shared with every backend.
//
// better-sqlite3 is synchronous; the interface is async so that a networked backend fits. Each
// method does its work synchronously and returns a settled promise, so a commit never
// interleaves with a read.
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
import { outputKey } from "../store.js";
import type {
  BlockRecord,
  BlockWrite,
  ChainState,
  CommittedTx,
  Operation,
  OutputRef,
  SearchHit,
  Store,
  StoredOutput,
  Validator,
} from "../store.js";
import { keyHash } from "./keyHash.js";
import { sqliteStoreOptionsDefault, type SqliteStoreOptions } from "./options.js";
import { readSql, writeSql } from "./queries.js";
import { ensureSchema } from "./schema.js";
import { searchText } from "./searchText.js";
import { toFtsMatch } from "./toFtsMatch.js";

export interface SqliteStoreDeps {
  /** A connection to use instead of opening `options.path` (tests, tools). The store owns it. */
  readonly database?: Database.Database;
}

type Statements<T extends Record<string, string>> = { [K in keyof T]: Database.Statement };

export class SqliteStore implements Store {
  readonly backend = "sqlite";

  /** Opens (creating when missing) the database at `options.path`, defaults for the rest. */
  static open(options: Partial<SqliteStoreOptions> = {}): SqliteStore {
    return new SqliteStore({ ...sqliteStoreOptionsDefault, ...options });
  }

  readonly #db: Database.Database;
  readonly #read: Statements<typeof readSql>;
  readonly #write: Statements<typeof writeSql>;
  readonly #commit: (block: BlockWrite) => void;
  readonly #searchWordsMax: number;

  constructor(options: SqliteStoreOptions, deps: SqliteStoreDeps = {}) {
    this.#db = deps.database ?? openDatabase(options.path);
    configure(this.#db, options);
    ensureSchema(this.#db);
    this.#read = prepareAll(this.#db, readSql);
    for (const name of singleColumnReads) this.#read[name].pluck();
    this.#write = prepareAll(this.#db, writeSql);
    // IMMEDIATE: take the write lock at BEGIN, so a commit never fails halfway for a lock.
    const commit = this.#db.transaction((block: BlockWrite) => this.#writeBlock(block));
    this.#commit = (block) => commit.immediate(block);
    this.#searchWordsMax = options.searchWordsMax;
  }

  /** The connection, for tests and diagnostics (pragmas, query plans). Do not write through it. */
  get database(): Database.Database {
    return this.#db;
  }

  async getChainState(): Promise<ChainState> {
    const row = this.#read.chainState.get() as ChainStateRow;
    return { height: row.height, appHash: row.appHash, chainId: row.chainId };
  }

  async initChain(chainId: string, validators: readonly Validator[]): Promise<void> {
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
    this.#commit(block);
  }

  async findTransactions(ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const id of ids) {
      if (this.#read.txSeqById.get(keyHash(id), id) !== undefined) found.add(id);
    }
    return found;
  }

  async getOutputs(refs: readonly OutputRef[]): Promise<Map<string, StoredOutput>> {
    const outputs = new Map<string, StoredOutput>();
    for (const ref of refs) {
      const key = outputKey(ref);
      if (outputs.has(key)) continue;
      const { transactionId: id, outputIndex } = ref;
      const row = this.#read.output.get(keyHash(id), id, outputIndex) as OutputRow | undefined;
      if (row === undefined) continue;
      outputs.set(key, {
        transactionId: id,
        outputIndex,
        assetId: row.assetId,
        amount: BigInt(row.amount),
        conditionUri: row.conditionUri,
        publicKeys: JSON.parse(row.publicKeys) as string[],
        spentBy: row.spentBy,
      });
    }
    return outputs;
  }

  async getTransaction(id: string): Promise<string | null> {
    const json = this.#read.txJsonById.get(keyHash(id), id) as string | undefined;
    return json ?? null;
  }

  async getTransactionsByAsset(
    assetId: string,
    options: { operation?: Operation; lastOnly?: boolean } = {},
  ): Promise<string[]> {
    // The CREATE is the transaction whose id is the asset id; the TRANSFERs name it.
    const key = keyHash(assetId);
    const rows: SeqJsonRow[] = [];
    if (options.operation !== "TRANSFER") {
      const create = this.#read.createOfAsset.get(key, assetId) as SeqJsonRow | undefined;
      if (create !== undefined) rows.push(create);
    }
    if (options.operation !== "CREATE") {
      const transfers = options.lastOnly === true
        ? this.#read.lastTransferOfAsset
        : this.#read.transfersOfAsset;
      rows.push(...(transfers.all(key, assetId) as SeqJsonRow[]));
    }
    rows.sort((a, b) => a.seq - b.seq); // commit order; the CREATE comes first in any ledger
    const last = rows[rows.length - 1];
    if (options.lastOnly === true) return last === undefined ? [] : [last.json];
    return rows.map((row) => row.json);
  }

  async getOutputsByPublicKey(publicKey: string, spent?: boolean): Promise<OutputRef[]> {
    const statement =
      spent === undefined
        ? this.#read.outputsByKey
        : spent
          ? this.#read.outputsByKeySpent
          : this.#read.outputsByKeyUnspent;
    const rows = statement.all(keyHash(publicKey)) as OutputByKeyRow[];
    const refs: OutputRef[] = [];
    for (const row of rows) {
      // keyHash is not unique: keep only outputs that really name this key.
      if (!(JSON.parse(row.publicKeys) as string[]).includes(publicKey)) continue;
      refs.push({ transactionId: row.transactionId, outputIndex: row.outputIndex });
    }
    return refs;
  }

  async searchAssets(query: string, limit: number): Promise<SearchHit[]> {
    return this.#search(this.#read.searchAssets, query, limit);
  }

  async searchMetadata(query: string, limit: number): Promise<SearchHit[]> {
    return this.#search(this.#read.searchMetadata, query, limit);
  }

  async getBlock(height: number): Promise<BlockRecord | null> {
    const row = this.#read.block.get(height) as BlockRow | undefined;
    if (row === undefined) return null;
    const end = row.seqFirst + row.txCount;
    const txIds = this.#read.txIdsBySeqRange.all(row.seqFirst, end) as string[];
    assert.equal(txIds.length, row.txCount, `block ${height} lost transactions`);
    return { height, appHash: row.appHash, txIds };
  }

  async getBlockTransactions(height: number): Promise<string[] | null> {
    const row = this.#read.block.get(height) as BlockRow | undefined;
    if (row === undefined) return null;
    const end = row.seqFirst + row.txCount;
    const txs = this.#read.txJsonsBySeqRange.all(row.seqFirst, end) as string[];
    assert.equal(txs.length, row.txCount, `block ${height} lost transactions`);
    return txs;
  }

  async getBlockHeightOfTransaction(id: string): Promise<number | null> {
    const height = this.#read.txHeightById.get(keyHash(id), id) as number | undefined;
    return height ?? null;
  }

  async getValidators(height?: number): Promise<Validator[]> {
    const at = height ?? Number.MAX_SAFE_INTEGER;
    const json = this.#read.validatorsAt.get(at) as string | undefined;
    return json === undefined ? [] : (JSON.parse(json) as Validator[]);
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  // Runs inside the commit transaction: any throw rolls the whole block back.
  #writeBlock(block: BlockWrite): void {
    const state = this.#read.chainState.get() as ChainStateRow;
    assert.equal(block.height, state.height + 1, "block heights are contiguous");
    const lastSeq = this.#read.lastSeq.get() as number | null;
    const seqFirst = (lastSeq ?? 0) + 1;
    for (let i = 0; i < block.txs.length; i++) {
      this.#writeTx(block.txs[i] as CommittedTx, seqFirst + i, block.height);
    }
    this.#write.insertBlock.run(block.height, block.appHash, seqFirst, block.txs.length);
    if (block.validators !== undefined) {
      // A validator update takes effect from the next height (BigchainDB `end_block`).
      this.#write.insertValidators.run(block.height + 1, validatorsJson(block.validators));
    }
    this.#write.setHead.run(block.height, block.appHash);
  }

  #writeTx(tx: CommittedTx, seq: number, height: number): void {
    const idKey = keyHash(tx.id);
    assert.equal(this.#read.txSeqById.get(idKey, tx.id), undefined, `${tx.id} is stored twice`);
    const { insertTx, insertOutput, insertOutputKey } = this.#write;
    insertTx.run(seq, idKey, keyHash(tx.assetId), height, tx.operation, tx.id, tx.assetId, tx.json);
    // Spends before outputs: a transaction can never spend its own output.
    for (const ref of tx.spends) this.#markSpent(ref, seq, tx.id);
    for (const output of tx.outputs) {
      const index = output.outputIndex;
      const keys = JSON.stringify(output.publicKeys);
      insertOutput.run(seq, index, output.amount.toString(), output.conditionUri, keys);
      for (const key of output.publicKeys) insertOutputKey.run(keyHash(key), seq, index);
    }
    if (tx.assetData !== null) {
      this.#write.insertAsset.run(seq, tx.assetData);
      this.#write.insertAssetText.run(seq, searchText(tx.id, tx.assetData));
    }
    if (tx.metadata !== null) {
      this.#write.insertMetadata.run(seq, tx.metadata);
      this.#write.insertMetadataText.run(seq, searchText(tx.id, tx.metadata));
    }
  }

  #markSpent(ref: OutputRef, seq: number, spenderId: string): void {
    const { transactionId: id, outputIndex } = ref;
    const changes = this.#write.markSpent.run(seq, keyHash(id), id, outputIndex).changes;
    if (changes === 1) return;
    // The validator checked this against the same state: reaching here is a ledger bug.
    const row = this.#read.output.get(keyHash(id), id, outputIndex) as OutputRow | undefined;
    assert.fail(
      row === undefined
        ? `${spenderId} spends ${outputKey(ref)}, which does not exist`
        : `${spenderId} spends ${outputKey(ref)}, already spent by ${String(row.spentBy)}`,
    );
  }

  #search(statement: Database.Statement, query: string, limit: number): SearchHit[] {
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new LedgerError("BadParameter", "limit must be a whole number, 0 or more");
    }
    const parsed = parseTextQuery(query);
    // Phrase words are terms too; count each word once.
    const words = new Set([...parsed.terms, ...parsed.phrases.flat(), ...parsed.excluded.flat()]);
    if (words.size > this.#searchWordsMax) {
      throw new LedgerError("BadParameter", `text_search has more than ${this.#searchWordsMax} words`);
    }
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
  "txSeqById",
  "txJsonById",
  "txHeightById",
  "txIdsBySeqRange",
  "txJsonsBySeqRange",
  "validatorsAt",
] as const satisfies readonly (keyof typeof readSql)[];

interface ChainStateRow {
  chainId: string | null;
  height: number;
  appHash: string;
}

interface OutputRow {
  assetId: string;
  amount: string;
  conditionUri: string;
  publicKeys: string;
  spentBy: string | null;
}

interface OutputByKeyRow {
  transactionId: string;
  outputIndex: number;
  publicKeys: string;
}

interface SeqJsonRow {
  seq: number;
  json: string;
}

interface BlockRow {
  appHash: string;
  seqFirst: number;
  txCount: number;
}

function openDatabase(path: string): Database.Database {
  if (path !== ":memory:" && path !== "") mkdirSync(dirname(path), { recursive: true });
  return new Database(path);
}

function configure(db: Database.Database, options: SqliteStoreOptions): void {
  // WAL: readers do not block the writer, and a commit is one sequential append to the log.
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
