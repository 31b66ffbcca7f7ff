// The PostgreSQL schema: versioned migrations, run by a writing ledgerd when it opens the
// database, each in its own transaction. A database written by a newer ledgerd is refused.
//
// Layout (docs/postgres.md describes the part users may query):
// - `transactions`: one row per committed v2.0 transaction (elections and votes included),
//   keyed by `seq`, the commit order from 1, as in the SQLite backend, so paged reads give the
//   same positions on both. `id` is unique; TRANSFERs are found by `(asset_id, seq)`.
// - `outputs`: one row per output, `spent_by` the spender's seq (NULL while unspent), so "spent
//   as of seq S" is `spent_by <= S`; `output_keys` names every key of each output's condition;
//   `outputs_by_holder` finds the outputs one key alone holds by asset (balances).
//   An output repeats its transaction's id and asset id, so that listing a key's outputs reads
//   the narrow outputs table alone, not the transactions (measured: a third faster).
// - `asset_text`, `metadata_text`: a tsvector per document, with a GIN index (textSearch.ts),
//   and its length; `text_stats` and `text_terms` the counts relevance is ranked on (bm25.ts).
// - `field_index`: a 16-byte digest of each indexed leaf (../fieldQuery.ts) and the seq.
// - blocks, validators, elections, evidence, the legacy tables and the commitment's nodes as in SQLite;
//   the strings a transaction carried that no check bounds (an election's `node_id`, a legacy
//   refusal's code and message) are kept as JSON text, since text cannot hold NUL.
// - `ledger_*` views: the stable read interface for SQL users.

import type pg from "pg";
import { SchemaRefused } from "../schemaRefused.js";

