// The PostgreSQL backend of the Store interface (`../store.ts`, docs/postgres.md): a pool of
// read connections and, in a writer, one connection of its own that writes each block in one
// database transaction and holds an advisory lock for the store's life, so that a second
// writer on the same database fails at open.
//
// This folder owns: the schema and its migrations (`schema.ts`), connections and what a
// connection failure becomes (`connection.ts`: a LedgerError StoreUnavailable, a 503), the
// block writer (`blockWriter.ts`), the readers' access (`reads.ts`), the long answers by key
// (`pagedReads.ts`), text search (`search.ts`, on `textSearch.ts` and `bm25.ts`) and
// verify-chain's check of every derived row against the transactions (`derivedCheck.ts`). Every read
// is one statement, so it sees one committed state; a long answer is read in batches as of the
// seq committed last when it began (spent-ness as of then too), as in the SQLite backend, and
// with the same positions.
//
// While PostgreSQL is down every read and write fails with StoreUnavailable and nothing is
// written; the pool and the writer's connection reconnect by themselves when it returns.

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { LedgerError } from "../../errors/ledgerError.js";
import { legacyOutputKey, type LegacyOutputRef } from "../../legacy/committed.js";
import type { CommitmentVersion } from "../../proofs/commitment.js";
import { outputKey, type Operation, type OutputRef } from "../../transaction/committed.js";
import { inBlockOrder } from "../blockOrder.js";
import type { FieldFilter } from "../fieldQuery.js";
import type {
  Balance,
  Batches,
  BlockContents,
  RefusedLegacyTx,
  BlockRecord,
  BlockWrite,
  ChainRules,
  ChainState,
  DerivedCheck,
  ElectionRecord,
  Evidence,
  EvidenceEntry,
  StoredSignedHeader,
  FieldHit,
  HistoryEntry,
  LegacyRecord,
  NodePlace,
  OutputEntry,
  PageOptions,
  SearchHit,
  Store,
  StoredBlockTx,
  StoredLegacyOutput,
  StoredOutput,
  Validator,
  ValidatorSet,
  StreamBlockPage,
  StreamBlockRecord,
} from "../store.js";
import { chainRulesOfColumns } from "../chainRules.js";
import { pageOfHeads, seqRangeOf, streamBlocksOf, type StreamBlockHead, type StreamTxRow } from "../streamBlocks.js";
import { PostgresDerivedCheck } from "./derivedCheck.js";
import { readStoredText, startWriterSession, writeBlock, writeInitChain } from "./blockWriter.js";
import { connectionConfig, isCancelled, isUnavailable, openPool, reachable, storeUnavailable } from "./connection.js";
import { postgresStoreOptionsDefault, type PostgresStoreOptions } from "./options.js";
import { assetHistory, balances, fieldMatches, outputEntries } from "./pagedReads.js";
import { batchRowsMax, Reads } from "./reads.js";
import { ensurePostgresSchema } from "./schema.js";
import { evidencePages } from "../evidencePages.js";
import { searchHits, searchPage } from "./search.js";

/** chain_state's columns as the driver gives them. */
interface ChainStateColumns {
  height: number;
  app_hash: string;
  chain_id: string | null;
  commitment: CommitmentVersion;
  history_size: number;
  app_version: string | null;
  rule_heights: string;
}

/** The advisory lock a writer holds (any constant; ledgerd takes no other). */
const writerLockKey = 7_016_161_415;
/** How long an open waits for a held writer's lock to be let go before it refuses. */
export const writerLockWaitMsMax = 5_000;
const writerLockPollMs = 100;
/** A bulk load's session: commits do not wait for their WAL flush (beginBulkLoad). */
const bulkLoadSessionSql = "SET synchronous_commit = off";

async function tryWriterLock(client: pg.Client): Promise<boolean> {
  const locked = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [writerLockKey]);
  return locked.rows[0]?.locked === true;
}

/** What the store tells its opener: it has no logger of its own. */
export interface PostgresStoreDeps {
  /**
   * The vacuum a bulk load's end started in the background failed (the server went away, an
   * operator cancelled it): nothing waits for it, so without this nobody would know. Not
   * called when `close` cancelled it.
   */
  readonly onVacuumError?: (error: Error) => void;
}

