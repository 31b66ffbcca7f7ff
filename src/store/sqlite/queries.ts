// The SQL the SQLite store runs, in one place so a test can check every query plan
// (`EXPLAIN QUERY PLAN`: no query may scan a table). Parameters are positional `?`.

/** The deferred hash indexes (deferredIndex.ts): table and columns after `hash`. */
export const indexTables = {
  /** Transactions by keyHash(id). */
  ids: { table: "id_index", columns: ["seq"] },
  /** TRANSFERs by keyHash(asset id); a CREATE is found by its own id. */
  assets: { table: "asset_index", columns: ["seq"] },
  /** Outputs by keyHash(public key), for every key anywhere in the condition. */
  keys: { table: "key_index", columns: ["seq", "output_index"] },
  /** Spent outputs by outputHash(tx_seq, output_index), with the spender. */
  spent: { table: "spent_index", columns: ["tx_seq", "output_index", "spender_seq"] },
} as const;

export type IndexName = keyof typeof indexTables;

export function indexLookupSql(table: string, columns: readonly string[]): string {
  return `SELECT ${columns.join(", ")} FROM ${table} WHERE hash = ?`;
}

/** Every hash of an index table, for its filter (hashFilter.ts). */
export function indexHashesSql(table: string): string {
  return `SELECT hash FROM ${table}`;
}

export function indexInsertSql(table: string, columns: readonly string[]): string {
  const marks = columns.map(() => ", ?").join("");
  return `INSERT INTO ${table} (hash, ${columns.join(", ")}) VALUES (?${marks})`;
}

