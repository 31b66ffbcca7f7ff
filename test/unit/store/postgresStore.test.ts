// The PostgreSQL backend (src/store/postgres/) against a real PostgreSQL 15 server started for
// these tests (test/helpers/postgres.ts): the one conformance suite, unchanged, then what is
// PostgreSQL's own (the schema version, the writer's lock, readers, a server that goes away).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { moduleOptions } from "../../../src/config/moduleOptions.js";
import { createLogger } from "../../../src/node/logger.js";
import { openStore } from "../../../src/node/openStore.js";
import { PostgresStore } from "../../../src/store/postgres/postgresStore.js";
import { balancesSql, outputBatchSql } from "../../../src/store/postgres/pagedReads.js";
import { evidenceOf } from "./evidenceConformance.js";
import { postgresSchemaVersion } from "../../../src/store/postgres/schema.js";
import { startPostgres, type PostgresServer } from "../../helpers/postgres.js";
import { storeConformance } from "./conformance.js";
import { block, createTx, publicKey, ref, transferTx, validator } from "./fixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";
import { waitFor } from "../../helpers/waitFor.js";

let server: PostgresServer | undefined;
const serverStarted = startPostgres().then((started) => (server = started));
after(() => server?.stop());

async function freshUrl(): Promise<string> {
  return (await serverStarted).newDatabase();
}

storeConformance("postgres", async () => PostgresStore.open({ url: await freshUrl() }));

const isAssertion = { name: "AssertionError" };

/** output_keys as before schema version 6: without the output's columns. */
const undoMigration6 = `ALTER TABLE output_keys DROP CONSTRAINT output_keys_pkey, DROP COLUMN transaction_id, DROP COLUMN asset_id,
  DROP COLUMN amount, ADD PRIMARY KEY (public_key, tx_seq, output_index)`;
/** Migration 7 undone: the refused legacy transactions' bodies. */
const undoMigration7 = "DROP INDEX legacy_invalid_by_height; ALTER TABLE legacy_invalid DROP COLUMN json, DROP COLUMN position";

function isUnavailable(error: unknown): boolean {
  return error instanceof LedgerError && error.code === "StoreUnavailable" && /PostgreSQL cannot be reached/.test(error.message);
}

/**
 * A TCP proxy in front of the server that can lose the answer to a COMMIT the server carried out
 * (the connection breaks after the server committed, before the client heard it), and can refuse
 * every connection for a while, as a server that is down.
 */
interface LossyProxy {
  readonly url: string;
  loseNextCommitAnswer(): void;
  refuse(on: boolean): void;
  close(): Promise<void>;
}

