// The PostgreSQL backend of the Store interface (`../store.ts`, docs/postgres.md): a pool of
// read connections and, in a writer, one connection of its own that writes each block in one
// database transaction and holds an advisory lock for the store's life, so that a second
// writer on the same database fails at open.
//
// This folder owns: the schema and its migrations (`schema.ts`), connections and what a
// connection failure becomes (`connection.ts`: a LedgerError StoreUnavailable, a 503), the
// block writer (`blockWriter.ts`) and text search (`textSearch.ts`). Every read is one
// statement, so it sees one committed state; a long answer is read in batches as of the seq
// committed last when it began (spent-ness as of then too), as in the SQLite backend, and with
// the same positions.
//
// While PostgreSQL is down every read and write fails with StoreUnavailable and nothing is
// written; the pool and the writer's connection reconnect by themselves when it returns.

import assert from "node:assert/strict";
import pg from "pg";
import { LedgerError } from "../../errors/ledgerError.js";
import { legacyOutputKey, type LegacyOutputRef } from "../../legacy/committed.js";
import type { CommitmentVersion } from "../../proofs/commitment.js";
import { outputKey, type Operation, type OutputRef } from "../../transaction/committed.js";
import { inBlockOrder } from "../blockOrder.js";
import { fieldKey, fieldsMatch, type FieldFilter } from "../fieldQuery.js";
import { encodePosition, parseFieldPosition, parsePosition } from "../positions.js";
import type {
  Balance,
  Batches,
  BlockContents,
  BlockRecord,
  BlockWrite,
  ChainState,
  ElectionRecord,
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
} from "../store.js";
import { parseTextQuery } from "../textQuery.js";
import { fieldDigest, writeBlock, writeInitChain } from "./blockWriter.js";
import { connectionConfig, isUnavailable, openPool, reachable, storeUnavailable } from "./connection.js";
import { postgresStoreOptionsDefault, type PostgresStoreOptions } from "./options.js";
import { ensurePostgresSchema } from "./schema.js";
import { inverseDocumentFrequency, rankByBm25, type TableStats } from "./bm25.js";
import { phraseQuery, placesOfVectorText, searchPlan, type SearchPlan } from "./textSearch.js";

/** Rows one batch of a long answer reads, as in the SQLite backend. */
export const batchRowsMax = 500;

/** The advisory lock a writer holds (any constant; ledgerd takes no other). */
const writerLockKey = 7_016_161_415;

function searchTooBroad(max: number): LedgerError {
  const message =
    `text_search matches more than ${max} transactions, more than one answer ` +
    "may list: give a limit (the best matches among the newest are returned) or more words";
  return new LedgerError("SearchTooBroad", message);
}

export class PostgresStore implements Store {
  readonly backend = "postgres";

  /** Connects, creates or migrates the schema (a writer), and takes the writer's lock. */
  static async open(options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
    const full = { ...postgresStoreOptionsDefault, ...options };
    const store = new PostgresStore(full);
    try {
      await store.#start();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  readonly #options: PostgresStoreOptions;
  readonly #pool: pg.Pool;
  #writer: pg.Client | null = null;
  /** The writer's connection broke (the server restarted): reopen it before the next write. */
  #writerBroken = false;
  #closed = false;
  /** The block of a commit that failed with the connection: it may have been written. */
  #uncertain: { height: number; appHash: string } | null = null;

  private constructor(options: PostgresStoreOptions) {
    this.#options = options;
    this.#pool = openPool(options);
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
    const locked = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [writerLockKey]);
    if (locked.rows[0]?.locked !== true) {
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
      if (!isUnavailable(error)) throw error;
      this.#writerBroken = true;
      throw storeUnavailable(error);
    }
  }

  async #rows<R extends pg.QueryResultRow>(sql: string, values: readonly unknown[] = []): Promise<R[]> {
    return reachable(async () => (await this.#pool.query<R>(sql, values as unknown[])).rows);
  }

  async #lastSeq(): Promise<number> {
    const rows = await this.#rows<{ seq: number | null }>("SELECT max(seq) AS seq FROM transactions");
    return rows[0]!.seq ?? 0;
  }

  async getChainState(): Promise<ChainState> {
    const rows = await this.#rows<{ height: number; app_hash: string; chain_id: string | null; commitment: CommitmentVersion; history_size: number }>(
      "SELECT height, app_hash, chain_id, commitment, history_size FROM chain_state WHERE id = 1",
    );
    const row = rows[0]!;
    return { height: row.height, appHash: row.app_hash, chainId: row.chain_id, commitment: row.commitment, historySize: row.history_size };
  }

