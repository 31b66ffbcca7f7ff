import type Database from "better-sqlite3";
import { SchemaRefused } from "../schemaRefused.js";
import { searchTokenizer } from "../searchTokens.js";

/**
 * The schema this build writes. A database with a newer one is refused, never guessed at; an
 * older one is migrated by its owner when opened (version 2 added the legacy tables, 3 the
 * elections, 4 the ledger commitment, 5 the evidence, 6 the signed headers, 7 the chain's
 * protocol version and rule heights, 8 the refused legacy transactions' bodies).
 */
export const schemaVersion = 8;

// Layout, chosen so that a commit's cost does not grow with the ledger:
// - `transactions` is keyed by `seq`, the commit order, an integer rowid, with no secondary
//   index: every insert appends. It also holds the asset data and metadata documents (what the
//   searches return), so they cost no insert of their own. `outputs` (WITHOUT ROWID on
//   (tx_seq, output_index)), `inputs` (what each transaction spent), `blocks` and `validators`
//   append too.
// - Lookups by a string (a transaction id, an asset id, a public key) and "who spent this
//   output" go through four hash-keyed tables (`id_index`, `asset_index`, `key_index`,
//   `spent_index`) whose rows are written late and in key order (deferredIndex.ts explains why
//   and how); `index_sweep` records how far each slice of their key space is merged. The hash is
//   keyHash (48 bits): 6-byte integer keys, a fifth of a 64-character hex key. Every lookup
//   checks the full string on the row it finds.
// - The text indexes are contentless FTS5 tables (the documents are in `transactions`),
//   rowid = seq, so a hit joins back by integer key. FTS5 is itself written as merged segments.
//   Assets and metadata have a table each, so each has its own term statistics for ranking.
// - A block's transactions are the seq range [seq_first, seq_first + tx_count).
// - The chain state is one row, written in the same SQLite transaction as the block.
// - Legacy transactions (variants A and B, docs/compatibility.md #13-#16) have tables of their own
//   (see legacySchemaSql), so no v2.0 read can return one.
// - The field index (`field_index`, `field_index_mark`) is not here: fieldIndex.ts creates it
//   and catches it up whenever a writer opens the file, so it needs no version of its own.
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
  height INTEGER NOT NULL,
  operation TEXT NOT NULL CHECK (operation IN ('CREATE', 'TRANSFER')),
  id TEXT NOT NULL,
  asset_id TEXT NOT NULL,
  asset_data TEXT,
  metadata TEXT,
  json TEXT NOT NULL
);

CREATE TABLE outputs (
  tx_seq INTEGER NOT NULL,
  output_index INTEGER NOT NULL,
  amount TEXT NOT NULL,
  condition_uri TEXT NOT NULL,
  public_keys TEXT NOT NULL,
  PRIMARY KEY (tx_seq, output_index)
) WITHOUT ROWID;

CREATE TABLE inputs (
  spender_seq INTEGER NOT NULL,
  input_index INTEGER NOT NULL,
  tx_seq INTEGER NOT NULL,
  output_index INTEGER NOT NULL,
  PRIMARY KEY (spender_seq, input_index)
) WITHOUT ROWID;

CREATE TABLE id_index (
  hash INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (hash, seq)
) WITHOUT ROWID;
CREATE TABLE asset_index (
  hash INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (hash, seq)
) WITHOUT ROWID;
CREATE TABLE key_index (
  hash INTEGER NOT NULL, seq INTEGER NOT NULL, output_index INTEGER NOT NULL,
  PRIMARY KEY (hash, seq, output_index)
) WITHOUT ROWID;
CREATE TABLE spent_index (
  hash INTEGER NOT NULL, tx_seq INTEGER NOT NULL, output_index INTEGER NOT NULL,
  spender_seq INTEGER NOT NULL,
  PRIMARY KEY (hash, tx_seq, output_index)
) WITHOUT ROWID;
CREATE TABLE index_sweep (slice INTEGER PRIMARY KEY, merged_seq INTEGER NOT NULL);

CREATE VIRTUAL TABLE assets_fts USING fts5(
  body, content = '', tokenize = '${searchTokenizer}'
);
CREATE VIRTUAL TABLE metadata_fts USING fts5(
  body, content = '', tokenize = '${searchTokenizer}'
);

CREATE TABLE blocks (
  height INTEGER PRIMARY KEY,
  app_hash TEXT NOT NULL,
  seq_first INTEGER NOT NULL,
  tx_count INTEGER NOT NULL
);