export class PostgresStore implements Store {
  readonly backend = "postgres";

  /** Connects, creates or migrates the schema (a writer), and takes the writer's lock. */
  static async open(options: Partial<PostgresStoreOptions> = {}, deps: PostgresStoreDeps = {}): Promise<PostgresStore> {
    const full = { ...postgresStoreOptionsDefault, ...options };
    const store = new PostgresStore(full, deps);
    try {
      await store.#start();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  readonly #options: PostgresStoreOptions;
  readonly #deps: PostgresStoreDeps;
  readonly #pool: pg.Pool;
  readonly #reads: Reads;
  #writer: pg.Client | null = null;
  /** The writer's connection broke (the server restarted): reopen it before the next write. */
  #writerBroken = false;
  #closed = false;
  /** The block of a commit that failed with the connection: it may have been written. */
  #uncertain: { height: number; appHash: string } | null = null;
  /** In a bulk load, and the transactions bulk loads committed since this store last vacuumed. */
  #bulk = false;
  #bulkTxs = 0;
  /** The vacuum a bulk load's end started, on a connection of its own, while it runs. */
  #vacuum: Promise<void> | null = null;
  /** That connection's server process, for `close` to cancel the vacuum. */
  #vacuumPid: number | null = null;

  private constructor(options: PostgresStoreOptions, deps: PostgresStoreDeps) {
    this.#options = options;
    this.#deps = deps;
    this.#pool = openPool(options);
    this.#reads = new Reads(this.#pool);
  }

  async #start(): Promise<void> {
    if (this.#options.access === "writer") {
      const client = await this.#connectWriter();
      await ensurePostgresSchema(client, true);
    } else {
      const client = await this.#pool.connect();
      try {
        await ensurePostgresSchema(client, false);
      } finally {
        client.release();
      }
    }
  }

  /**
   * Opens the writer's connection and takes the lock; a second writer is refused here. On a
   * reconnect a held lock is most likely this store's own broken session, which the server has
   * not closed yet: unavailable for now, not another writer.
   */
  async #connectWriter(reconnect = false): Promise<pg.Client> {
    const client = new pg.Client(connectionConfig(this.#options));
    client.on("error", () => {
      this.#writerBroken = true;
    });
    await client.connect();
    await startWriterSession(client);
    // A session's setting: a writer reconnected during a bulk load takes the load's again.
    if (this.#bulk) await client.query(bulkLoadSessionSql);
    // At an open, a held lock may be a writer killed a moment ago whose session the server has
    // not closed yet (it notices the socket's end when it next reads): wait that out, within a
    // bound, before calling the holder another writer. A reconnect does not wait: see above.
    const deadline = Date.now() + (reconnect ? 0 : writerLockWaitMsMax);
    let locked = await tryWriterLock(client);
    while (!locked && Date.now() < deadline) {
      await sleep(writerLockPollMs);
      locked = await tryWriterLock(client);
    }
    if (!locked) {
      await client.end();
      const held = "another ledgerd writes to this PostgreSQL database (it holds ledgerd's advisory lock)";
      throw reconnect ? storeUnavailable(new Error(`${held}; if it is this node's own dropped session, the server closes it soon`)) : new Error(held);
    }
    this.#writer = client;
    this.#writerBroken = false;
    return client;
  }

  /** The writer's connection, reopened if the server dropped it. */
  async #writerClient(): Promise<pg.Client> {
    assert.equal(this.#options.access, "writer", "a write on a reader store");
    if (this.#writer !== null && !this.#writerBroken) return this.#writer;
    const broken = this.#writer;
    this.#writer = null;
    await broken?.end().catch(() => undefined);
    return this.#connectWriter(broken !== null);
  }

  async #write(work: (client: pg.Client) => Promise<void>): Promise<void> {
    try {
      await work(await this.#writerClient());
    } catch (error) {
      // A write the server cancelled (`database.statement_timeout_ms` ran out while, say, an
      // operator's session held a lock it waits for) was rolled back: the engine holds the
      // block and tries again, as while the server is away, instead of stopping the node.
      if (isCancelled(error)) throw new LedgerError("StoreUnavailable", `PostgreSQL cancelled the block's write (${(error as Error).message}); the node tries again`, { cause: error });
      if (!isUnavailable(error)) throw error;
      this.#writerBroken = true;
      throw storeUnavailable(error);
    }
  }

  async #rows<R extends pg.QueryResultRow>(sql: string, values: readonly unknown[] = []): Promise<R[]> {
    return this.#reads.rows<R>(sql, values);
  }

  /** The database's size on disk, as PostgreSQL reports it (`pg_database_size`). */
  async sizeBytes(): Promise<number> {
    const rows = await this.#rows<{ bytes: string | number }>("SELECT pg_database_size(current_database()) AS bytes");
    return Number(rows[0]!.bytes);
  }

  async getChainState(): Promise<ChainState> {
    const rows = await this.#rows<ChainStateColumns>(
      "SELECT height, app_hash, chain_id, commitment, history_size, app_version, rule_heights FROM chain_state WHERE id = 1",
    );
    const row = rows[0]!;
    return {
      height: row.height,
      appHash: row.app_hash,
      chainId: row.chain_id,
      commitment: row.commitment,
      historySize: row.history_size,
      ...chainRulesOfColumns(row.app_version, row.rule_heights),
    };
  }

  async initChain(chainId: string, validators: readonly Validator[], commitment: CommitmentVersion = "v1", rules?: ChainRules): Promise<void> {
    await this.#write((client) => writeInitChain(client, chainId, validators, commitment, rules));
  }

  async commitBlock(block: BlockWrite): Promise<void> {
    // A commit whose connection broke may have reached the server before it did: when the
    // same block comes again, the chain state tells whether it is already durable.
    // The doubt stays until the chain state is read: a retry while the server is still down
    // must not forget it, or the block would be written twice once the server returns.
    const uncertain = this.#uncertain;
    if (uncertain?.height === block.height && uncertain.appHash === block.appHash) {
      const state = await this.getChainState();
      this.#uncertain = null;
      if (state.height === block.height && state.appHash === block.appHash) return;
    }
    this.#uncertain = null;
    try {
      await this.#write((client) => writeBlock(client, block));
      if (this.#bulk) this.#bulkTxs += block.txs.length;
    } catch (error) {
      if (error instanceof LedgerError && error.code === "StoreUnavailable") this.#uncertain = { height: block.height, appHash: block.appHash };
      throw error;
    }
  }

  /**
   * A bulk load: the writer's session commits asynchronously (`synchronous_commit = off`), so no
   * block waits for its WAL flush; each block is still one transaction, which the pool's reads
   * see once committed. A crash loses at most the last few blocks, never part of one.
   */
  async beginBulkLoad(): Promise<void> {
    await this.#write(async (client) => void (await client.query(bulkLoadSessionSql)));
    this.#bulk = true;
  }

  /**
   * The session's setting back, then one synchronous commit: its WAL flush reaches past every
   * asynchronous commit before it, so all the loaded blocks are durable. Synchronous by `SET
   * LOCAL`, not by the default RESET goes back to: an operator may have made that `off`.
   */
  async endBulkLoad(): Promise<void> {
    await this.#write(async (client) => {
      await client.query("RESET synchronous_commit");
      await client.query("BEGIN; SET LOCAL synchronous_commit = on; UPDATE chain_state SET height = height WHERE id = 1; COMMIT");
    });
    this.#bulk = false;
    const due = this.#bulkTxs >= this.#options.bulkLoadVacuumTxsMin;
    if (due && this.#vacuum === null && !this.#closed) {
      const counted = this.#bulkTxs;
      this.#bulkTxs = 0;
      // An optimisation, not a write: a vacuum that failed (the server went away, close
      // cancelled it) is left to the next bulk load's end, or to autovacuum meanwhile.
      this.#startVacuum().catch((error: unknown) => this.#vacuumFailed(error, counted));
    }
  }

  /**
   * Resolves when the `VACUUM (ANALYZE)` a bulk load's end started in the background has ended
   * (at once when none runs); it never rejects. `close` waits for it; so may a test.
   */
  async backgroundVacuum(): Promise<void> {
    await this.#vacuum;
  }

  /**
   * `VACUUM (ANALYZE)` of the whole database, awaited: what a tool that loaded a ledger
   * (`ledgerd migrate-store`) runs before it ends. Fails as a read does when the database
   * cannot be reached.
   */
  async vacuum(): Promise<void> {
    await this.backgroundVacuum();
    await reachable(() => this.#startVacuum());
  }

  /** A background vacuum failed: its transactions count towards the next, and it is reported. */
  #vacuumFailed(error: unknown, counted: number): void {
    this.#bulkTxs += counted;
    if (this.#closed) return;
    this.#deps.onVacuumError?.(error instanceof Error ? error : new Error(String(error)));
  }

  /** Starts the vacuum, the one this store runs at a time, for `backgroundVacuum` to wait for. */
  #startVacuum(): Promise<void> {
    const run = this.#vacuumApart();
    this.#vacuum = run.then(() => undefined, () => undefined).finally(() => (this.#vacuum = null));
    return run;
  }

  /**
   * The vacuum on a connection of its own, not the writer's: VACUUM cannot run inside a
   * transaction block, and the writer's next block must not wait for it (at 100,000
   * transactions it held the engine's next block 1.5 s; BENCHMARKS.md, "Issue #42:
   * PostgreSQL's vacuum off the commit path"). It takes no advisory lock, and its locks
   * (SHARE UPDATE EXCLUSIVE, per table) do not conflict with the writer's inserts and updates.
   */
  async #vacuumApart(): Promise<void> {
    const client = new pg.Client({ ...connectionConfig(this.#options), application_name: "ledgerd vacuum" });
    client.on("error", () => undefined);
    try {
      await client.connect();
      const pid = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      this.#vacuumPid = pid.rows[0]!.pid;
      // Without the store's statement time limit: at a million transactions it takes seconds
      // to a minute.
      await client.query("SET statement_timeout = 0");
      if (this.#closed) return;
      await client.query("VACUUM (ANALYZE)");
    } finally {
      this.#vacuumPid = null;
      await client.end().catch(() => undefined);
    }
  }

  async findTransactions(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.#rows<{ id: string }>("SELECT id FROM transactions WHERE id = ANY($1::text[])", [[...new Set(ids)]]);
    return new Set(rows.map((row) => row.id));
  }

  async getOutputs(refs: readonly OutputRef[]): Promise<Map<string, StoredOutput>> {
    const outputs = new Map<string, StoredOutput>();
    if (refs.length === 0) return outputs;
    const rows = await this.#rows<{ tx_id: string; idx: number; asset_id: string; amount: string; condition_uri: string; public_keys: string; spent_by: string | null }>(
      `SELECT r.tx_id, r.idx, t.asset_id, o.amount::text AS amount, o.condition_uri, o.public_keys, s.id AS spent_by
       FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS r (tx_id, idx, ord)
       JOIN transactions t ON t.id = r.tx_id
       JOIN outputs o ON o.tx_seq = t.seq AND o.output_index = r.idx
       LEFT JOIN transactions s ON s.seq = o.spent_by
       ORDER BY r.ord`,
      [refs.map((ref) => ref.transactionId), refs.map((ref) => ref.outputIndex)],
    );
    for (const row of rows) {
      const ref = { transactionId: row.tx_id, outputIndex: row.idx };
      outputs.set(outputKey(ref), {
        ...ref,
        assetId: row.asset_id,
        amount: BigInt(row.amount),
        conditionUri: row.condition_uri,
        publicKeys: JSON.parse(row.public_keys) as string[],
        spentBy: row.spent_by,
      });
    }
    return outputs;
  }

  async getTransaction(id: string): Promise<string | null> {
    const rows = await this.#rows<{ json: string }>("SELECT json FROM transactions WHERE id = $1", [id]);
    return rows[0]?.json ?? null;
  }





  async getBlock(height: number): Promise<BlockRecord | null> {
    const head = await this.#blockRow(height);
    if (head === null) return null;
    const txIds = await this.#idsInRange(head.seq_first, head.tx_count);
    return { height, appHash: head.app_hash, txIds, historySize: head.history_size };
  }


  async *streamTransactionsByAsset(assetId: string, options: { operation?: Operation; lastOnly?: boolean } = {}): Batches<string> {
    if (options.lastOnly === true) {
      const withCreate = options.operation !== "TRANSFER";
      const withTransfers = options.operation !== "CREATE";
      const rows = await this.#rows<{ json: string }>(
        `SELECT json FROM (
           (SELECT seq, json FROM transactions WHERE id = $1 AND operation = 'CREATE' AND $2)
           UNION ALL
           (SELECT seq, json FROM transactions WHERE asset_id = $1 AND operation = 'TRANSFER' AND $3 ORDER BY seq DESC LIMIT 1)
         ) last ORDER BY seq DESC LIMIT 1`,
        [assetId, withCreate, withTransfers],
      );
      if (rows.length > 0) yield [rows[0]!.json];
      return;
    }
    for await (const batch of this.streamAssetHistory(assetId, options.operation)) yield batch.map((entry) => entry.json);
  }

  async *streamOutputsByPublicKey(publicKey: string, spent?: boolean): Batches<OutputRef> {
    for await (const batch of this.streamOutputEntries(publicKey, spent)) {
      yield batch.map((entry) => ({ transactionId: entry.transactionId, outputIndex: entry.outputIndex }));
    }
  }

  streamOutputEntries(publicKey: string, spent: boolean | undefined, page: PageOptions = {}): Batches<OutputEntry> {
    return outputEntries(this.#reads, publicKey, spent, page);
  }

  streamAssetHistory(assetId: string, operation: Operation | undefined, page: PageOptions = {}): Batches<HistoryEntry> {
    return assetHistory(this.#reads, assetId, operation, page);
  }

  streamSearchPage(kind: "assets" | "metadata", query: string, page: PageOptions & { limit: number }): Batches<FieldHit> {
    return searchPage(this.#reads, this.#options, kind, query, page);
  }

  streamFieldMatches(kind: "assets" | "metadata", filters: readonly FieldFilter[], page: PageOptions = {}): Batches<FieldHit> {
    return fieldMatches(this.#reads, kind, filters, page);
  }

  streamBalances(publicKey: string, assetId: string | undefined, page: PageOptions = {}): Batches<Balance> {
    return balances(this.#reads, publicKey, assetId, page);
  }

  streamSearchAssets(query: string, limit: number | undefined): Batches<SearchHit> {
    return searchHits(this.#reads, this.#options, "assets", query, limit);
  }

  streamSearchMetadata(query: string, limit: number | undefined): Batches<SearchHit> {
    return searchHits(this.#reads, this.#options, "metadata", query, limit);
  }

  async streamBlockTransactions(height: number): Promise<Batches<string> | null> {
    const head = await this.#blockRow(height);
    if (head === null) return null;
    return this.#blockJsons(head.seq_first, head.seq_first + head.tx_count);
  }

  async *#blockJsons(from: number, end: number): Batches<string> {
    for (let at = from; at < end; at += batchRowsMax) {
      const rows = await this.#rows<{ json: string }>("SELECT json FROM transactions WHERE seq >= $1 AND seq < $2 ORDER BY seq", [at, Math.min(end, at + batchRowsMax)]);
      yield rows.map((row) => row.json);
    }
  }

  async getBlockHeightOfTransaction(id: string): Promise<number | null> {
    const rows = await this.#rows<{ height: number }>("SELECT height FROM transactions WHERE id = $1", [id]);
    return rows[0]?.height ?? null;
  }

  async openDerivedCheck(from: number): Promise<DerivedCheck> {
    return PostgresDerivedCheck.open(await this.#pool.connect(), from);
  }

  async getBlockContents(height: number): Promise<BlockContents | null> {
    const head = await this.#blockRow(height);
    if (head === null) return null;
    const v2 = await this.#rows<{ id: string; json: string }>(
      "SELECT id, json FROM transactions WHERE seq >= $1 AND seq < $2 ORDER BY seq",
      [head.seq_first, head.seq_first + head.tx_count],
    );
    const legacy = await this.#rows<{ position: number; id: string; json: string }>(
      "SELECT position, id, json FROM legacy_transactions WHERE height = $1 ORDER BY position",
      [height],
    );
    const txs = inBlockOrder<StoredBlockTx>(
      v2.map((tx) => ({ kind: "v2", id: tx.id, json: tx.json })),
      legacy.map((tx) => ({ position: tx.position, item: { kind: "legacy", id: tx.id, json: tx.json } })),
    );
    const evidence = await this.#evidenceAfter([height, -1], height, height, Number.MAX_SAFE_INTEGER);
    return { height, appHash: head.app_hash, txs, historySize: head.history_size, evidence };
  }

  async getRefusedLegacyTxs(from: number, to: number): Promise<RefusedLegacyTx[]> {
    const rows = await this.#rows<{ height: string; position: number; json: string }>(
      "SELECT height, position, json FROM legacy_invalid WHERE height >= $1 AND height <= $2 AND json IS NOT NULL ORDER BY height, seq",
      [from, to],
    );
    return rows.map((row) => ({ height: Number(row.height), position: row.position, json: row.json }));
  }

  async getBlockHead(height: number): Promise<Omit<BlockRecord, "txIds"> | null> {
    const head = await this.#blockRow(height);
    return head === null ? null : { height, appHash: head.app_hash, historySize: head.history_size };
  }

  async getBlockIds(height: number): Promise<string[] | null> {
    const head = await this.#blockRow(height);
    if (head === null) return null;
    const v2 = await this.#idsInRange(head.seq_first, head.tx_count);
    const legacy = await this.#rows<{ position: number; id: string }>("SELECT position, id FROM legacy_transactions WHERE height = $1 ORDER BY position", [height]);
    return inBlockOrder(v2, legacy.map((tx) => ({ position: tx.position, item: tx.id })));
  }

  async getStreamBlocks(from: number, page: StreamBlockPage): Promise<StreamBlockRecord[]> {
    const read = await this.#rows<StreamBlockHead>(
      `SELECT height, app_hash AS "appHash", seq_first AS "seqFirst", tx_count AS "txCount"
       FROM blocks WHERE height >= $1 ORDER BY height LIMIT $2`,
      [from, page.blocksMax],
    );
    const heads = pageOfHeads(read, page);
    // Nothing stored from there (a replay caught up): no second query.
    if (heads.length === 0) return [];
    const { first, end } = seqRangeOf(heads);
    const rows = await this.#rows<StreamTxRow>(
      `SELECT seq, id, asset_id AS "assetId" FROM transactions WHERE seq >= $1 AND seq < $2 ORDER BY seq`,
      [first, end],
    );
    return streamBlocksOf(heads, rows);
  }

  async getHistoryNodes(places: readonly NodePlace[]): Promise<(Uint8Array | null)[]> {
    return this.#nodes("history_nodes", "", [], places);
  }

  async putSignedHeaders(headers: readonly StoredSignedHeader[]): Promise<void> {
    assert.equal(this.#options.access, "writer", "a write on a reader store");
    // On the pool, not the writer's connection: a query queued there could land inside a block's
    // transaction, and be rolled back with it. One statement, atomic on its own.
    try {
      await this.#pool.query(
        "INSERT INTO signed_headers (height, json) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT (height) DO NOTHING",
        [headers.map((h) => h.height), headers.map((h) => h.json)],
      );
    } catch (error) {
      throw isUnavailable(error) ? storeUnavailable(error) : error;
    }
  }

  async recordAppVersion(appVersion: bigint): Promise<void> {
    assert.equal(this.#options.access, "writer", "a write on a reader store");
    // One statement on the pool, atomic on its own, as putSignedHeaders.
    try {
      await this.#pool.query("UPDATE chain_state SET app_version = $1 WHERE id = 1 AND app_version IS NULL", [String(appVersion)]);
    } catch (error) {
      throw isUnavailable(error) ? storeUnavailable(error) : error;
    }
  }

  async getSignedHeader(height: number): Promise<string | null> {
    return (await this.#rows<{ json: string }>("SELECT json FROM signed_headers WHERE height = $1", [height]))[0]?.json ?? null;
  }

  async getSignedHeaderHeight(): Promise<number> {
    const [row] = await this.#rows<{ height: string }>("SELECT coalesce(max(height), 0) AS height FROM signed_headers");
    return Number(row!.height);
  }

  async getBlockNodes(height: number, places: readonly NodePlace[]): Promise<(Uint8Array | null)[]> {
    return this.#nodes("block_nodes", "AND n.height = $3", [height], places);
  }

  async #nodes(table: string, where: string, extra: readonly unknown[], places: readonly NodePlace[]): Promise<(Uint8Array | null)[]> {
    if (places.length === 0) return [];
    const rows = await this.#rows<{ level: number; idx: number; hash: Buffer }>(
      `SELECT n.level, n.idx, n.hash FROM unnest($1::integer[], $2::bigint[]) AS p (level, idx)
       JOIN ${table} n ON n.level = p.level AND n.idx = p.idx ${where}`,
      [places.map((p) => p.level), places.map((p) => p.index), ...extra],
    );
    const found = new Map(rows.map((row) => [`${row.level}:${row.idx}`, new Uint8Array(row.hash)]));
    return places.map((p) => found.get(`${p.level}:${p.index}`) ?? null);
  }

  async getValidators(height?: number): Promise<Validator[]> {
    return [...((await this.getValidatorSet(height))?.validators ?? [])];
  }

  async getValidatorSet(height?: number): Promise<ValidatorSet | null> {
    const rows = await this.#rows<{ height: number; json: string }>(
      "SELECT height, json FROM validators WHERE height <= $1 ORDER BY height DESC LIMIT 1",
      [height ?? Number.MAX_SAFE_INTEGER],
    );
    const row = rows[0];
    return row === undefined ? null : { height: row.height, validators: JSON.parse(row.json) as Validator[] };
  }

  async getValidatorSetsFrom(from: number, to: number, limit: number): Promise<ValidatorSet[]> {
    const rows = await this.#rows<{ height: number; json: string }>(
      "SELECT height, json FROM validators WHERE height >= $1 AND height <= $2 ORDER BY height LIMIT $3",
      [from, to, limit],
    );
    return rows.map((row) => ({ height: row.height, validators: JSON.parse(row.json) as Validator[] }));
  }

  async getElections(ids: readonly string[]): Promise<Map<string, ElectionRecord>> {
    const records = new Map<string, ElectionRecord>();
    if (ids.length === 0) return records;
    const rows = await this.#rows<{ id: string; height: number; validator_key: string; power: number; node_id: string; total: string; votes: string; concluded_at: number | null }>(
      "SELECT id, height, validator_key, power, node_id, total::text AS total, votes::text AS votes, concluded_at FROM elections WHERE id = ANY($1::text[])",
      [[...new Set(ids)]],
    );
    for (const row of rows) {
      records.set(row.id, {
        id: row.id,
        height: row.height,
        validatorKey: row.validator_key,
        power: row.power,
        nodeId: readStoredText(row.node_id),
        total: BigInt(row.total),
        votes: BigInt(row.votes),
        concludedAt: row.concluded_at,
      });
    }
    return records;
  }

  async findLegacyTransactions(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.#rows<{ id: string }>("SELECT id FROM legacy_transactions WHERE id = ANY($1::text[])", [[...new Set(ids)]]);
    return new Set(rows.map((row) => row.id));
  }

  async getLegacyOutputs(refs: readonly LegacyOutputRef[]): Promise<Map<string, StoredLegacyOutput>> {
    const outputs = new Map<string, StoredLegacyOutput>();
    if (refs.length === 0) return outputs;
    const rows = await this.#rows<{ txid: string; cid: number; condition_uri: string; public_keys: string; spent_by: string | null }>(
      `SELECT r.txid, r.cid, o.condition_uri, o.public_keys, s.id AS spent_by
       FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY AS r (txid, cid, ord)
       JOIN legacy_transactions t ON t.id = r.txid
       JOIN legacy_outputs o ON o.tx_seq = t.seq AND o.cid = r.cid
       LEFT JOIN legacy_transactions s ON s.seq = o.spent_by
       ORDER BY r.ord`,
      [refs.map((ref) => ref.txid), refs.map((ref) => ref.cid)],
    );
    for (const row of rows) {
      const ref = { txid: row.txid, cid: row.cid };
      outputs.set(legacyOutputKey(ref), {
        ...ref,
        conditionUri: row.condition_uri,
        publicKeys: JSON.parse(row.public_keys) as string[],
        spentBy: row.spent_by,
      });
    }
    return outputs;
  }

