// A node on PostgreSQL (issue #16), as a user runs one: a solo node on SQLite takes
// transactions, `ledgerd migrate-store --to postgres` moves its ledger (re-executed block by
// block, resumable), and the same node then starts on PostgreSQL with HTTP worker processes
// reading through their own pools, and two `serve-reads` processes read the same database
// (as they would a replica on other machines). While PostgreSQL is down the API answers 503
// StoreUnavailable; when it returns the node goes on by itself.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { loadConfig } from "../../src/config/loadConfig.js";
import type { JsonObject } from "../../src/json/jsonValue.js";
import { createLogger } from "../../src/node/logger.js";
import { startReadServer } from "../../src/node/readServer.js";
import { startNode, type NodeHandle } from "../../src/node/startNode.js";
import { PostgresStore } from "../../src/store/postgres/postgresStore.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { migrateToPostgres } from "../../src/tools/migrateStore.js";
import { postgresBinary, startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { create, keypairOf, transfer } from "../helpers/txFactory.js";
import { waitFor } from "../helpers/waitFor.js";
import { runLedgerd } from "../unit/cli/ledgerdProcess.js";

const dir = mkdtempSync(join(tmpdir(), "ledgerd-e2e-postgres-"));
let server: PostgresServer;
let url: string;

async function start(flags: Record<string, string> = {}): Promise<NodeHandle> {
  const config = loadConfig({
    flags: { data_dir: dir, "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0", "log.level": "silent", "engine.block_interval_ms": "5", ...flags },
    env: {},
  });
  return startNode(config);
}

function storeSizeScraped(text: string): number {
  const line = /^ledgerd_store_size_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  assert.ok(line !== null, "no ledgerd_store_size_bytes in the scrape");
  return Number(line[1]);
}

async function post(base: string, tx: JsonObject): Promise<Response> {
  return fetch(`${base}/api/v1/transactions?mode=commit`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tx) });
}

/** The rows of one statement, on a connection of its own. */
async function pgRows(database: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const alice = keypairOf("pg-e2e-alice");
const bob = keypairOf("pg-e2e-bob");
const onSqlite: JsonObject[] = [];

before(async () => {
  server = await startPostgres();
  url = await server.newDatabase();
  // A ledger on SQLite first: assets made and moved.
  const node = await start();
  try {
    const base = `http://127.0.0.1:${node.http.port}`;
    for (let i = 0; i < 5; i++) {
      const asset = create(alice, 2n, { pg: "migrated lighthouse", i });
      const moved = transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 2n }]);
      for (const tx of [asset, moved]) {
        assert.equal((await post(base, tx)).status, 202);
        onSqlite.push(tx);
      }
    }
  } finally {
    await node.close();
  }
  // A CometBFT node keeps its proofs' signed headers beside the blocks (solo keeps none): one, as written.
  const store = SqliteStore.open({ path: join(dir, "ledgerd.sqlite") });
  await store.putSignedHeaders([{ height: 2, json: signedHeaderTwo }]);
  await store.close();
});

/** The settings of the SQLite node above, for the tool run in this process. */
function sqliteConfig() {
  return loadConfig({ flags: { data_dir: dir, "log.level": "silent", "database.connect_timeout_ms": "1000" }, env: {} });
}

const signedHeaderTwo = '{"header":{"height":"2"},"commit":{"height":"2","signatures":[]}}';

