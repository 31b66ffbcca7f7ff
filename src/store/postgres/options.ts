// Options of the PostgreSQL store, with their defaults (STYLE rule 10: one source of defaults).

export interface PostgresStoreOptions {
  /**
   * The connection URL (`postgres://user:password@host:port/database`). Empty: node-postgres
   * reads the usual PG* environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE).
   */
  readonly url: string;
  /** Connections of this store's read pool; the writer has one more of its own. */
  readonly poolSize: number;
  /** A statement running longer than this is cancelled by the server (0: no limit). */
  readonly statementTimeoutMs: number;
  /** How long opening a connection may take before the read or write fails. */
  readonly connectTimeoutMs: number;
  /** As SqliteStoreOptions.searchWordsMax. */
  readonly searchWordsMax: number;
  /** As SqliteStoreOptions.searchRankedMatchesMax. */
  readonly searchRankedMatchesMax: number;
  /**
   * `writer`: creates and migrates the schema, writes blocks, and holds an advisory lock on the
   * database for its life, so a second writer fails at open. `reader`: reads only (the HTTP
   * workers, HTTP-only processes on other machines, a replica); it needs the schema to exist.
   */
  readonly access: "writer" | "reader";
  /**
   * Transactions bulk loads (a state-sync restore, a catch-up's replay batches) may commit before
   * the end of one starts `VACUUM (ANALYZE)`, in the background on a connection of its own (the
   * next block does not wait for it). After a load autovacuum comes at its own pace: until it
   * analysed `output_keys` a key's outputs were read by a bitmap scan of the table and a sort,
   * not the index alone (measured: 3.4x the server's CPU a read); and it vacuums a table only once
   * a fifth of its rows are new, so up to a sixth of a loaded ledger's rows stay out of the
   * visibility map, whose reads visit the table too (BENCHMARKS.md, "Issue #42: PostgreSQL,
   * third look").
   */
  readonly bulkLoadVacuumTxsMin: number;
}

export const postgresStoreOptionsDefault: PostgresStoreOptions = Object.freeze({
  url: "",
  poolSize: 8,
  statementTimeoutMs: 30_000,
  connectTimeoutMs: 5_000,
  searchWordsMax: 64,
  searchRankedMatchesMax: 10_000,
  access: "writer",
  bulkLoadVacuumTxsMin: 100_000,
});