/** Each migration brings the schema to its index + 1. */
const migrations: readonly string[] = [
  `
  CREATE TABLE chain_state (
    id integer PRIMARY KEY CHECK (id = 1),
    chain_id text,
    height bigint NOT NULL,
    app_hash text NOT NULL,
    commitment text NOT NULL CHECK (commitment IN ('bigchaindb', 'v1')),
    history_size bigint NOT NULL
  );
  INSERT INTO chain_state VALUES (1, NULL, 0, '', 'bigchaindb', 0);

  CREATE TABLE blocks (
    height bigint PRIMARY KEY,
    app_hash text NOT NULL,
    seq_first bigint NOT NULL,
    tx_count integer NOT NULL,
    history_size bigint
  );

  CREATE TABLE transactions (
    seq bigint PRIMARY KEY,
    height bigint NOT NULL,
    operation text NOT NULL CHECK (operation IN ('CREATE', 'TRANSFER')),
    id text NOT NULL UNIQUE,
    asset_id text NOT NULL,
    asset_data text,
    metadata text,
    json text NOT NULL
  );
  CREATE INDEX transactions_transfers ON transactions (asset_id, seq) WHERE operation = 'TRANSFER';

  CREATE TABLE outputs (
    tx_seq bigint NOT NULL,
    output_index integer NOT NULL,
    transaction_id text NOT NULL,
    asset_id text NOT NULL,
    amount numeric(78, 0) NOT NULL,
    condition_uri text NOT NULL,
    public_keys text NOT NULL,
    spent_by bigint,
    PRIMARY KEY (tx_seq, output_index)
  );
  CREATE TABLE output_keys (
    public_key text NOT NULL,
    tx_seq bigint NOT NULL,
    output_index integer NOT NULL,
    PRIMARY KEY (public_key, tx_seq, output_index)
  );

  CREATE TABLE asset_text (seq bigint PRIMARY KEY, body tsvector NOT NULL, tokens integer NOT NULL);
  CREATE INDEX asset_text_body ON asset_text USING gin (body);
  CREATE TABLE metadata_text (seq bigint PRIMARY KEY, body tsvector NOT NULL, tokens integer NOT NULL);
  CREATE INDEX metadata_text_body ON metadata_text USING gin (body);
  CREATE TABLE text_stats (kind text PRIMARY KEY, documents bigint NOT NULL, tokens bigint NOT NULL);
  INSERT INTO text_stats VALUES ('assets', 0, 0), ('metadata', 0, 0);
  CREATE TABLE text_terms (kind text NOT NULL, lexeme text NOT NULL, documents bigint NOT NULL, PRIMARY KEY (kind, lexeme));

  CREATE TABLE field_index (digest bytea NOT NULL, seq bigint NOT NULL, PRIMARY KEY (digest, seq));

  CREATE TABLE validators (height bigint PRIMARY KEY, json text NOT NULL);

  CREATE TABLE elections (
    id text PRIMARY KEY,
    height bigint NOT NULL,
    validator_key text NOT NULL,
    power bigint NOT NULL,
    node_id text NOT NULL,
    total numeric(78, 0) NOT NULL,
    votes numeric(78, 0) NOT NULL,
    concluded_at bigint
  );

  CREATE TABLE legacy_transactions (
    seq bigint PRIMARY KEY,
    id text NOT NULL UNIQUE,
    height bigint NOT NULL,
    position integer NOT NULL,
    variant text NOT NULL CHECK (variant IN ('A', 'B')),
    operation text NOT NULL CHECK (operation IN ('CREATE', 'TRANSFER')),
    json text NOT NULL
  );
  CREATE INDEX legacy_transactions_by_height ON legacy_transactions (height, position);
  CREATE TABLE legacy_outputs (
    tx_seq bigint NOT NULL,
    cid integer NOT NULL,
    condition_uri text NOT NULL,
    public_keys text NOT NULL,
    spent_by bigint,
    PRIMARY KEY (tx_seq, cid)
  );
  CREATE TABLE legacy_invalid (
    seq bigserial PRIMARY KEY,
    id text NOT NULL,
    height bigint NOT NULL,
    code text NOT NULL,
    message text NOT NULL
  );
  CREATE INDEX legacy_invalid_by_id ON legacy_invalid (id, seq);

  CREATE TABLE history_nodes (level integer NOT NULL, idx bigint NOT NULL, hash bytea NOT NULL, PRIMARY KEY (level, idx));
  CREATE TABLE block_nodes (
    height bigint NOT NULL, level integer NOT NULL, idx bigint NOT NULL, hash bytea NOT NULL,
    PRIMARY KEY (height, level, idx)
  );

  CREATE VIEW ledger_blocks AS
    SELECT height, app_hash, tx_count FROM blocks;
  CREATE VIEW ledger_transactions AS
    SELECT id, height, operation, asset_id, json, asset_data, metadata, seq AS commit_order
    FROM transactions;
  CREATE VIEW ledger_outputs AS
    SELECT o.transaction_id, o.output_index, o.amount, o.condition_uri, o.public_keys,
           o.asset_id, s.id AS spent_by, t.height
    FROM outputs o JOIN transactions t ON t.seq = o.tx_seq
    LEFT JOIN transactions s ON s.seq = o.spent_by;
  CREATE VIEW ledger_output_keys AS
    SELECT k.public_key, o.transaction_id, k.output_index
    FROM output_keys k JOIN outputs o ON o.tx_seq = k.tx_seq AND o.output_index = k.output_index;
  CREATE VIEW ledger_validators AS
    SELECT height AS effective_from, json AS validators FROM validators;
  `,
  // 2: balances by asset (docs/http-api.md "Balances"): the outputs one key alone may spend (a
  // plain Ed25519 condition, one key in `public_keys`) by that key and asset id, in the order
  // balances are given, so that a page of balances or one asset's starts where it is asked.
  `
  CREATE INDEX outputs_by_holder ON outputs (public_keys, (asset_id COLLATE "C"), tx_seq, output_index)
    WHERE strpos(condition_uri, 'fpt=ed25519-sha-256&') > 0 AND strpos(public_keys, ',') = 0;
  `,
  // 3: the evidence of validators' misbehavior that blocks carried (CometBFT's FinalizeBlock
  // \`misbehavior\`), in block order, as in SQLite; and its view for SQL users.
  `
  CREATE TABLE evidence (
    height bigint NOT NULL,
    idx integer NOT NULL,
    type text NOT NULL CHECK (type IN ('duplicate_vote', 'light_client_attack', 'unknown')),
    validator_address text NOT NULL,
    power bigint NOT NULL,
    infraction_height bigint NOT NULL,
    time text NOT NULL,
    total_power bigint NOT NULL,
    PRIMARY KEY (height, idx)
  );
  CREATE VIEW ledger_evidence AS
    SELECT height, idx AS index, type, validator_address, power, infraction_height, time, total_power FROM evidence;
  `,
  // 4: CometBFT's signed headers and commits that the proofs carry, as in SQLite (schema 6).
  `
  CREATE TABLE signed_headers (height bigint PRIMARY KEY, json text NOT NULL);
  `,
  // 5: the chain's protocol version and rule heights from its genesis, as in SQLite (schema 7):
  // NULL until initChain and on a chain begun before this migration.
  `
  ALTER TABLE chain_state ADD COLUMN app_version text;
  ALTER TABLE chain_state ADD COLUMN rule_heights text NOT NULL DEFAULT '{}';
  `,
  // 6: a key's outputs from its index alone (issue #42): each key's row repeats its output's
  // transaction id, asset id and amount, carried in the primary key's index, so that listing a
  // key's outputs is one index-only scan instead of a lookup in \`outputs\` per output (measured
  // at 1,000,000 outputs: a key of 1,000, p50 26 ms to 2 to 6 ms on a loaded machine).
  `
  ALTER TABLE output_keys ADD COLUMN transaction_id text, ADD COLUMN asset_id text, ADD COLUMN amount numeric(78, 0);
  UPDATE output_keys k SET transaction_id = o.transaction_id, asset_id = o.asset_id, amount = o.amount
    FROM outputs o WHERE o.tx_seq = k.tx_seq AND o.output_index = k.output_index;
  ALTER TABLE output_keys ALTER COLUMN transaction_id SET NOT NULL, ALTER COLUMN asset_id SET NOT NULL, ALTER COLUMN amount SET NOT NULL;
  ALTER TABLE output_keys DROP CONSTRAINT output_keys_pkey,
    ADD PRIMARY KEY (public_key, tx_seq, output_index) INCLUDE (transaction_id, asset_id, amount);
  `,
  // 7: a refused legacy transaction's body and place in its block, as in SQLite (schema 8):
  // NULL on the rows written before, whose bodies were not kept.
  `
  ALTER TABLE legacy_invalid ADD COLUMN json text, ADD COLUMN position integer;
  CREATE INDEX legacy_invalid_by_height ON legacy_invalid (height) WHERE json IS NOT NULL;
  `,
];