  async initChain(chainId: string, validators: readonly Validator[], commitment: CommitmentVersion = "v1"): Promise<void> {
    await this.#write((client) => writeInitChain(client, chainId, validators, commitment));
  }

  async commitBlock(block: BlockWrite): Promise<void> {
    // A commit whose connection broke may have reached the server before it did: when the
    // same block comes again, the chain state tells whether it is already durable.
    const uncertain = this.#uncertain;
    this.#uncertain = null;
    if (uncertain?.height === block.height && uncertain.appHash === block.appHash) {
      const state = await this.getChainState();
      if (state.height === block.height && state.appHash === block.appHash) return;
    }
    try {
      await this.#write((client) => writeBlock(client, block));
    } catch (error) {
      if (error instanceof LedgerError && error.code === "StoreUnavailable") this.#uncertain = { height: block.height, appHash: block.appHash };
      throw error;
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

  async getTransactionsByAsset(assetId: string, options: { operation?: Operation; lastOnly?: boolean } = {}): Promise<string[]> {
    return collect(this.streamTransactionsByAsset(assetId, options));
  }

  async getOutputsByPublicKey(publicKey: string, spent?: boolean): Promise<OutputRef[]> {
    return collect(this.streamOutputsByPublicKey(publicKey, spent));
  }

  async searchAssets(query: string, limit: number): Promise<SearchHit[]> {
    return collect(this.streamSearchAssets(query, limit));
  }

  async searchMetadata(query: string, limit: number): Promise<SearchHit[]> {
    return collect(this.streamSearchMetadata(query, limit));
  }

  async getBlock(height: number): Promise<BlockRecord | null> {
    const head = await this.#blockRow(height);
    if (head === null) return null;
    const txIds = await this.#idsInRange(head.seq_first, head.tx_count);
    return { height, appHash: head.app_hash, txIds, historySize: head.history_size };
  }

  async getBlockTransactions(height: number): Promise<string[] | null> {
    const batches = await this.streamBlockTransactions(height);
    return batches === null ? null : collect(batches);
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

  async *streamOutputEntries(publicKey: string, spent: boolean | undefined, page: PageOptions = {}): Batches<OutputEntry> {
    const lastSeq = await this.#lastSeq();
    const [snapshot, seq0, index0] = page.after === undefined
      ? [lastSeq, 0, -1]
      : (parsePosition(page.after, 3, lastSeq, true) as [number, number, number]);
    let after = [seq0, index0];
    let left = page.limit ?? Infinity;
    while (left > 0) {
      const count = Math.min(batchRowsMax, left);
      const rows = await this.#rows<{ seq: number; idx: number; id: string; amount: string; asset_id: string }>(
        `SELECT k.tx_seq AS seq, k.output_index AS idx, o.transaction_id AS id, o.amount::text AS amount, o.asset_id
         FROM output_keys k
         JOIN outputs o ON o.tx_seq = k.tx_seq AND o.output_index = k.output_index
         WHERE k.public_key = $1 AND (k.tx_seq, k.output_index) > ($2, $3) AND k.tx_seq <= $4
           AND ($5::boolean IS NULL OR (o.spent_by IS NOT NULL AND o.spent_by <= $4) = $5)
         ORDER BY k.tx_seq, k.output_index LIMIT $6`,
        [publicKey, after[0], after[1], snapshot, spent ?? null, count],
      );
      if (rows.length === 0) return;
      left -= rows.length;
      after = [rows.at(-1)!.seq, rows.at(-1)!.idx];
      yield rows.map((row) => ({
        transactionId: row.id,
        outputIndex: row.idx,
        amount: row.amount,
        assetId: row.asset_id,
        position: encodePosition([snapshot, row.seq, row.idx]),
      }));
      if (rows.length < count) return;
    }
  }

  async *streamAssetHistory(assetId: string, operation: Operation | undefined, page: PageOptions = {}): Batches<HistoryEntry> {
    const lastSeq = await this.#lastSeq();
    const [snapshot, seq0] = page.after === undefined ? [lastSeq, 0] : (parsePosition(page.after, 2, lastSeq, true) as [number, number]);
    const position = (seq: number) => encodePosition([snapshot, seq]);
    let left = page.limit ?? Infinity;
    if (left <= 0) return;
    // The CREATE first: a TRANSFER of an asset is always committed after its CREATE.
    if (operation !== "TRANSFER") {
      const rows = await this.#rows<{ seq: number; json: string }>(
        "SELECT seq, json FROM transactions WHERE id = $1 AND operation = 'CREATE' AND seq > $2 AND seq <= $3",
        [assetId, seq0, snapshot],
      );
      if (rows.length > 0) {
        left--;
        yield [{ json: rows[0]!.json, position: position(rows[0]!.seq) }];
      }
    }
    if (operation === "CREATE") return;
    let after = seq0;
    while (left > 0) {
      const count = Math.min(batchRowsMax, left);
      const rows = await this.#rows<{ seq: number; json: string }>(
        `SELECT seq, json FROM transactions WHERE asset_id = $1 AND operation = 'TRANSFER' AND seq > $2 AND seq <= $3
         ORDER BY seq LIMIT $4`,
        [assetId, after, snapshot, count],
      );
      if (rows.length === 0) return;
      left -= rows.length;
      after = rows.at(-1)!.seq;
      yield rows.map((row) => ({ json: row.json, position: position(row.seq) }));
      if (rows.length < count) return;
    }
  }

