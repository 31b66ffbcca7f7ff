// The SQL the SQLite store runs, in one place so a test can check every query plan
// (`EXPLAIN QUERY PLAN`: no API query may scan a table). Parameters are positional `?`.

/** Reads, including the lookups inside commitBlock. */
export const readSql = {
  chainState:
    "SELECT chain_id AS chainId, height, app_hash AS appHash FROM chain_state WHERE id = 1",
  lastSeq: "SELECT max(seq) FROM transactions",
  txSeqById: "SELECT seq FROM transactions WHERE id_key = ? AND id = ?",
  txJsonById: "SELECT json FROM transactions WHERE id_key = ? AND id = ?",
  txHeightById: "SELECT height FROM transactions WHERE id_key = ? AND id = ?",
  output: `
    SELECT t.asset_id AS assetId, o.amount, o.condition_uri AS conditionUri,
           o.public_keys AS publicKeys, s.id AS spentBy
    FROM transactions t
    JOIN outputs o ON o.tx_seq = t.seq
    LEFT JOIN transactions s ON s.seq = o.spent_by
    WHERE t.id_key = ? AND t.id = ? AND o.output_index = ?`,
  outputsByKey: outputsByKeySql(""),
  outputsByKeySpent: outputsByKeySql("AND o.spent_by IS NOT NULL"),
  outputsByKeyUnspent: outputsByKeySql("AND o.spent_by IS NULL"),
  createOfAsset:
    "SELECT seq, json FROM transactions WHERE id_key = ? AND id = ? AND operation = 'CREATE'",
  transfersOfAsset: transfersOfAssetSql("ASC", ""),
  lastTransferOfAsset: transfersOfAssetSql("DESC", "LIMIT 1"),
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
} as const;

/** Writes, all inside the commitBlock or initChain transaction. */
export const writeSql = {
  insertTx: `INSERT INTO transactions (seq, id_key, asset_key, height, operation, id, asset_id, json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  insertOutput: `INSERT INTO outputs (tx_seq, output_index, amount, condition_uri, public_keys)
                 VALUES (?, ?, ?, ?, ?)`,
  // OR IGNORE: two keys of one output may share a keyHash; one row serves both.
  insertOutputKey:
    "INSERT OR IGNORE INTO output_keys (key_hash, tx_seq, output_index) VALUES (?, ?, ?)",
  markSpent: `
    UPDATE outputs SET spent_by = ?
    WHERE tx_seq = (SELECT seq FROM transactions WHERE id_key = ? AND id = ?)
      AND output_index = ? AND spent_by IS NULL`,
  insertAsset: "INSERT INTO assets (tx_seq, data) VALUES (?, ?)",
  insertAssetText: "INSERT INTO assets_fts (rowid, body) VALUES (?, ?)",
  insertMetadata: "INSERT INTO metadata (tx_seq, json) VALUES (?, ?)",
  insertMetadataText: "INSERT INTO metadata_fts (rowid, body) VALUES (?, ?)",
  insertBlock: "INSERT INTO blocks (height, app_hash, seq_first, tx_count) VALUES (?, ?, ?, ?)",
  insertValidators: "INSERT INTO validators (height, json) VALUES (?, ?)",
  setChainId: "UPDATE chain_state SET chain_id = ? WHERE id = 1",
  setHead: "UPDATE chain_state SET height = ?, app_hash = ? WHERE id = 1",
} as const;

function outputsByKeySql(spentFilter: string): string {
  // The key's own list is returned too: keyHash is not unique, so the caller checks it.
  return `
    SELECT t.id AS transactionId, k.output_index AS outputIndex, o.public_keys AS publicKeys
    FROM output_keys k
    JOIN outputs o ON o.tx_seq = k.tx_seq AND o.output_index = k.output_index
    JOIN transactions t ON t.seq = k.tx_seq
    WHERE k.key_hash = ? ${spentFilter}
    ORDER BY k.tx_seq, k.output_index`;
}

function transfersOfAssetSql(order: "ASC" | "DESC", limit: string): string {
  // `operation = 'TRANSFER'` lets SQLite use the partial index transfers_by_asset.
  return `
    SELECT seq, json FROM transactions
    WHERE asset_key = ? AND asset_id = ? AND operation = 'TRANSFER'
    ORDER BY seq ${order} ${limit}`;
}