async function lossyProxy(target: string): Promise<LossyProxy> {
  const to = new URL(target);
  const pairs = new Set<[Socket, Socket]>();
  let loseCommit = false;
  let refusing = false;
  // A simple-query message of COMMIT: 'Q', its length, the text and its NUL.
  const commitMessage = Buffer.concat([Buffer.from("Q"), Buffer.from([0, 0, 0, 11]), Buffer.from("COMMIT\0")]);
  const server: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = createConnection({ host: to.hostname, port: Number(to.port) });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    let commitSent = false;
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      if (loseCommit && chunk.includes(commitMessage)) {
        loseCommit = false;
        commitSent = true;
      }
      upstream.write(chunk);
    });
    // The server's first bytes after that COMMIT are its answer: the commit is done; lose them.
    upstream.on("data", (chunk: Buffer) => (commitSent ? end() : client.write(chunk)));
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.port = String((server.address() as { port: number }).port);
  const breakAll = () => {
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
  };
  return {
    url: url.toString(),
    loseNextCommitAnswer: () => void (loseCommit = true),
    refuse(on) {
      refusing = on;
      if (on) breakAll();
    },
    close: () => {
      breakAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A store whose statements the server cancels after 300 ms (`statementTimeoutMs`), block 1
 * committed, and an operator's session that can hold a lock on the transactions table, which
 * every read and write of it waits for.
 */
async function lockedByOperator(label: string) {
  const url = await freshUrl();
  const store = await PostgresStore.open({ url, statementTimeoutMs: 300 });
  const operator = new pg.Client({ connectionString: url });
  await operator.connect();
  await store.initChain(label, [validator("a")], "bigchaindb");
  const first = createTx({ label: `${label}-1`, data: { word: "harbour" } });
  await store.commitBlock(block(1, [first]));
  return {
    store,
    first,
    lock: async () => {
      await operator.query("BEGIN");
      await operator.query("LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE");
    },
    release: async () => void (await operator.query("ROLLBACK")),
    close: async () => {
      await operator.end();
      await store.close();
    },
  };
}

describe("postgres store", () => {
  it("records its schema version, refuses a newer one and a database that is not ledgerd's", async () => {
    const url = await freshUrl();
    await (await PostgresStore.open({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      assert.equal((await client.query("SELECT version FROM schema_version")).rows[0].version, postgresSchemaVersion);
      await client.query("UPDATE schema_version SET version = $1", [postgresSchemaVersion + 1]);
      await assert.rejects(PostgresStore.open({ url }), /schema version \d+; this ledgerd reads up to/);
      const other = await freshUrl();
      const otherClient = new pg.Client({ connectionString: other });
      await otherClient.connect();
      await otherClient.query("CREATE TABLE accounts (x int)");
      await otherClient.end();
      await assert.rejects(PostgresStore.open({ url: other }), /not a ledgerd database/);
    } finally {
      await client.end();
    }
  });

  it("an open waits out a writer's lock let go meanwhile (a killed writer's session the server has not closed yet)", async () => {
    const url = await freshUrl();
    const first = await PostgresStore.open({ url });
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const trying = async (): Promise<number> => {
      const sql = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_try_advisory_lock%' AND pid <> pg_backend_pid()";
      return (await watcher.query<{ n: number }>(sql)).rows[0]!.n;
    };
    try {
      const before = await trying();
      const second = PostgresStore.open({ url });
      // The second open has found the lock held (its session's last query is the try) ...
      await waitFor("the second open to try the lock", async () => ((await trying()) > before ? true : null));
      // ... and the holder goes: the open takes the lock rather than refusing.
      await first.close();
      const store = await second;
      await store.close();
    } finally {
      await watcher.end();
      await first.close();
    }
  });

  it("one writer per database: a second is refused while the first is open; readers share it", async () => {
    const url = await freshUrl();
    const writer = await PostgresStore.open({ url });
    try {
      await assert.rejects(PostgresStore.open({ url }), /another ledgerd writes to this PostgreSQL database/);
      const [a, b] = [await PostgresStore.open({ url, access: "reader" }), await PostgresStore.open({ url, access: "reader" })];
      try {
        await writer.initChain("pg-chain", [validator("a")], "bigchaindb");
        const tx = createTx({ label: "pg-readers", data: { word: "lighthouse" } });
        await writer.commitBlock(block(1, [tx]));
        for (const reader of [a, b]) {
          assert.equal(await reader.getTransaction(tx.id), tx.json);
          assert.deepEqual((await wholeOf(reader).searchAssets("lighthouses", 0)).map((hit) => hit.id), [tx.id]);
          assert.equal((await reader.getChainState()).height, 1);
          await assert.rejects(reader.commitBlock(block(2, [])), isAssertion);
        }
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      await writer.close();
    }
    // Closed, its lock is free.
    await (await PostgresStore.open({ url })).close();
  });

  it("the ledger_* views, the stable read interface of docs/postgres.md, answer with their documented columns", async () => {
    const url = await freshUrl();
    const store = await PostgresStore.open({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await store.initChain("pg-views", [validator("a", 3)], "bigchaindb");
      const alice = publicKey("view-alice");
      const bob = publicKey("view-bob");
      const made = createTx({ label: "view-create", outputs: [{ keys: [alice], amount: 5n }], metadata: { note: "viewed" } });
      const moved = transferTx({ label: "view-transfer", assetId: made.id, spends: [ref(made, 0)], outputs: [{ keys: [bob, alice], amount: 5n }] });
      await store.commitBlock(block(1, [made]));
      await store.commitBlock({ ...block(2, [moved]), evidence: [evidenceOf(2, 0)] });
      const q = async (sql: string) => (await client.query(sql)).rows;
      assert.deepEqual(await q("SELECT height, app_hash, tx_count FROM ledger_blocks ORDER BY height"), [
        { height: "1", app_hash: block(1, [made]).appHash, tx_count: 1 },
        { height: "2", app_hash: block(2, [moved]).appHash, tx_count: 1 },
      ]);
      const txs = await q("SELECT id, height, operation, asset_id, json, asset_data, metadata, commit_order FROM ledger_transactions ORDER BY commit_order");
      assert.deepEqual(txs.map((t) => [t.id, t.height, t.operation, t.asset_id, t.json, t.metadata]), [
        [made.id, "1", "CREATE", made.id, made.json, made.metadata],
        [moved.id, "2", "TRANSFER", made.id, moved.json, null],
      ]);
      const outputs = await q("SELECT transaction_id, output_index, amount, condition_uri, public_keys, asset_id, spent_by, height FROM ledger_outputs ORDER BY height");
      assert.deepEqual(outputs.map((o) => [o.transaction_id, o.output_index, o.amount, o.asset_id, o.spent_by, o.height, JSON.parse(o.public_keys)]), [
        [made.id, 0, "5", made.id, moved.id, "1", [alice]],
        [moved.id, 0, "5", made.id, null, "2", [bob, alice]],
      ]);
      const keys = await q("SELECT public_key, transaction_id, output_index FROM ledger_output_keys ORDER BY transaction_id, public_key");
      assert.equal(keys.length, 3);
      assert.ok(keys.some((k) => k.public_key === bob && k.transaction_id === moved.id));
      assert.deepEqual(await q("SELECT effective_from, validators FROM ledger_validators"), [
        { effective_from: "1", validators: JSON.stringify([{ publicKey: validator("a").publicKey, power: 3 }]) },
      ]);
      const e = evidenceOf(2, 0);
      assert.deepEqual(await q("SELECT height, index, type, validator_address, power, infraction_height, time, total_power FROM ledger_evidence"), [
        { height: "2", index: 0, type: e.type, validator_address: e.validatorAddress, power: "10", infraction_height: "1", time: e.time, total_power: "40" },
      ]);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("balances go to the key's assets through outputs_by_holder (made by migration 2), not every output of the key", async () => {
    const url = await freshUrl();
    let store = await PostgresStore.open({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const owner = publicKey("holder-owner");
      const made = Array.from({ length: 30 }, (_, i) => createTx({ label: `holder-${i}`, outputs: [{ keys: [owner], amount: 2n }, { keys: [publicKey("holder-other")] }] }));
      await store.commitBlock(block(1, made));
      // A database of schema version 1 gains the index (and migration 3's evidence table, 4's
      // signed headers, 5's chain rules: unknown for a chain begun before, 6's columns of
      // output_keys) when a writer opens it.
      await store.close();
      await client.query(`${undoMigration7}; ${undoMigration6}`);
      await client.query("ALTER TABLE chain_state DROP COLUMN app_version, DROP COLUMN rule_heights");
      await client.query("DROP TABLE signed_headers; DROP VIEW ledger_evidence; DROP TABLE evidence; DROP INDEX outputs_by_holder; UPDATE schema_version SET version = 1");
      store = await PostgresStore.open({ url });
      const state = await store.getChainState();
      assert.deepEqual([state.appVersion, state.ruleHeights], [null, new Map()]);
      await client.query("ANALYZE outputs");
      // The planner would rather scan so small a table; forbid it to see whether the index serves.
      await client.query("SET enable_seqscan = off");
      for (const assetId of [null, made[3]!.id]) {
        const plan = await client.query(`EXPLAIN ${balancesSql}`, [JSON.stringify([owner]), "", assetId, 30, 100]);
        const text = plan.rows.map((row: Record<string, string>) => row["QUERY PLAN"]).join("\n");
        assert.match(text, /Index (Only )?Scan using outputs_by_holder/, text);
        assert.doesNotMatch(text, /Sort|Seq Scan/, text);
        if (assetId !== null) assert.match(text, /Index Cond: .*asset_id/, text);
      }
      const sums = [];
      for await (const batch of store.streamBalances(owner, undefined)) sums.push(...batch);
      assert.equal(sums.length, 30);
      await store.commitBlock({ ...block(2, []), evidence: [evidenceOf(2, 0)] });
      assert.deepEqual((await store.getBlockContents(2))?.evidence, [evidenceOf(2, 0)]);
      await store.putSignedHeaders([{ height: 2, json: "{}" }]);
      assert.equal(await store.getSignedHeader(2), "{}");
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("a key's outputs come from output_keys' index alone; migration 6 fills an older database's rows", async () => {
    const url = await freshUrl();
    let store = await PostgresStore.open({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const owner = publicKey("keyed-owner");
      const made = [
        createTx({ label: "keyed-1", outputs: [{ keys: [owner], amount: 7n }, { keys: [publicKey("keyed-other")] }] }),
        createTx({ label: "keyed-2", outputs: [{ keys: [publicKey("keyed-other"), owner], amount: 12345678901234567890n }] }),
      ];
      const moved = transferTx({ label: "keyed-3", assetId: made[0]!.id, spends: [ref(made[0]!, 0)], outputs: [{ keys: [owner], amount: 7n }] });
      await store.commitBlock(block(1, made));
      await store.commitBlock(block(2, [moved]));
      const entries = async (spent?: boolean) => {
        const all = [];
        for await (const batch of store.streamOutputEntries(owner, spent)) all.push(...batch.map((e) => [e.transactionId, e.outputIndex, e.amount, e.assetId, e.position]));
        return all;
      };
      const expected = [
        [made[0]!.id, 0, "7", made[0]!.id, "3.1.0"],
        [made[1]!.id, 0, "12345678901234567890", made[1]!.id, "3.2.0"],
        [moved.id, 0, "7", made[0]!.id, "3.3.0"],
      ];
      // A database of schema version 5: output_keys without the output's columns.
      await store.close();
      await client.query(`${undoMigration7}; ${undoMigration6}; UPDATE schema_version SET version = 5`);
      store = await PostgresStore.open({ url });
      assert.deepEqual(await entries(), expected);
      assert.deepEqual(await entries(false), [expected[1], expected[2]]);
      assert.deepEqual(await entries(true), [expected[0]]);
      await client.query("VACUUM ANALYZE output_keys");
      await client.query("SET enable_seqscan = off");
      const plan = await client.query(`EXPLAIN ${outputBatchSql(undefined)}`, [owner, 0, -1, 3, 500]);
      const text = plan.rows.map((row: Record<string, string>) => row["QUERY PLAN"]).join("\n");
      assert.match(text, /Index Only Scan using output_keys_pkey/, text);
      assert.doesNotMatch(text, / on outputs /, text);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("a writer reconnected during a bulk load takes the load's session setting again before it writes", async () => {
    const url = await freshUrl();
    const store = await PostgresStore.open({ url });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // A session's settings are its own (no other session can read them): the texts each client sends, by client.
    const sent = new Map<unknown, string[]>();
    const query = pg.Client.prototype.query;
    const spy = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      const text = typeof first === "string" ? first : first?.text;
      if (text !== undefined) sent.set(this, [...(sent.get(this) ?? []), text]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    };
    pg.Client.prototype.query = spy as typeof query;
    try {
      await store.initChain("pg-bulk-reconnect", [validator("a")], "bigchaindb");
      await store.beginBulkLoad();
      await store.commitBlock(block(1, [createTx({ label: "bulk-reconnect-1" })]));
      const writerPid = (await admin.query("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted")).rows[0].pid as number;
      await admin.query("SELECT pg_terminate_backend($1)", [writerPid]);
      // The engine holds a block the store could not write and tries it again, as here.
      const second = block(2, [createTx({ label: "bulk-reconnect-2" })]);
      await store.commitBlock(second).catch(async (error: unknown) => {
        assert.ok(error instanceof LedgerError && error.code === "StoreUnavailable", String(error));
        await store.commitBlock(second);
      });
      const locked = [...sent.values()].filter((texts) => texts.some((t) => t.includes("pg_try_advisory_lock")));
      assert.equal(locked.length, 1, "the writer connected again (its first connection predates the spy)");
      const texts = locked[0]!;
      const setAt = texts.indexOf("SET synchronous_commit = off");
      assert.ok(setAt >= 0, `the new session's statements: ${texts.join(" | ")}`);
      assert.ok(setAt < texts.findIndex((t) => t.startsWith("BEGIN")), "set before the block's write");
      await store.endBulkLoad();
      assert.equal((await store.getChainState()).height, 2);
    } finally {
      pg.Client.prototype.query = query;
      await admin.end();
      await store.close();
    }
  });

  it("a bulk load that committed bulkLoadVacuumTxsMin transactions or more ends vacuumed: a key's outputs are read from the index alone", async () => {
    const url = await freshUrl();
    const store = await PostgresStore.open({ url, bulkLoadVacuumTxsMin: 3 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const owner = publicKey("bulk-owner");
    const owned = (label: string) => createTx({ label, outputs: [{ keys: [owner] }] });
    // What the outputs' read visits of the table: nothing once the pages are in the visibility map.
    const heapFetches = async () => {
      const plan = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${outputBatchSql(undefined)}`, [owner, 0, -1, 10, 500]);
      return [...JSON.stringify(plan.rows[0]["QUERY PLAN"]).matchAll(/"Heap Fetches":(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    try {
      await client.query("SET enable_seqscan = off");
      await store.initChain("pg-bulk-vacuum", [validator("a")], "bigchaindb");
      await store.beginBulkLoad();
      await store.commitBlock(block(1, [owned("bulk-1"), owned("bulk-2")]));
      await store.endBulkLoad();
      assert.equal(await heapFetches(), 2, "two transactions, below the limit: left to autovacuum");
      await store.commitBlock(block(2, [owned("bulk-3")]));
      await store.beginBulkLoad();
      await store.commitBlock(block(3, []));
      await store.endBulkLoad();
      assert.equal(await heapFetches(), 3, "a block outside a bulk load is not counted");
      await store.beginBulkLoad();
      await store.commitBlock(block(4, [owned("bulk-4")]));
      await store.endBulkLoad();
      await store.backgroundVacuum();
      assert.equal(await heapFetches(), 0, "three in bulk loads since the last vacuum: vacuumed");
      assert.equal((await wholeOf(store).getOutputsByPublicKey(owner)).length, 4);
    } finally {
      await client.end();
      await store.close();
    }
  });

  describe("the vacuum a bulk load's end starts runs beside the writer", () => {
    /** What the store's background vacuum waits for ([] when it runs not). */
    const vacuums = async (url: string) => {
      // A connection of its own: in a transaction, pg_stat_activity keeps its first answer.
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      try {
        const sql = "SELECT wait_event_type AS wait FROM pg_stat_activity WHERE application_name = 'ledgerd vacuum' AND datname = current_database()";
        return (await watcher.query<{ wait: string | null }>(sql)).rows;
      } finally {
        await watcher.end();
      }
    };

    /** A store whose bulk load has just ended with its vacuum held up by `locker`'s lock. */
    async function vacuumHeld(url: string, locker: pg.Client, open = (at: string) => PostgresStore.open({ url: at, bulkLoadVacuumTxsMin: 1 })) {
      const store = await open(url);
      await store.initChain("pg-vacuum-apart", [validator("a")], "bigchaindb");
      await store.beginBulkLoad();
      await store.commitBlock(block(1, [createTx({ label: "apart-1" })]));
      // What VACUUM needs of output_keys (SHARE UPDATE EXCLUSIVE), held: it waits for it.
      await locker.query("BEGIN; LOCK TABLE output_keys IN SHARE UPDATE EXCLUSIVE MODE");
      let ended = false;
      const end = store.endBulkLoad().then(() => (ended = true));
      await waitFor("the vacuum to wait for the lock", async () => (await vacuums(url)).some((row) => row.wait === "Lock"));
      return { store, ended, end };
    }

    type HeldVacuum = Awaited<ReturnType<typeof vacuumHeld>>;

    /** Runs `work` on a fresh database's store whose vacuum `locker` holds up; then lets go of all. */
    async function withHeldVacuum(work: (held: HeldVacuum, locker: pg.Client, url: string) => Promise<void>, open?: (at: string) => Promise<PostgresStore>): Promise<void> {
      const url = await freshUrl();
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      const held = await vacuumHeld(url, locker, open);
      try {
        await work(held, locker, url);
      } finally {
        await locker.query("ROLLBACK").catch(() => undefined);
        await held.end;
        await locker.end();
        await held.store.close();
      }
    }

    it("the bulk load's end and the next block do not wait for it; it ends vacuumed", async () => {
      await withHeldVacuum(async (held, locker, url) => {
        assert.equal(held.ended, true, "endBulkLoad returned while the vacuum waits");
        await held.store.commitBlock(block(2, [createTx({ label: "apart-2" })]));
        assert.equal((await held.store.getChainState()).height, 2);
        await locker.query("COMMIT");
        await held.store.backgroundVacuum();
        const analysed = await locker.query("SELECT last_vacuum, last_analyze FROM pg_stat_user_tables WHERE relname = 'output_keys'");
        assert.notEqual(analysed.rows[0].last_vacuum, null);
        assert.notEqual(analysed.rows[0].last_analyze, null);
        await waitFor("the vacuum's connection to close", async () => (await vacuums(url)).length === 0);
      });
    });

    it("close cancels a vacuum still running and leaves no connection behind, and does not report it failed", async () => {
      const reported: Error[] = [];
      await withHeldVacuum(async (held, _locker, url) => {
        await held.store.close();
        await waitFor("the cancelled vacuum's connection to close", async () => (await vacuums(url)).length === 0);
        assert.deepEqual(reported, []);
      }, (at) => PostgresStore.open({ url: at, bulkLoadVacuumTxsMin: 1 }, { onVacuumError: (error) => void reported.push(error) }));
    });

    describe("a background vacuum that fails is reported, not lost", () => {
      /** The store's vacuum, held by a lock, cancelled as an operator would (pg_cancel_backend). */
      async function cancelHeldVacuum(open: (at: string) => Promise<PostgresStore>): Promise<void> {
        await withHeldVacuum(async (held, locker) => {
          const cancel = "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'ledgerd vacuum' AND datname = current_database()";
          assert.deepEqual((await locker.query(cancel)).rows, [{ pg_cancel_backend: true }]);
          await held.store.backgroundVacuum();
        }, open);
      }

      it("to the store's onVacuumError, with PostgreSQL's error", async () => {
        const reported: Error[] = [];
        const onVacuumError = (error: Error) => void reported.push(error);
        await cancelHeldVacuum((at) => PostgresStore.open({ url: at, bulkLoadVacuumTxsMin: 1 }, { onVacuumError }));
        assert.equal(reported.length, 1);
        assert.match(reported[0]!.message, /canceling statement due to user request/);
      });

      it("to the node's logger, at warn, when the node opened the store (openStore)", async () => {
        const lines: string[] = [];
        const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
        const open = async (at: string) => {
          const options = moduleOptions(loadConfig({ flags: { "database.backend": "postgres", "database.url": at }, env: {} }));
          const postgresStore = { ...options.postgresStore, bulkLoadVacuumTxsMin: 1 };
          return (await openStore({ ...options, postgresStore }, "writer", logger)) as PostgresStore;
        };
        await cancelHeldVacuum(open);
        const warned = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } }).filter((line) => line.level === 40);
        assert.equal(warned.length, 1, lines.join(""));
        assert.match(warned[0]!.msg, /VACUUM \(ANALYZE\) after a bulk load failed/);
        assert.match(warned[0]!.err?.message ?? "", /canceling statement due to user request/);
      });
    });
  });

  it("a reader refuses a database without ledgerd's schema instead of creating it", async () => {
    await assert.rejects(PostgresStore.open({ url: await freshUrl(), access: "reader" }), /schema version 0; this ledgerd needs/);
  });

  it("indexes words longer than PostgreSQL's lexeme limit and finds them", async () => {
    const store = await PostgresStore.open({ url: await freshUrl() });
    try {
      const long = "x".repeat(10_000);
      const tx = createTx({ label: "pg-long", data: { text: `${long} short` }, metadata: { note: "é".repeat(3000) } });
      await store.commitBlock(block(1, [tx]));
      assert.deepEqual((await wholeOf(store).searchAssets(long, 0)).map((hit) => hit.id), [tx.id]);
      assert.deepEqual((await wholeOf(store).searchAssets("x".repeat(9_999), 0)).map((hit) => hit.id), []);
      assert.deepEqual((await wholeOf(store).searchAssets(`"${long} short"`, 0)).map((hit) => hit.id), [tx.id]);
      assert.deepEqual((await wholeOf(store).searchMetadata("e".repeat(3000), 0)).map((hit) => hit.id), [tx.id]);
    } finally {
      await store.close();
    }
  });

  // Over a Unix-domain socket a stopped server's socket file is gone: connect fails ENOENT.
  for (const socket of [false, true]) it(`while PostgreSQL is down, reads and writes fail StoreUnavailable; when it returns the store goes on (${socket ? "Unix-domain socket" : "TCP"})`, async () => {
    const url = await (await serverStarted).newDatabase({ socket });
    const store = await PostgresStore.open({ url, connectTimeoutMs: 1_000 });
    const reader = await PostgresStore.open({ url, access: "reader", connectTimeoutMs: 1_000 });
    const running = await serverStarted;
    try {
      await store.initChain("pg-down", [validator("a")], "bigchaindb");
      const first = createTx({ label: "pg-down-1" });
      await store.commitBlock(block(1, [first]));
      running.halt();
      try {
        await assert.rejects(store.getTransaction(first.id), isUnavailable);
        await assert.rejects(reader.getChainState(), isUnavailable);
        const second = createTx({ label: "pg-down-2" });
        await assert.rejects(store.commitBlock(block(2, [second])), isUnavailable);
      } finally {
        running.resume();
      }
      // The same block again (the engine retries it): written once.
      const second = createTx({ label: "pg-down-2" });
      await store.commitBlock(block(2, [second]));
      assert.equal((await store.getChainState()).height, 2);
      assert.equal(await reader.getTransaction(second.id), second.json);
      assert.equal(await reader.getTransaction(first.id), first.json);
      await store.commitBlock(block(3, [createTx({ label: "pg-down-3" })]));
      assert.equal((await reader.getChainState()).height, 3);
    } finally {
      await reader.close();
      await store.close();
    }
  });

  it("a read the server cancels at database.statement_timeout_ms fails StoreTimeout (a 503), not an unknown error; the next read works", async () => {
    const held = await lockedByOperator("pg-timeout");
    try {
      await held.lock();
      const timedOut = (error: unknown) => error instanceof LedgerError && error.code === "StoreTimeout" && /cancel/i.test(error.message);
      await assert.rejects(held.store.getTransaction(held.first.id), timedOut);
      await assert.rejects(wholeOf(held.store).getBlockTransactions(1), timedOut);
      await held.release();
      assert.equal(await held.store.getTransaction(held.first.id), held.first.json);
    } finally {
      await held.close();
    }
  });

  it("a block write the server cancels at database.statement_timeout_ms fails StoreUnavailable (the engine holds it and retries), and goes in once the lock is gone", async () => {
    const held = await lockedByOperator("pg-write-timeout");
    try {
      const second = block(2, [createTx({ label: "pg-write-timeout-2" })]);
      await held.lock();
      await assert.rejects(held.store.commitBlock(second), (error: unknown) => error instanceof LedgerError && error.code === "StoreUnavailable" && /cancelled the block's write/.test(error.message));
      await held.release();
      await held.store.commitBlock(second);
      assert.equal((await held.store.getChainState()).height, 2);
      assert.deepEqual((await held.store.getBlock(2))?.txIds, second.txs.map((tx) => tx.id));
    } finally {
      await held.close();
    }
  });

  // The engine retries a block every half second; the server may stay away for any number of them.
  for (const retriesAway of [0, 1, 2, 3]) {
    it(`a COMMIT the server carried out but whose answer was lost: the block retried is found durable (${retriesAway} retries while the server is away)`, async () => {
      const proxy = await lossyProxy(await freshUrl());
      const store = await PostgresStore.open({ url: proxy.url, connectTimeoutMs: 1_000 });
      try {
        await store.initChain("pg-lost-answer", [validator("a")], "bigchaindb");
        await store.commitBlock(block(1, [createTx({ label: "pg-lost-1" })]));
        const second = block(2, [createTx({ label: "pg-lost-2" })]);
        proxy.loseNextCommitAnswer();
        await assert.rejects(store.commitBlock(second), isUnavailable);
        proxy.refuse(true);
        for (let retry = 0; retry < retriesAway; retry++) await assert.rejects(store.commitBlock(second), isUnavailable);
        proxy.refuse(false);
        await store.commitBlock(second);
        assert.equal((await store.getChainState()).height, 2);
        assert.deepEqual((await store.getBlock(2))?.txIds, second.txs.map((tx) => tx.id));
        await store.commitBlock(block(3, [createTx({ label: "pg-lost-3" })]));
        assert.equal((await store.getChainState()).height, 3);
      } finally {
        await store.close();
        await proxy.close();
      }
    });
  }
});