  async *streamSearchPage(kind: "assets" | "metadata", query: string, page: PageOptions & { limit: number }): Batches<FieldHit> {
    const lastSeq = await this.#lastSeq();
    const [snapshot, offset] = page.after === undefined ? [lastSeq, 0] : (parsePosition(page.after, 2, lastSeq, false) as [number, number]);
    const plan = this.#plan(query);
    if (plan === null) return;
    const ranked = await this.#ranked(kind, plan, snapshot, this.#options.searchRankedMatchesMax);
    let index = 0;
    for await (const batch of this.#hits(kind, ranked.slice(offset, offset + page.limit))) {
      yield batch.map((hit) => ({ ...hit, position: encodePosition([snapshot, offset + ++index]) }));
    }
  }

  async getBalances(publicKey: string, assetId?: string): Promise<Balance[]> {
    const rows = await this.#rows<{ asset_id: string; amount: string }>(
      `SELECT o.asset_id, sum(o.amount)::text AS amount
       FROM output_keys k
       JOIN outputs o ON o.tx_seq = k.tx_seq AND o.output_index = k.output_index
       WHERE k.public_key = $1 AND o.spent_by IS NULL AND o.public_keys = $2
         AND strpos(o.condition_uri, 'fpt=ed25519-sha-256&') > 0 AND ($3::text IS NULL OR o.asset_id = $3)
       GROUP BY o.asset_id ORDER BY o.asset_id COLLATE "C"`,
      [publicKey, JSON.stringify([publicKey]), assetId ?? null],
    );
    return rows.map((row) => ({ assetId: row.asset_id, amount: row.amount }));
  }

  streamSearchAssets(query: string, limit: number | undefined): Batches<SearchHit> {
    return this.#search("assets", query, limit);
  }

  streamSearchMetadata(query: string, limit: number | undefined): Batches<SearchHit> {
    return this.#search("metadata", query, limit);
  }

  async *streamFieldMatches(
    kind: "assets" | "metadata",
    filters: readonly FieldFilter[],
    options: { after?: string; limit?: number } = {},
  ): Batches<FieldHit> {
    let after = parseFieldPosition(options.after);
    const digests = [...new Set(filters.map((filter) => fieldDigest(fieldKey(kind, filter)).toString("hex")))].map((hex) => Buffer.from(hex, "hex"));
    let left = options.limit ?? Infinity;
    if (digests.length === 0 || left <= 0) return;
    const snapshot = await this.#lastSeq();
    const joins = digests.slice(1).map((_, i) => `JOIN field_index f${i + 1} ON f${i + 1}.seq = f0.seq AND f${i + 1}.digest = $${i + 5}`).join(" ");
    const column = kind === "assets" ? "asset_data" : "metadata";
    for (;;) {
      const rows = await this.#rows<{ seq: number; id: string; json: string | null }>(
        `SELECT f0.seq, t.id, t.${column} AS json FROM field_index f0 ${joins}
         JOIN transactions t ON t.seq = f0.seq
         WHERE f0.digest = $1 AND f0.seq > $2 AND f0.seq <= $3 ORDER BY f0.seq LIMIT $4`,
        [digests[0], after, snapshot, batchRowsMax, ...digests.slice(1)],
      );
      if (rows.length === 0) return;
      after = rows.at(-1)!.seq;
      // A digest of another leaf (never seen, but 128 bits are not a proof): check the document.
      const hits = rows
        .filter((row) => row.json !== null && fieldsMatch(kind, row.json, filters))
        .slice(0, left)
        .map((row) => ({ id: row.id, json: row.json!, position: String(row.seq) }));
      left -= hits.length;
      if (hits.length > 0) yield hits;
      if (left <= 0 || rows.length < batchRowsMax) return;
    }
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
    return { height, appHash: head.app_hash, txs, historySize: head.history_size };
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

  async getHistoryNodes(places: readonly NodePlace[]): Promise<(Uint8Array | null)[]> {
    return this.#nodes("history_nodes", "", [], places);
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
        nodeId: row.node_id,
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
    return { status: "invalid", height: refusal.height, code: refusal.code!, message: refusal.message! };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer?.end().catch(() => undefined);
    await this.#pool.end();
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

  /** How a search runs, or null when it can match nothing; refuses one over the caps. */
  #plan(query: string): SearchPlan | null {
    return searchPlan(parseTextQuery(query, this.#options.searchWordsMax));
  }

  /**
   * The newest `window` matches (committed up to `upTo`, or all), best first, ranked as the
   * SQLite backend ranks them (bm25.ts), all read in one snapshot of the database.
   */
  async #ranked(kind: "assets" | "metadata", plan: SearchPlan, upTo: number | null, window: number): Promise<number[]> {
    const table = textTable(kind);
    const lexemes = [...new Set(plan.phrases.flat())];
    return this.#snapshot(async (client) => {
      // Each match's vector cut down to the search's lexemes (marked with weight A, then kept
      // by weight): a third of the time of unnesting every vector, measured on 10,000 matches.
      const matches = await client.query<{ seq: number; tokens: number; places: string }>(
        `SELECT seq, tokens, ts_filter(setweight(body, 'A', $4::text[]), '{a}')::text AS places FROM ${table}
         WHERE body @@ $1::tsquery AND ($2::bigint IS NULL OR seq <= $2) ORDER BY seq DESC LIMIT $3`,
        [plan.tsquery, upTo, window, lexemes],
      );
      const documents = matches.rows.map((row) => ({ seq: row.seq, tokens: row.tokens, places: placesOfVectorText(row.places) }));
      if (documents.length === 0) return [];
      const stats = (await client.query<TableStats>("SELECT documents, tokens FROM text_stats WHERE kind = $1", [kind])).rows[0]!;
      const terms = await client.query<{ lexeme: string; documents: number }>(
        "SELECT lexeme, documents FROM text_terms WHERE kind = $1 AND lexeme = ANY($2::text[])",
        [kind, lexemes],
      );
      const holdersOf = new Map(terms.rows.map((row) => [row.lexeme, row.documents]));
      const idfs: number[] = [];
      for (const phrase of plan.phrases) {
        // A word's documents are counted as they are written; a phrase's are counted now.
        const holders = phrase.length === 1
          ? (holdersOf.get(phrase[0]!) ?? 0)
          : (await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${table} WHERE body @@ $1::tsquery`, [phraseQuery(phrase)])).rows[0]!.n;
        idfs.push(inverseDocumentFrequency(stats, holders));
      }
      return rankByBm25(documents, plan.phrases, idfs, stats);
    });
  }

  /** Runs reads on one connection in one snapshot (REPEATABLE READ, read only). */
  async #snapshot<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return reachable(async () => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        broken = error instanceof Error ? error : new Error(String(error));
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release(broken !== undefined && isUnavailable(broken) ? broken : undefined);
      }
    });
  }

  async *#search(kind: "assets" | "metadata", query: string, limit: number | undefined): Batches<SearchHit> {
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new LedgerError("BadParameter", "limit must be a whole number, 0 or more");
    }
    const plan = this.#plan(query);
    if (plan === null) return;
    const max = this.#options.searchRankedMatchesMax;
    const all = limit === undefined || limit === 0;
    // All matches were asked for, and only the newest `max` are ranked: one more is read to tell
    // whether that is all of them, so that nothing is cut without a word.
    const ranked = await this.#ranked(kind, plan, null, all ? max + 1 : max);
    if (all && ranked.length > max) throw searchTooBroad(max);
    yield* this.#hits(kind, all ? ranked : ranked.slice(0, limit));
  }

  /** The hits at these seqs (ranked), in that order, a batch at a time. */
  async *#hits(kind: "assets" | "metadata", seqs: readonly number[]): Batches<SearchHit> {
    const column = kind === "assets" ? "asset_data" : "metadata";
    for (let at = 0; at < seqs.length; at += batchRowsMax) {
      const slice = seqs.slice(at, at + batchRowsMax);
      const rows = await this.#rows<{ seq: number; id: string; json: string }>(
        `SELECT seq, id, ${column} AS json FROM transactions WHERE seq = ANY($1::bigint[])`,
        [slice],
      );
      const bySeq = new Map(rows.map((row) => [row.seq, row]));
      yield slice.map((seq) => ({ id: bySeq.get(seq)!.id, json: bySeq.get(seq)!.json }));
    }
  }
}

function textTable(kind: "assets" | "metadata"): string {
  return kind === "assets" ? "asset_text" : "metadata_text";
}

async function collect<T>(batches: Batches<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}
