// The real PostgreSQL server the PostgreSQL backend's tests will run against (issue #16, begun):
// it starts from PostgreSQL's own binaries on a free loopback port, gives each caller a fresh
// database, and stops. No mock: a query goes to the server and back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { startPostgres, type PostgresServer } from "../../helpers/postgres.js";

describe("a real PostgreSQL server for the tests", () => {
  let server: PostgresServer;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server.stop());

  it("gives each caller its own empty database, and answers queries", async () => {
    const [a, b] = [await server.newDatabase(), await server.newDatabase()];
    assert.notEqual(a, b);
    const client = new pg.Client({ connectionString: a });
    await client.connect();
    try {
      const version = (await client.query<{ server_version_num: string }>("SHOW server_version_num")).rows[0]!.server_version_num;
      assert.ok(Number(version) >= 150000, version);
      await client.query("CREATE TABLE t (x int)");
      await client.query("INSERT INTO t VALUES (1), (2)");
      assert.equal((await client.query<{ n: string }>("SELECT count(*) AS n FROM t")).rows[0]!.n, "2");
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: b });
    await other.connect();
    try {
      const tables = await other.query("SELECT 1 FROM pg_tables WHERE tablename = 't'");
      assert.equal(tables.rowCount, 0, "a new database is empty");
    } finally {
      await other.end();
    }
  });
});