CREATE TABLE validators (height INTEGER PRIMARY KEY, json TEXT NOT NULL);
`;

// The legacy tables (schema version 2). Legacy transactions are a compatibility path, far rarer
// than v2.0 ones, and a block without any touches none of these tables; so they are plain
// tables with ordinary indexes on keyHash integers (a lookup checks the full id), not deferred
// ones. `legacy_transactions` appends by `seq` (its own commit order); `position` is the place
// among the block's valid transactions of both kinds (the order the app hash covers).
// `legacy_outputs` holds the one spent index of both variants: `spent_by` is the spender's seq,
// NULL while unspent. `legacy_invalid` appends the legacy transactions a block carried that
// execution refused (the `invalid` status); an id may appear again if it is refused again.
const legacySchemaSql = `
CREATE TABLE legacy_transactions (
  seq INTEGER PRIMARY KEY,
  id_hash INTEGER NOT NULL,
  id TEXT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  variant TEXT NOT NULL CHECK (variant IN ('A', 'B')),
  operation TEXT NOT NULL CHECK (operation IN ('CREATE', 'TRANSFER')),
  json TEXT NOT NULL
);
CREATE INDEX legacy_transactions_by_id ON legacy_transactions (id_hash);

CREATE TABLE legacy_outputs (
  tx_seq INTEGER NOT NULL,
  cid INTEGER NOT NULL,
  condition_uri TEXT NOT NULL,
  public_keys TEXT NOT NULL,
  spent_by INTEGER,
  PRIMARY KEY (tx_seq, cid)
) WITHOUT ROWID;

