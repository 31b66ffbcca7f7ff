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

export function indexLookupSql(table: string, columns: readonly string[]): string {
  return `SELECT ${columns.join(", ")} FROM ${table} WHERE hash = ?`;
}

export function indexInsertSql(table: string, columns: readonly string[]): string {
  const marks = columns.map(() => ", ?").join("");
  return `INSERT INTO ${table} (hash, ${columns.join(", ")}) VALUES (?${marks})`;
}

/** Reads, including the lookups inside commitBlock and on open. */
export const readSql = {
  chainState:
    "SELECT chain_id AS chainId, height, app_hash AS appHash FROM chain_state WHERE id = 1",
  lastSeq: "SELECT max(seq) FROM transactions",
  txIdAt: "SELECT id FROM transactions WHERE seq = ?",
  txJsonAt: "SELECT json FROM transactions WHERE seq = ? AND id = ?",
  txHeightAt: "SELECT height FROM transactions WHERE seq = ? AND id = ?",
  createAt: "SELECT json FROM transactions WHERE seq = ? AND id = ? AND operation = 'CREATE'",
  transferAt:
    "SELECT json FROM transactions WHERE seq = ? AND asset_id = ? AND operation = 'TRANSFER'",
  outputAt: `
    SELECT t.id AS transactionId, t.asset_id AS assetId, o.amount,
           o.condition_uri AS conditionUri, o.public_keys AS publicKeys
    FROM outputs o JOIN transactions t ON t.seq = o.tx_seq
    WHERE o.tx_seq = ? AND o.output_index = ?`,
  block: `SELECT app_hash AS appHash, seq_first AS seqFirst, tx_count AS txCount
          FROM blocks WHERE height = ?`,
  txIdsBySeqRange: "SELECT id FROM transactions WHERE seq >= ? AND seq < ? ORDER BY seq",
  txJsonsBySeqRange: "SELECT json FROM transactions WHERE seq >= ? AND seq < ? ORDER BY seq",
  validatorsAt: "SELECT json FROM validators WHERE height <= ? ORDER BY height DESC LIMIT 1",
  // Best match first (bm25 is lower for better), then commit order. LIMIT -1 is no limit.
  searchAssets: `
    SELECT t.id AS id, a.data AS json
    FROM assets_fts
    JOIN assets a ON a.tx_seq = assets_fts.rowid
    JOIN transactions t ON t.seq = assets_fts.rowid
    WHERE assets_fts MATCH ?
    ORDER BY bm25(assets_fts), assets_fts.rowid
    LIMIT ?`,
  searchMetadata: `
    SELECT t.id AS id, m.json AS json
    FROM metadata_fts
    JOIN metadata m ON m.tx_seq = metadata_fts.rowid
    JOIN transactions t ON t.seq = metadata_fts.rowid
    WHERE metadata_fts MATCH ?
    ORDER BY bm25(metadata_fts), metadata_fts.rowid
    LIMIT ?`,
  // On open: the marks of the index slices, and what was committed above the lowest one.
  sweep: "SELECT merged_seq FROM index_sweep ORDER BY slice",
  txsAfter: `SELECT seq, id, operation, asset_id AS assetId FROM transactions
             WHERE seq > ? ORDER BY seq`,
  outputsAfter: `SELECT tx_seq AS seq, output_index AS outputIndex, public_keys AS publicKeys
                 FROM outputs WHERE tx_seq > ? ORDER BY tx_seq, output_index`,
  inputsAfter: `SELECT spender_seq AS spenderSeq, tx_seq AS txSeq, output_index AS outputIndex
                FROM inputs WHERE spender_seq > ? ORDER BY spender_seq, input_index`,
} as const;

/** Writes, all inside the commitBlock or initChain transaction. */
export const writeSql = {
  insertTx: `INSERT INTO transactions (seq, height, operation, id, asset_id, json)
             VALUES (?, ?, ?, ?, ?, ?)`,
  insertOutput: `INSERT INTO outputs (tx_seq, output_index, amount, condition_uri, public_keys)
                 VALUES (?, ?, ?, ?, ?)`,
  insertInput:
    "INSERT INTO inputs (spender_seq, input_index, tx_seq, output_index) VALUES (?, ?, ?, ?)",
  insertAsset: "INSERT INTO assets (tx_seq, data) VALUES (?, ?)",
  insertAssetText: "INSERT INTO assets_fts (rowid, body) VALUES (?, ?)",
  insertMetadata: "INSERT INTO metadata (tx_seq, json) VALUES (?, ?)",
  insertMetadataText: "INSERT INTO metadata_fts (rowid, body) VALUES (?, ?)",
  insertBlock: "INSERT INTO blocks (height, app_hash, seq_first, tx_count) VALUES (?, ?, ?, ?)",
  insertValidators: "INSERT INTO validators (height, json) VALUES (?, ?)",
  setChainId: "UPDATE chain_state SET chain_id = ? WHERE id = 1",
  setHead: "UPDATE chain_state SET height = ?, app_hash = ? WHERE id = 1",
  setSweep: "UPDATE index_sweep SET merged_seq = ? WHERE slice = ?",
} as const;