  async getLegacyTransaction(id: string): Promise<string | null> {
    const rows = await this.#rows<{ json: string }>("SELECT json FROM legacy_transactions WHERE id = $1", [id]);
    return rows[0]?.json ?? null;
  }

  async getLegacyRecord(id: string): Promise<LegacyRecord | null> {
    const rows = await this.#rows<{ valid: boolean; height: number; code: string | null; message: string | null }>(
      `(SELECT true AS valid, height, NULL AS code, NULL AS message FROM legacy_transactions WHERE id = $1)
       UNION ALL
       (SELECT false, height, code, message FROM legacy_invalid WHERE id = $1 ORDER BY seq DESC LIMIT 1)`,
      [id],
    );
    const valid = rows.find((row) => row.valid);
    if (valid !== undefined) return { status: "valid", height: valid.height };
    const refusal = rows[0];
    if (refusal === undefined) return null;
    return { status: "invalid", height: refusal.height, code: readStoredText(refusal.code!), message: readStoredText(refusal.message!) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A background vacuum of a large ledger may run for a minute: cancelled, not waited out.
    const vacuumPid = this.#vacuumPid;
    const cancel = "SELECT pg_cancel_backend($1)";
    if (vacuumPid !== null) await this.#pool.query(cancel, [vacuumPid]).catch(() => undefined);
    await this.backgroundVacuum();
    await this.#writer?.end().catch(() => undefined);
    await this.#pool.end();
  }