after(() => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a node moved to PostgreSQL", () => {
  it("migrate-store copies the ledger, every block re-executed to its app hash, and resumes when run again", async () => {
    const first = runLedgerd(["migrate-store", "--to", "postgres", "--url", url, "--data_dir", dir]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /migrated heights 1 to \d+ into PostgreSQL/);
    const sqlite = SqliteStore.open({ path: join(dir, "ledgerd.sqlite"), access: "reader" });
    const postgres = await PostgresStore.open({ url, access: "reader" });
    try {
      const state = await sqlite.getChainState();
      assert.deepEqual(await postgres.getChainState(), state);
      for (let height = 1; height <= state.height; height++) {
        assert.deepEqual(await postgres.getBlockContents(height), await sqlite.getBlockContents(height), `block ${height}`);
      }
      assert.deepEqual(await postgres.getValidators(), await sqlite.getValidators());
      assert.equal(await postgres.getSignedHeader(2), signedHeaderTwo);
      assert.equal(await postgres.getSignedHeaderHeight(), 2);
      // It ended with VACUUM (ANALYZE): the node reads a key's outputs from their index at once.
      const stats = await pgRows(url, "SELECT relname, last_vacuum, last_analyze FROM pg_stat_user_tables WHERE relname IN ('transactions', 'output_keys')");
      assert.equal(stats.length, 2);
      for (const row of stats) assert.ok(row.last_vacuum !== null && row.last_analyze !== null, `${String(row.relname)} not vacuumed`);
    } finally {
      await sqlite.close();
      await postgres.close();
    }
    const again = runLedgerd(["migrate-store", "--to", "postgres", "--url", url, "--data_dir", dir]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /already holds heights 1 to \d+/);
    // Another chain's database is refused.
    const other = await server.newDatabase();
    const foreign = await PostgresStore.open({ url: other });
    await foreign.initChain("another-chain", [{ publicKey: "ab".repeat(32), power: 1 }]);
    await foreign.close();
    const refused = runLedgerd(["migrate-store", "--to", "postgres", "--url", other, "--data_dir", dir]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /holds chain another-chain/);
  });

  it("migrate-store writes its blocks in one bulk load, ended before its vacuum", async (t) => {
    const calls: string[] = [];
    for (const name of ["beginBulkLoad", "endBulkLoad", "commitBlock", "vacuum"] as const) {
      const original = PostgresStore.prototype[name] as (...args: unknown[]) => Promise<void>;
      t.mock.method(PostgresStore.prototype, name, function (this: PostgresStore, ...args: unknown[]) {
        if (calls.at(-1) !== name) calls.push(name);
        return original.apply(this, args);
      });
    }
    await migrateToPostgres(sqliteConfig(), await server.newDatabase());
    assert.deepEqual(calls, ["beginBulkLoad", "commitBlock", "endBulkLoad", "vacuum"]);
  });

  it("a migrate-store the server's crash stopped midway resumes after the last block PostgreSQL kept, and copies the ledger whole", async () => {
    const copy = await server.newDatabase();
    const stopAt = 3;
    const crash = (height: number) => void (height === stopAt && server.halt());
    try {
      await assert.rejects(migrateToPostgres(sqliteConfig(), copy, crash), /PostgreSQL cannot be reached/);
    } finally {
      server.resume();
    }
    // Blocks committed asynchronously may be lost with the crash, never part of one: the rerun
    // checks the last block kept against the SQLite ledger's app hash and goes on after it.
    const rerun = await migrateToPostgres(sqliteConfig(), copy);
    assert.ok(rerun.from >= 1 && rerun.from <= stopAt + 1, `resumed at ${rerun.from}`);
    const sqlite = SqliteStore.open({ path: join(dir, "ledgerd.sqlite"), access: "reader" });
    const postgres = await PostgresStore.open({ url: copy, access: "reader" });
    try {
      const state = await sqlite.getChainState();
      assert.equal(rerun.to, state.height);
      assert.deepEqual(await postgres.getChainState(), state);
      for (let height = 1; height <= state.height; height++) {
        assert.deepEqual(await postgres.getBlockContents(height), await sqlite.getBlockContents(height), `block ${height}`);
      }
      assert.equal(await postgres.getSignedHeader(2), signedHeaderTwo);
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });

  it("verify-chain reads a PostgreSQL ledger, and finds a row edited with SQL", async () => {
    const copy = await server.newDatabase();
    assert.equal(runLedgerd(["migrate-store", "--to", "postgres", "--url", copy, "--data_dir", dir]).status, 0);
    const flags = ["--database.backend", "postgres", "--database.url", copy, "--data_dir", dir];
    const clean = runLedgerd(["verify-chain", ...flags]);
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /^ok heights 1 to \d+/);
    const client = new pg.Client({ connectionString: copy });
    await client.connect();
    try {
      const edited = await client.query<{ height: number }>(
        "UPDATE transactions SET json = replace(json, 'migrated lighthouse', 'migrated lightship') WHERE seq = 3 RETURNING height",
      );
      const found = runLedgerd(["verify-chain", ...flags]);
      assert.equal(found.status, 1);
      assert.match(found.stdout, new RegExp(`^FAIL height ${edited.rows[0]!.height}: `));
    } finally {
      await client.end();
    }
  });

  it("a pg_dump of the ledger restored with pg_restore into a new database verifies whole", async () => {
    const dump = join(dir, "ledger.dump");
    const dumped = spawnSync(postgresBinary("pg_dump"), ["--format=custom", `--file=${dump}`, url], { encoding: "utf8" });
    assert.equal(dumped.status, 0, dumped.stderr);
    const restored = await server.newDatabase();
    const loaded = spawnSync(postgresBinary("pg_restore"), ["--no-owner", `--dbname=${restored}`, dump], { encoding: "utf8" });
    assert.equal(loaded.status, 0, loaded.stderr);
    const verified = runLedgerd(["verify-chain", "--database.backend", "postgres", "--database.url", restored, "--data_dir", dir]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stdout, /^ok heights 1 to \d+/);
    const copy = await PostgresStore.open({ url: restored, access: "reader" });
    try {
      assert.equal(await copy.getTransaction(onSqlite[3]!["id"] as string), JSON.stringify(onSqlite[3]));
    } finally {
      await copy.close();
    }
  });

  describe("the node on PostgreSQL, with HTTP workers", () => {
    let node: NodeHandle;
    let base: string;
    before(async () => {
      node = await start({ "database.backend": "postgres", "database.url": url, "database.connect_timeout_ms": "1000", "server.workers": "2", "metrics.bind": "127.0.0.1:0" });
      base = `http://127.0.0.1:${node.http.port}`;
    });
    after(() => node?.close());

    it("serves the migrated ledger and commits more", async () => {
      for (const tx of onSqlite) {
        const got = await fetch(`${base}/api/v1/transactions/${tx["id"] as string}`);
        assert.equal(got.status, 200);
        assert.deepEqual(await got.json(), tx);
      }
      const found = (await (await fetch(`${base}/api/v1/assets?search=lighthouses`)).json()) as unknown[];
      assert.equal(found.length, 5);
      const unspent = (await (await fetch(`${base}/api/v1/outputs?public_key=${bob.publicKey}&spent=false`)).json()) as unknown[];
      assert.equal(unspent.length, 5);
      const asset = create(bob, 1n, { pg: "after the move" });
      assert.equal((await post(base, asset)).status, 202);
      assert.equal((await fetch(`${base}/api/v1/transactions/${asset["id"] as string}`)).status, 200);
      // The store's size is PostgreSQL's own figure for the database, not 0.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const size = Number((await client.query<{ n: string }>("SELECT pg_database_size(current_database()) AS n")).rows[0]!.n);
      await client.end();
      const scraped = storeSizeScraped(await (await fetch(`http://127.0.0.1:${node.metrics!.port}/metrics`)).text());
      assert.ok(scraped > 1_000_000 && Math.abs(scraped - size) <= size * 0.1, `ledgerd_store_size_bytes ${scraped}, pg_database_size ${size}`);
    });

    it("two read servers on the same database serve reads; writes are redirected to the writer, or refused", async () => {
      const config = loadConfig({
        flags: { data_dir: dir, "server.bind": "127.0.0.1:0", "log.level": "silent", "database.backend": "postgres", "database.url": url },
        env: {},
      });
      const logger = createLogger("silent");
      const redirecting = await startReadServer(config, { writerUrl: base, logger });
      const refusing = await startReadServer(config, { writerUrl: "", logger });
      try {
        const asset = create(alice, 1n, { pg: "through a reader" });
        const readerUrl = `http://127.0.0.1:${redirecting.address.port}`;
        // fetch follows the 307 to the writer with the same method and body.
        assert.equal((await post(readerUrl, asset)).status, 202);
        const redirect = await fetch(`${readerUrl}/api/v1/transactions?mode=sync`, { method: "POST", body: "{}", redirect: "manual" });
        assert.equal(redirect.status, 307);
        assert.equal(redirect.headers.get("location"), `${base}/api/v1/transactions?mode=sync`);
        for (const server of [redirecting, refusing]) {
          const got = await fetch(`http://127.0.0.1:${server.address.port}/api/v1/transactions/${asset["id"] as string}`);
          assert.equal(got.status, 200);
          assert.deepEqual(await got.json(), asset);
        }
        const refused = await post(`http://127.0.0.1:${refusing.address.port}`, create(alice, 1n, { pg: "refused" }));
        assert.equal(refused.status, 405);
        assert.equal(refused.headers.get("allow"), "GET, HEAD, OPTIONS");
        assert.match(((await refused.json()) as { message: string }).message, /serves reads only/);
      } finally {
        await redirecting.close();
        await refusing.close();
      }
    });

    it("answers 503 StoreUnavailable while PostgreSQL is down, and goes on by itself when it returns", async () => {
      const asset = create(alice, 1n, { pg: "while down" });
      server.halt();
      try {
        const read = await fetch(`${base}/api/v1/transactions/${onSqlite[0]!["id"] as string}`);
        assert.equal(read.status, 503);
        const body = (await read.json()) as { status: number; message: string };
        assert.equal(body.status, 503);
        assert.match(body.message, /PostgreSQL cannot be reached/);
        const write = await post(base, asset);
        assert.equal(write.status, 503);
        const ready = await fetch(`${base}/readyz`);
        assert.equal(ready.status, 503);
        assert.equal(((await ready.json()) as { ready: boolean }).ready, false);
        // A scrape still answers, with the last size read.
        const scrape = await fetch(`http://127.0.0.1:${node.metrics!.port}/metrics`);
        assert.equal(scrape.status, 200);
        assert.ok(storeSizeScraped(await scrape.text()) > 1_000_000);
      } finally {
        server.resume();
      }
      // Crash recovery on a busy machine may take long; the bound says so when it is exceeded.
      await waitFor("the node to take a write again after PostgreSQL returned", async () => (await post(base, asset)).status === 202, { timeoutMs: 120_000, intervalMs: 200 });
      assert.equal((await fetch(`${base}/api/v1/transactions/${onSqlite[0]!["id"] as string}`)).status, 200);
    });
  });
});
