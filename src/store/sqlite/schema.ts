import type Database from "better-sqlite3";

/** The schema this build writes. A database with a newer one is refused, never guessed at. */
export const schemaVersion = 1;

// Layout, chosen for insert speed that does not fall as the ledger grows:
// - `transactions` is keyed by `seq`, the commit order, an integer rowid: every insert appends.
//   Ids are found through `id_key` (keyHash of the id, 6 bytes) plus a compare of the full id,
//   not through an index of 64-character hex strings, which would be five times bigger and fall
//   out of the page cache first. The same holds for asset ids and public keys.
// - Each index keyed by a hash takes one insert at a random place per row, and at a million rows
//   every such insert dirties its own page, which the commit must write: so there are as few as
//   the queries allow (by id, TRANSFERs by asset, outputs by public key).
// - Everything else points at a transaction by `seq`: outputs (WITHOUT ROWID on
//   (tx_seq, output_index), so new outputs append too), who spent an output, assets, metadata,
//   and blocks, whose transactions are the seq range [seq_first, seq_first + tx_count).
// - The text indexes are contentless FTS5 tables (the documents are in `assets` and `metadata`),
//   rowid = seq, so a hit joins back by integer key.
// - The chain state is one row, written in the same transaction as the block.
const schemaSql = `
CREATE TABLE schema_version (version INTEGER NOT NULL);

CREATE TABLE chain_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  chain_id TEXT,
  height INTEGER NOT NULL,
  app_hash TEXT NOT NULL
);
INSERT INTO chain_state (id, chain_id, height, app_hash) VALUES (1, NULL, 0, '');

CREATE TABLE transactions (
  seq INTEGER PRIMARY KEY,
  id_key INTEGER NOT NULL,
  asset_key INTEGER NOT NULL,
  height INTEGER NOT NULL,
  operation TEXT NOT NULL CHECK (operation IN ('CREATE', 'TRANSFER')),
  id TEXT NOT NULL,
  asset_id TEXT NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX transactions_by_id ON transactions (id_key);
-- Only TRANSFERs: a CREATE's asset id is its own id, found through transactions_by_id, so the
-- CREATEs (most of a ledger) add no random insert here.
CREATE INDEX transfers_by_asset ON transactions (asset_key) WHERE operation = 'TRANSFER';

CREATE TABLE outputs (
  tx_seq INTEGER NOT NULL,
  output_index INTEGER NOT NULL,
  amount TEXT NOT NULL,
  condition_uri TEXT NOT NULL,
  public_keys TEXT NOT NULL,
  spent_by INTEGER,
  PRIMARY KEY (tx_seq, output_index)
) WITHOUT ROWID;

CREATE TABLE output_keys (
  key_hash INTEGER NOT NULL,
  tx_seq INTEGER NOT NULL,
  output_index INTEGER NOT NULL,
  PRIMARY KEY (key_hash, tx_seq, output_index)
) WITHOUT ROWID;

CREATE TABLE assets (tx_seq INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE metadata (tx_seq INTEGER PRIMARY KEY, json TEXT NOT NULL);
CREATE VIRTUAL TABLE assets_fts USING fts5(
  body, content = '', tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE metadata_fts USING fts5(
  body, content = '', tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE blocks (
  height INTEGER PRIMARY KEY,
  app_hash TEXT NOT NULL,
  seq_first INTEGER NOT NULL,
  tx_count INTEGER NOT NULL
);

CREATE TABLE validators (height INTEGER PRIMARY KEY, json TEXT NOT NULL);
`;

/**
 * Creates the schema in an empty database, or checks the version of an existing one. Refuses a
 * database written by a newer ledgerd and a file that is not a ledgerd database.
 */
export function ensureSchema(db: Database.Database): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
    .pluck()
    .all() as string[];
  if (tables.length === 0) {
    db.transaction(() => {
      db.exec(schemaSql);
      db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(schemaVersion);
    }).immediate();
    return;
  }
  if (!tables.includes("schema_version")) {
    throw new Error(`${db.name} is not a ledgerd database (it has no schema_version table)`);
  }
  const version = db.prepare("SELECT version FROM schema_version").pluck().get() as
    | number
    | undefined;
  if (version === undefined || version > schemaVersion) {
    throw new Error(
      `${db.name} has schema version ${String(version)}; this ledgerd reads up to ` +
        `${schemaVersion}. Use a newer ledgerd.`,
    );
  }
  // Migrations from older versions go here when there is a version 2.
}