/** The schema this build writes. */
export const postgresSchemaVersion = migrations.length;

/**
 * Creates the schema in an empty database or migrates an older one (a writer only; a reader
 * refuses an outdated database). Refuses a newer schema and a database that is not ledgerd's.
 */
export async function ensurePostgresSchema(client: pg.ClientBase, writer: boolean): Promise<void> {
  const tables = await client.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()",
  );
  const names = new Set(tables.rows.map((row) => row.name));
  let version = 0;
  if (names.has("schema_version")) {
    const row = await client.query<{ version: number }>("SELECT version FROM schema_version");
    version = row.rows[0]?.version ?? 0;
  } else if (names.size > 0) {
    throw new SchemaRefused("the database holds tables but no schema_version: it is not a ledgerd database");
  }
  if (version > postgresSchemaVersion) {
    throw new SchemaRefused(`the database has schema version ${version}; this ledgerd reads up to ${postgresSchemaVersion}. Use a newer ledgerd.`);
  }
  if (version === postgresSchemaVersion) return;
  if (!writer) {
    throw new SchemaRefused(`the database has schema version ${version}; this ledgerd needs ${postgresSchemaVersion}: start the writing node first`);
  }
  for (let next = version; next < postgresSchemaVersion; next++) {
    await client.query("BEGIN");
    try {
      if (next === 0) await client.query("CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (0)");
      await client.query(migrations[next]!);
      await client.query("UPDATE schema_version SET version = $1", [next + 1]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
  }
}