/** Reads, including the lookups inside commitBlock and on open. */
export const readSql = {
  chainState:
    `SELECT chain_id AS chainId, height, app_hash AS appHash, commitment, history_size AS historySize,
       app_version AS appVersion, rule_heights AS ruleHeights
     FROM chain_state WHERE id = 1`,
  lastSeq: "SELECT max(seq) FROM transactions",
  // Changes when another connection commits (a follower's cue to catch up). Prepared once:
  // better-sqlite3's \`pragma()\` prepares its statement on every call.
  dataVersion: "PRAGMA data_version",
  txIdAt: "SELECT id FROM transactions WHERE seq = ?",
  txJsonAt: "SELECT json FROM transactions WHERE seq = ? AND id = ?",
  txHeightAt: "SELECT height FROM transactions WHERE seq = ? AND id = ?",
  createAt: "SELECT json FROM transactions WHERE seq = ? AND id = ? AND operation = 'CREATE'",
  isCreateAt: "SELECT 1 FROM transactions WHERE seq = ? AND id = ? AND operation = 'CREATE'",
  transferAt:
    "SELECT json FROM transactions WHERE seq = ? AND asset_id = ? AND operation = 'TRANSFER'",
  // The one-id case of idsIn (a CheckTx): no JSON array to write and read back.
  idsEq: `
    SELECT t.id AS id, t.seq AS seq
    FROM id_index i JOIN transactions t ON t.seq = i.seq WHERE i.hash = ?`,
  // Bulk lookups: `?` is a JSON array (of hashes, seqs, or [seq, output_index] pairs), so one
  // statement answers for a whole block instead of one call per input.
  idsIn: `
    SELECT t.id AS id, t.seq AS seq
    FROM json_each(?) j JOIN id_index i ON i.hash = j.value JOIN transactions t ON t.seq = i.seq`,
  txIdsIn:
    "SELECT t.seq AS seq, t.id AS id FROM json_each(?) j JOIN transactions t ON t.seq = j.value",
  outputsIn: `
    SELECT o.tx_seq AS seq, o.output_index AS outputIndex, t.id AS transactionId,
           t.asset_id AS assetId, o.amount, o.condition_uri AS conditionUri,
           o.public_keys AS publicKeys
    FROM json_each(?) j
    JOIN outputs o ON o.tx_seq = j.value ->> 0 AND o.output_index = j.value ->> 1
    JOIN transactions t ON t.seq = o.tx_seq`,
  // Of these places (a JSON array of [seq, output_index]), the outputs whose keys are exactly
  // the JSON array given, under a plain Ed25519 condition: [asset id, amount] rows.
  holdingsIn: `
    SELECT t.asset_id, o.amount
    FROM json_each(?) j
    JOIN outputs o ON o.tx_seq = j.value ->> 0 AND o.output_index = j.value ->> 1
    JOIN transactions t ON t.seq = o.tx_seq
    WHERE o.public_keys = ? AND instr(o.condition_uri, 'fpt=ed25519-sha-256&') > 0`,
  // Of these seqs (a JSON array), the outputs of transactions of this asset whose keys are
  // exactly the JSON array given, under a plain Ed25519 condition (a balance of one asset).
  holdingsAtSeqs: `
    SELECT o.tx_seq, o.output_index, o.amount
    FROM json_each(?) j
    JOIN transactions t ON t.seq = j.value
    JOIN outputs o ON o.tx_seq = t.seq
    WHERE t.asset_id = ? AND o.public_keys = ? AND instr(o.condition_uri, 'fpt=ed25519-sha-256&') > 0`,
  // How many rows a hash has in an index, up to a seq, counted up to a cap (index rows only).
  keyRowsUpTo: "SELECT count(*) FROM (SELECT 1 FROM key_index WHERE hash = ? AND seq <= ? LIMIT ?)",
  assetRowsUpTo: "SELECT count(*) FROM (SELECT 1 FROM asset_index WHERE hash = ? AND seq <= ? LIMIT ?)",
  spentIn: `
    SELECT s.tx_seq AS seq, s.output_index AS outputIndex, s.spender_seq AS spender
    FROM json_each(?) j JOIN spent_index s ON s.hash = j.value`,
  // The merged part of the hashed lookups, a batch at a time: after a (seq, output index), up to
  // the last seq of the read's start, in commit order.
  // Only the places of a key's outputs, for reads that look at few of them (balances).
  keyPlacesAfter: `
    SELECT seq, output_index FROM key_index
    WHERE hash = ? AND (seq, output_index) > (?, ?) AND seq <= ?
    ORDER BY seq, output_index LIMIT ?`,
  outputsOfKeyAfter: `
    SELECT k.seq AS seq, k.output_index AS outputIndex, t.id AS transactionId,
           o.public_keys AS publicKeys, o.amount AS amount, t.asset_id AS assetId,
           o.condition_uri AS conditionUri
    FROM key_index k
    JOIN outputs o ON o.tx_seq = k.seq AND o.output_index = k.output_index
    JOIN transactions t ON t.seq = k.seq
    WHERE k.hash = ? AND (k.seq, k.output_index) > (?, ?) AND k.seq <= ?
    ORDER BY k.seq, k.output_index
    LIMIT ?`,
  // The same for one waiting row: point reads beat a json_each list here (half the time).
  outputOfKeyAt: `
    SELECT o.tx_seq AS seq, o.output_index AS outputIndex, t.id AS transactionId,
           o.public_keys AS publicKeys, o.amount AS amount, t.asset_id AS assetId,
           o.condition_uri AS conditionUri
    FROM outputs o JOIN transactions t ON t.seq = o.tx_seq
    WHERE o.tx_seq = ? AND o.output_index = ?`,
  transferSeqsAfter: `
    SELECT seq FROM asset_index WHERE hash = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
  lastTransferOfAsset: `
    SELECT t.seq AS seq, t.json AS json
    FROM asset_index a JOIN transactions t ON t.seq = a.seq
    WHERE a.hash = ? AND t.asset_id = ? AND t.operation = 'TRANSFER'
    ORDER BY a.seq DESC LIMIT 1`,
  block: `SELECT app_hash AS appHash, seq_first AS seqFirst, tx_count AS txCount,
          history_size AS historySize FROM blocks WHERE height = ?`,
  historyNode: "SELECT hash FROM history_nodes WHERE level = ? AND idx = ?",
  blockNode: "SELECT hash FROM block_nodes WHERE height = ? AND level = ? AND idx = ?",
  txIdsBySeqRange: "SELECT id FROM transactions WHERE seq >= ? AND seq < ? ORDER BY seq",
  // The event streams' replay (streamBlocks.ts): blocks from a height on, then their transactions.
  streamHeads: `SELECT height, app_hash AS appHash, seq_first AS seqFirst, tx_count AS txCount
                FROM blocks WHERE height >= ? ORDER BY height LIMIT ?`,
  streamTxs: "SELECT seq, id, asset_id AS assetId FROM transactions WHERE seq >= ? AND seq < ? ORDER BY seq",
  txJsonsBySeqRange: "SELECT json FROM transactions WHERE seq >= ? AND seq < ? ORDER BY seq",
  txRowsBySeqRange: "SELECT id, json FROM transactions WHERE seq >= ? AND seq < ? ORDER BY seq",
  legacyTxsAtHeight: "SELECT position, id, json FROM legacy_transactions WHERE height = ? ORDER BY position",
  legacyIdsAtHeight: "SELECT position, id FROM legacy_transactions WHERE height = ? ORDER BY position",
  validatorsAt: "SELECT height, json FROM validators WHERE height <= ? ORDER BY height DESC LIMIT 1",
  validatorsFrom: "SELECT height, json FROM validators WHERE height >= ? AND height <= ? ORDER BY height LIMIT ?",
  electionById: `SELECT id, height, validator_key AS validatorKey, power, node_id AS nodeId, total, votes,
    concluded_at AS concludedAt FROM elections WHERE id = ?`,
  evidenceAfter: `SELECT height, idx AS "index", type, validator_address AS validatorAddress, power,
    infraction_height AS infractionHeight, time, total_power AS totalPower FROM evidence
    WHERE (height, idx) > (?, ?) AND height <= ? AND (? IS NULL OR height = ?)
    ORDER BY height, idx LIMIT ?`,
  // The hits of a search, by seq, once ranked (rankSql).
  assetHitAt: "SELECT id, asset_data AS json FROM transactions WHERE seq = ?",
  metadataHitAt: "SELECT id, metadata AS json FROM transactions WHERE seq = ?",
  // On open: the marks of the index slices, and what was committed above the lowest one.
  sweep: "SELECT merged_seq FROM index_sweep ORDER BY slice",
  txsAfter: `SELECT seq, id, operation, asset_id AS assetId FROM transactions
             WHERE seq > ? ORDER BY seq`,
  outputsAfter: `SELECT tx_seq AS seq, output_index AS outputIndex, public_keys AS publicKeys
                 FROM outputs WHERE tx_seq > ? ORDER BY tx_seq, output_index`,
  inputsAfter: `SELECT spender_seq AS spenderSeq, tx_seq AS txSeq, output_index AS outputIndex
                FROM inputs WHERE spender_seq > ? ORDER BY spender_seq, input_index`,
  // Legacy transactions (schema.ts, legacySchemaSql): by keyHash(id), the full id checked.
  legacyLastSeq: "SELECT max(seq) FROM legacy_transactions",
  legacyIdsIn: `
    SELECT t.id AS id, t.seq AS seq
    FROM json_each(?) j JOIN legacy_transactions t ON t.id_hash = j.value`,
  legacyOutputsIn: `
    SELECT o.tx_seq AS seq, o.cid AS cid, o.condition_uri AS conditionUri,
           o.public_keys AS publicKeys, s.id AS spentBy
    FROM json_each(?) j
    JOIN legacy_outputs o ON o.tx_seq = j.value ->> 0 AND o.cid = j.value ->> 1
    LEFT JOIN legacy_transactions s ON s.seq = o.spent_by`,
  legacyTxJson: "SELECT json FROM legacy_transactions WHERE id_hash = ? AND id = ?",
  legacyTxHeight: "SELECT height FROM legacy_transactions WHERE id_hash = ? AND id = ?",
  legacyLastRefusal: `
    SELECT height, code, message FROM legacy_invalid
    WHERE id_hash = ? AND id = ? ORDER BY seq DESC LIMIT 1`,
  legacyRefusedBodies: `
    SELECT height, position, json FROM legacy_invalid
    WHERE height >= ? AND height <= ? AND json IS NOT NULL ORDER BY height, seq`,
} as const;

/** Writes, all inside the commitBlock or initChain transaction. */
export const writeSql = {
  insertTx: `
    INSERT INTO transactions (seq, height, operation, id, asset_id, asset_data, metadata, json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  insertOutput: `INSERT INTO outputs (tx_seq, output_index, amount, condition_uri, public_keys)
                 VALUES (?, ?, ?, ?, ?)`,
  insertInput:
    "INSERT INTO inputs (spender_seq, input_index, tx_seq, output_index) VALUES (?, ?, ?, ?)",
  insertAssetText: "INSERT INTO assets_fts (rowid, body) VALUES (?, ?)",
  insertMetadataText: "INSERT INTO metadata_fts (rowid, body) VALUES (?, ?)",
  insertBlock:
    "INSERT INTO blocks (height, app_hash, seq_first, tx_count, history_size) VALUES (?, ?, ?, ?, ?)",
  insertHistoryNode: "INSERT INTO history_nodes (level, idx, hash) VALUES (?, ?, ?)",
  insertBlockNode: "INSERT INTO block_nodes (height, level, idx, hash) VALUES (?, ?, ?, ?)",
  setCommitment: "UPDATE chain_state SET commitment = ? WHERE id = 1",
  setHistorySize: "UPDATE chain_state SET history_size = ? WHERE id = 1",
  insertValidators: "INSERT INTO validators (height, json) VALUES (?, ?)",
  putElection: `INSERT OR REPLACE INTO elections
    (id, height, validator_key, power, node_id, total, votes, concluded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  insertEvidence: `INSERT INTO evidence
    (height, idx, type, validator_address, power, infraction_height, time, total_power) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  setChainId: "UPDATE chain_state SET chain_id = ? WHERE id = 1",
  setChainRules: "UPDATE chain_state SET app_version = ?, rule_heights = ? WHERE id = 1",
  setHead: "UPDATE chain_state SET height = ?, app_hash = ? WHERE id = 1",
  setSweep: "UPDATE index_sweep SET merged_seq = ? WHERE slice = ?",
  insertLegacyTx: `
    INSERT INTO legacy_transactions (seq, id_hash, id, height, position, variant, operation, json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  insertLegacyOutput: `INSERT INTO legacy_outputs (tx_seq, cid, condition_uri, public_keys, spent_by)
                       VALUES (?, ?, ?, ?, NULL)`,
  spendLegacyOutput:
    "UPDATE legacy_outputs SET spent_by = ? WHERE tx_seq = ? AND cid = ? AND spent_by IS NULL",
  insertLegacyInvalid: `INSERT INTO legacy_invalid (id_hash, id, height, code, message, json, position)
                        VALUES (?, ?, ?, ?, ?, ?, ?)`,
} as const;

/**
 * Text search ranking, on the FTS5 tables alone (no table join, so no stored JSON is read while
 * ranking): among the newest `?` matches (the work budget, SqliteStoreOptions
 * searchRankedMatchesMax), best match first (bm25 is lower for better), then commit order.
 * FTS5 reads matches in rowid order cheaply; ranking is what costs, so it is what is bounded.
 */
export const rankSql = {
  assets: rankSqlOf("assets_fts"),
  metadata: rankSqlOf("metadata_fts"),
  assetsUpTo: rankUpToSqlOf("assets_fts"),
  metadataUpTo: rankUpToSqlOf("metadata_fts"),
} as const;

/** A page of the ranking of the matches committed up to a snapshot (a paged search). */
function rankUpToSqlOf(table: string): string {
  return `
    SELECT seq FROM (
      SELECT rowid AS seq, bm25(${table}) AS score FROM ${table}
      WHERE ${table} MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?)
    ORDER BY score, seq
    LIMIT ? OFFSET ?`;
}

function rankSqlOf(table: string): string {
  return `
    SELECT seq FROM (
      SELECT rowid AS seq, bm25(${table}) AS score FROM ${table}
      WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ?)
    ORDER BY score, seq
    LIMIT ?`;
}