CREATE TABLE legacy_invalid (
  seq INTEGER PRIMARY KEY,
  id_hash INTEGER NOT NULL,
  id TEXT NOT NULL,
  height INTEGER NOT NULL,
  code TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX legacy_invalid_by_id ON legacy_invalid (id_hash);
`;

// Schema version 3: validator elections, and legacy transactions by height (verify-chain reads
// a block's transactions of both kinds in block order).
// Validator elections (docs/compatibility.md #11): one row each, rewritten
// whole when a block's votes change it. A handful per year: a plain table. The election and vote
// transactions themselves are in `transactions`, whose `operation` column holds the role of each
// (CREATE: makes its asset, an election too; TRANSFER: moves one, a vote too); the operation
// itself is in the JSON.
const electionsSchemaSql = `
CREATE TABLE elections (
  id TEXT PRIMARY KEY,
  height INTEGER NOT NULL,
  validator_key TEXT NOT NULL,
  power INTEGER NOT NULL,
  node_id TEXT NOT NULL,
  total TEXT NOT NULL,
  votes TEXT NOT NULL,
  concluded_at INTEGER
);
CREATE INDEX legacy_transactions_by_height ON legacy_transactions (height, position);
`;

// Schema version 4: the ledger commitment (docs/proofs.md). `commitment` is the app hash's rule,
// chosen by initChain: `v1` (the Merkle history) for a chain begun by this version, `bigchaindb`
// for one begun before it, which keeps BigchainDB's rule (its app hashes are what its
// validators signed), and for blocks written with no initChain (the store's own tests).
// `history_size` is the history tree's size after each block (NULL on a `bigchaindb` chain);
// `history_nodes` holds every perfect subtree of the history tree (level 0: the leaves), which a
// proof is built from: two rows per history leaf, amortised, appended in commit order;
// `block_nodes` those of each block's tree of 64 leaves and more (proofs/blockTree.ts).
const commitmentSchemaSql = `
ALTER TABLE chain_state ADD COLUMN commitment TEXT NOT NULL DEFAULT 'bigchaindb'
  CHECK (commitment IN ('bigchaindb', 'v1'));
ALTER TABLE chain_state ADD COLUMN history_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN history_size INTEGER;
CREATE TABLE history_nodes (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE block_nodes (
  height INTEGER NOT NULL,
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (height, level, idx)
) WITHOUT ROWID;
`;

// Schema version 5: the evidence of validators' misbehavior that blocks carried (CometBFT's
// FinalizeBlock `misbehavior`), in block order; rare (none on an honest network), so a plain table.
const evidenceSchemaSql = `
CREATE TABLE evidence (
  height INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('duplicate_vote', 'light_client_attack', 'unknown')),
  validator_address TEXT NOT NULL,
  power INTEGER NOT NULL,
  infraction_height INTEGER NOT NULL,
  time TEXT NOT NULL,
  total_power INTEGER NOT NULL,
  PRIMARY KEY (height, idx)
) WITHOUT ROWID;
`;

// Schema version 6: CometBFT's signed headers and commits (its RPC's `/commit` signed_header, as
// JSON), which the proofs carry; kept here so that CometBFT may prune its block store.
const signedHeadersSchemaSql = `
CREATE TABLE signed_headers (height INTEGER PRIMARY KEY, json TEXT NOT NULL);
`;

// Schema version 7: the chain's rules besides the app hash's, from its genesis at initChain
// (docs/upgrades.md): the protocol version its blocks start with (`app_version`, NULL until
// initChain and on a chain begun before this version, which cannot tell it; text, as ABCI's
// uint64 may exceed SQLite's integers) and the heights of its rule changes (JSON `{"<rule>": height}`).
const chainRulesSchemaSql = `
ALTER TABLE chain_state ADD COLUMN app_version TEXT;
ALTER TABLE chain_state ADD COLUMN rule_heights TEXT NOT NULL DEFAULT '{}';
`;

// Schema version 8: a refused legacy transaction's body and place in its block (the valid ones
// before it), which a state-sync snapshot carries for a restore to execute again
// (docs/state-sync.md); NULL on the rows written before, whose bodies were not kept. By height
// for the snapshot's read, only the rows that have a body (refusals are rare).
const refusedBodiesSchemaSql = `
ALTER TABLE legacy_invalid ADD COLUMN json TEXT;
ALTER TABLE legacy_invalid ADD COLUMN position INTEGER;
CREATE INDEX legacy_invalid_by_height ON legacy_invalid (height) WHERE json IS NOT NULL;
`;

/**
 * Creates the schema in an empty database, or checks the version of an existing one and migrates
 * an older one (only a writer can; a read-only store refuses it). Refuses a database written by
 * a newer ledgerd and a file that is not a ledgerd database. `indexSlices` only applies to a new
 * database; an existing one keeps its own.
 */
export function ensureSchema(db: Database.Database, indexSlices: number): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
    .pluck()
    .all() as string[];
  if (tables.length === 0) {
    db.transaction(() => {
      db.exec(schemaSql);
      db.exec(legacySchemaSql);
      db.exec(electionsSchemaSql);
      db.exec(commitmentSchemaSql);
      db.exec(evidenceSchemaSql);
      db.exec(signedHeadersSchemaSql);
      db.exec(chainRulesSchemaSql);
      db.exec(refusedBodiesSchemaSql);
      db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(schemaVersion);
      const sweep = db.prepare("INSERT INTO index_sweep (slice, merged_seq) VALUES (?, 0)");
      for (let slice = 0; slice < indexSlices; slice++) sweep.run(slice);
    }).immediate();
    return;
  }
  if (!tables.includes("schema_version")) {
    throw new SchemaRefused(`${db.name} is not a ledgerd database (it has no schema_version table)`);
  }
  const version = db.prepare("SELECT version FROM schema_version").pluck().get() as
    | number
    | undefined;
  if (version === undefined || version > schemaVersion) {
    throw new SchemaRefused(
      `${db.name} has schema version ${String(version)}; this ledgerd reads up to ` +
        `${schemaVersion}. Use a newer ledgerd.`,
    );
  }
  if (version < schemaVersion) migrate(db, version);
}

/** Brings a database of an older schema version up to this one, in one transaction. */
function migrate(db: Database.Database, from: number): void {
  if (db.readonly) {
    throw new SchemaRefused(
      `${db.name} has schema version ${from}; this ledgerd needs ${schemaVersion}. Open it once ` +
        "with a writing ledgerd (not a read-only store) to migrate it.",
    );
  }
  db.transaction(() => {
    // Version 2: the legacy tables.
    if (from < 2) db.exec(legacySchemaSql);
    // Version 3: the elections table, legacy transactions by height.
    if (from < 3) db.exec(electionsSchemaSql);
    // Version 4: the commitment. A chain with blocks keeps the rule it was made with.
    if (from < 4) {
      db.exec(commitmentSchemaSql);
      // A chain begun with no block yet takes v1; one not begun gets its rule from initChain.
      db.exec("UPDATE chain_state SET commitment = CASE WHEN height = 0 AND chain_id IS NOT NULL THEN 'v1' ELSE 'bigchaindb' END");
    }
    // Version 5: the evidence table (no block before it recorded any).
    if (from < 5) db.exec(evidenceSchemaSql);
    // Version 6: the signed headers (fetched from CometBFT's RPC when missing, as before).
    if (from < 6) db.exec(signedHeadersSchemaSql);
    // Version 7: the chain's rules; a chain begun before keeps no rule heights (no release
    // scheduled any) and an unknown protocol version.
    if (from < 7) db.exec(chainRulesSchemaSql);
    // Version 8: the refused legacy transactions' bodies, from now on (none was kept before).
    if (from < 8) db.exec(refusedBodiesSchemaSql);
    db.prepare("UPDATE schema_version SET version = ?").run(schemaVersion);
  }).immediate();
}