  streamEvidence(height: number | undefined, page: PageOptions = {}): Batches<EvidenceEntry> {
    const lastHeight = async (): Promise<number> => (await this.getChainState()).height;
    return evidencePages({ lastHeight, after: (...args) => this.#evidenceAfter(...args) }, height, page);
  }

  async #evidenceAfter(place: readonly [number, number], snapshot: number, only: number | null, count: number): Promise<Evidence[]> {
    return this.#rows<Evidence & pg.QueryResultRow>(
      `SELECT height, idx AS "index", type, validator_address AS "validatorAddress", power,
              infraction_height AS "infractionHeight", time, total_power AS "totalPower"
       FROM evidence WHERE (height, idx) > ($1, $2) AND height <= $3 AND ($4::bigint IS NULL OR height = $4)
       ORDER BY height, idx LIMIT $5`,
      [place[0], place[1], snapshot, only, count],
    );
  }

  async #blockRow(height: number): Promise<{ app_hash: string; seq_first: number; tx_count: number; history_size: number | null } | null> {
    if (!Number.isSafeInteger(height)) return null;
    const rows = await this.#rows<{ app_hash: string; seq_first: number; tx_count: number; history_size: number | null }>(
      "SELECT app_hash, seq_first, tx_count, history_size FROM blocks WHERE height = $1",
      [height],
    );
    return rows[0] ?? null;
  }

  async #idsInRange(seqFirst: number, count: number): Promise<string[]> {
    const rows = await this.#rows<{ id: string }>("SELECT id FROM transactions WHERE seq >= $1 AND seq < $2 ORDER BY seq", [seqFirst, seqFirst + count]);
    assert.equal(rows.length, count, "a block lost transactions");
    return rows.map((row) => row.id);
  }

}
