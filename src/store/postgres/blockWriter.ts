// The PostgreSQL block writer: one block per database transaction, all or nothing, a few bulk
// statements per table (arrays through `unnest`), whatever the block's size. Each spend is
// checked against the committed state plus the block so far; a failed check is a ledger bug
// (the validator checked the same state), so it is an assertion and rolls the block back.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type pg from "pg";
import { legacyOutputKey } from "../../legacy/committed.js";
import { checkHistory, checkInitChain, checkLegacyPosition, checkLegacySpend, checkNewId, checkNextHeight, checkSpend, checkSpendTaken, checkEvidence } from "../blockInvariants.js";
import type { CommitmentVersion } from "../../proofs/commitment.js";
import { makesAsset, outputKey } from "../../transaction/committed.js";
import { fieldLeafKeys } from "../fieldQuery.js";
import { validatorsJson } from "../validatorsJson.js";
import type { BlockWrite, ChainRules, ChainState, LegacyBlockWrite, Validator } from "../store.js";
import { chainRulesColumns } from "../chainRules.js";
import { searchDocuments } from "./textSearch.js";

/**
 * A string a transaction carried, for a text column: as JSON text, since PostgreSQL's text cannot
 * hold NUL and a JSON string can be any string (schema.ts names the columns). `readStoredText`
 * gives it back.
 */
export function storedText(text: string): string {
  return JSON.stringify(text);
}

export function readStoredText(stored: string): string {
  return JSON.parse(stored) as string;
}

/** The digest a leaf of the field index is stored under (../fieldQuery.ts fieldKey). */
export function fieldDigest(key: string): Buffer {
  return createHash("sha256").update(key).digest().subarray(0, 16);
}

/** Runs `work` in one transaction on `client`: COMMIT after it, ROLLBACK if it throws. */
export async function inTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

interface StateRow {
  chain_id: string | null;
  height: number;
  commitment: CommitmentVersion;
  history_size: number;
}

async function lockedState(client: pg.ClientBase): Promise<StateRow> {
  const result = await client.query<StateRow>("SELECT chain_id, height, commitment, history_size FROM chain_state WHERE id = 1 FOR UPDATE");
  return result.rows[0]!;
}

export async function writeInitChain(
  client: pg.ClientBase,
  chainId: string,
  validators: readonly Validator[],
  commitment: CommitmentVersion,
  rules: ChainRules | undefined,
): Promise<void> {
  await inTransaction(client, async () => {
    const state = await lockedState(client);
    checkInitChain(state.chain_id, state.height);
    const columns = chainRulesColumns(rules);
    await client.query(
      "UPDATE chain_state SET chain_id = $1, commitment = $2, app_version = $3, rule_heights = $4 WHERE id = 1",
      [chainId, commitment, columns.appVersion, columns.ruleHeights],
    );
    // The first validator set governs from height 1 (BigchainDB `init_chain`).
    await client.query("INSERT INTO validators (height, json) VALUES (1, $1)", [validatorsJson(validators)]);
  });
}

export async function writeBlock(client: pg.ClientBase, block: BlockWrite): Promise<void> {
  await inTransaction(client, async () => {
    const state = await lockedState(client);
    checkNextHeight(block, state.height);
    const last = await client.query<{ seq: number | null }>("SELECT max(seq) AS seq FROM transactions");
    const seqFirst = (last.rows[0]!.seq ?? 0) + 1;
    await writeTransactions(client, block, seqFirst);
    if (block.legacy !== undefined) await writeLegacy(client, block.legacy, block.height, block.txs.length);
    await writeHistory(client, block, state);
    await client.query(
      "INSERT INTO blocks (height, app_hash, seq_first, tx_count, history_size) VALUES ($1, $2, $3, $4, $5)",
      [block.height, block.appHash, seqFirst, block.txs.length, block.history?.size ?? null],
    );
    // A validator update takes effect from the next height (BigchainDB `end_block`).
    if (block.validators !== undefined) {
      await client.query("INSERT INTO validators (height, json) VALUES ($1, $2)", [block.height + 1, validatorsJson(block.validators)]);
    }
    for (const e of block.elections ?? []) {
      await client.query(
        `INSERT INTO elections (id, height, validator_key, power, node_id, total, votes, concluded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET height = $2, validator_key = $3, power = $4, node_id = $5,
           total = $6, votes = $7, concluded_at = $8`,
        [e.id, e.height, e.validatorKey, e.power, storedText(e.nodeId), `${e.total}`, `${e.votes}`, e.concludedAt],
      );
    }
    for (const e of checkEvidence(block)) {
      await client.query(
        `INSERT INTO evidence (height, idx, type, validator_address, power, infraction_height, time, total_power)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [e.height, e.index, e.type, e.validatorAddress, e.power, e.infractionHeight, e.time, e.totalPower],
      );
    }
    await client.query("UPDATE chain_state SET height = $1, app_hash = $2 WHERE id = 1", [block.height, block.appHash]);
  });
}

/** The block's v2.0 transactions, their outputs, spends, text and field index, in bulk. */
async function writeTransactions(client: pg.ClientBase, block: BlockWrite, seqFirst: number): Promise<void> {
  const txs = block.txs;
  if (txs.length === 0) return;
  // What the checks need from the committed state: the ids named, the outputs spent.
  const named = [...new Set(txs.flatMap((tx) => [tx.id, ...tx.spends.map((ref) => ref.transactionId)]))];
  const found = await client.query<{ id: string; seq: number }>("SELECT id, seq FROM transactions WHERE id = ANY($1::text[])", [named]);
  const ids = new Map(found.rows.map((row) => [row.id, row.seq]));
  const spentSeqs: number[] = [];
  const spentIndexes: number[] = [];
  for (const tx of txs) {
    for (const ref of tx.spends) {
      const seq = ids.get(ref.transactionId);
      if (seq !== undefined) spentSeqs.push(seq), spentIndexes.push(ref.outputIndex);
    }
  }
  const stored = await client.query<{ tx_seq: number; output_index: number; spent_by: number | null }>(
    `SELECT o.tx_seq, o.output_index, o.spent_by FROM outputs o
     JOIN unnest($1::bigint[], $2::integer[]) AS p (seq, idx) ON o.tx_seq = p.seq AND o.output_index = p.idx`,
    [spentSeqs, spentIndexes],
  );
  const outputs = new Set(stored.rows.map((row) => `${row.tx_seq}:${row.output_index}`));
  const spent = new Map(stored.rows.filter((row) => row.spent_by !== null).map((row) => [`${row.tx_seq}:${row.output_index}`, row.spent_by!]));

  const t = { seq: [] as number[], operation: [] as string[], id: [] as string[], assetId: [] as string[], assetData: [] as (string | null)[], metadata: [] as (string | null)[], json: [] as string[] };
  const o = { seq: [] as number[], index: [] as number[], txId: [] as string[], assetId: [] as string[], amount: [] as string[], uri: [] as string[], keys: [] as string[] };
  const k = { key: [] as string[], seq: [] as number[], index: [] as number[] };
  const s = { seq: [] as number[], index: [] as number[], by: [] as number[] };
  const f = { digest: [] as Buffer[], seq: [] as number[] };
  const assetDocs: { seq: number; id: string; json: string }[] = [];
  const metadataDocs: { seq: number; id: string; json: string }[] = [];
  txs.forEach((tx, i) => {
    const seq = seqFirst + i;
    checkNewId(tx.id, ids.get(tx.id));
    ids.set(tx.id, seq);
    // The column holds the role (schema.ts): an election makes its asset, a vote moves one.
    t.seq.push(seq), t.operation.push(makesAsset(tx.operation) ? "CREATE" : "TRANSFER"), t.id.push(tx.id);
    t.assetId.push(tx.assetId), t.assetData.push(tx.assetData), t.metadata.push(tx.metadata), t.json.push(tx.json);
    // Spends before outputs: a transaction can never spend its own output.
    for (const ref of tx.spends) {
      const spentSeq = ids.get(ref.transactionId);
      const place = spentSeq === undefined ? "" : `${spentSeq}:${ref.outputIndex}`;
      const what = `${tx.id} spends ${outputKey(ref)}`;
      checkSpend(what, outputs.has(place), spent.has(place));
      spent.set(place, seq);
      s.seq.push(spentSeq!), s.index.push(ref.outputIndex), s.by.push(seq);
    }
    for (const output of tx.outputs) {
      o.seq.push(seq), o.index.push(output.outputIndex), o.txId.push(tx.id), o.assetId.push(tx.assetId), o.amount.push(output.amount.toString());
      o.uri.push(output.conditionUri), o.keys.push(JSON.stringify(output.publicKeys));
      outputs.add(`${seq}:${output.outputIndex}`);
      for (const key of new Set(output.publicKeys)) k.key.push(key), k.seq.push(seq), k.index.push(output.outputIndex);
    }
    if (tx.assetData !== null) assetDocs.push({ seq, id: tx.id, json: tx.assetData });
    if (tx.metadata !== null) metadataDocs.push({ seq, id: tx.id, json: tx.metadata });
    const leaves = new Set<string>();
    if (tx.assetData !== null) for (const key of fieldLeafKeys("assets", tx.assetData)) leaves.add(key);
    if (tx.metadata !== null) for (const key of fieldLeafKeys("metadata", tx.metadata)) leaves.add(key);
    for (const key of leaves) f.digest.push(fieldDigest(key)), f.seq.push(seq);
  });
  await client.query(
    `INSERT INTO transactions (seq, height, operation, id, asset_id, asset_data, metadata, json)
     SELECT seq, $1, operation, id, asset_id, asset_data, metadata, json
     FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
       AS t (seq, operation, id, asset_id, asset_data, metadata, json)`,
    [block.height, t.seq, t.operation, t.id, t.assetId, t.assetData, t.metadata, t.json],
  );
  await client.query(
    `INSERT INTO outputs (tx_seq, output_index, transaction_id, asset_id, amount, condition_uri, public_keys)
     SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::text[], $5::numeric[], $6::text[], $7::text[])`,
    [o.seq, o.index, o.txId, o.assetId, o.amount, o.uri, o.keys],
  );
  await client.query("INSERT INTO output_keys (public_key, tx_seq, output_index) SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[])", [k.key, k.seq, k.index]);
  if (s.seq.length > 0) {
    const updated = await client.query(
      `UPDATE outputs SET spent_by = p.by FROM unnest($1::bigint[], $2::integer[], $3::bigint[]) AS p (seq, idx, by)
       WHERE outputs.tx_seq = p.seq AND outputs.output_index = p.idx AND outputs.spent_by IS NULL`,
      [s.seq, s.index, s.by],
    );
    assert.equal(updated.rowCount, s.seq.length, "every spend found its unspent output");
  }
  for (const [kind, docs] of [["assets", assetDocs], ["metadata", metadataDocs]] as const) {
    if (docs.length > 0) await writeSearchDocuments(client, kind, docs);
  }
  if (f.seq.length > 0) {
    await client.query("INSERT INTO field_index (digest, seq) SELECT * FROM unnest($1::bytea[], $2::bigint[]) ON CONFLICT DO NOTHING", [f.digest, f.seq]);
  }
}

/** The documents' tsvectors, and the counts bm25.ts ranks on: lengths and document frequencies. */
async function writeSearchDocuments(client: pg.ClientBase, kind: "assets" | "metadata", docs: readonly { seq: number; id: string; json: string }[]): Promise<void> {
  const rows = searchDocuments(docs);
  const table = kind === "assets" ? "asset_text" : "metadata_text";
  await client.query(`INSERT INTO ${table} (seq, body, tokens) SELECT * FROM unnest($1::bigint[], $2::tsvector[], $3::integer[])`, [
    docs.map((d) => d.seq), rows.map((r) => r.vector), rows.map((r) => r.tokens),
  ]);
  const tokens = rows.reduce((sum, r) => sum + r.tokens, 0);
  await client.query("UPDATE text_stats SET documents = documents + $2, tokens = tokens + $3 WHERE kind = $1", [kind, rows.length, tokens]);
  await client.query(
    `INSERT INTO text_terms (kind, lexeme, documents)
     SELECT $1, lexeme, count(*) FROM unnest($2::text[]) AS l (lexeme) GROUP BY lexeme
     ON CONFLICT (kind, lexeme) DO UPDATE SET documents = text_terms.documents + excluded.documents`,
    [kind, rows.flatMap((r) => r.lexemes)],
  );
}

/** The block's legacy part: one spent index for both variants, refusals recorded. */
async function writeLegacy(client: pg.ClientBase, legacy: LegacyBlockWrite, height: number, currentCount: number): Promise<void> {
  const named = [...new Set(legacy.txs.flatMap((tx) => [tx.id, ...tx.spends.map((ref) => ref.txid)]))];
  const found = await client.query<{ id: string; seq: number }>("SELECT id, seq FROM legacy_transactions WHERE id = ANY($1::text[])", [named]);
  const ids = new Map(found.rows.map((row) => [row.id, row.seq]));
  const places = legacy.txs.flatMap((tx) => tx.spends.flatMap((ref) => (ids.has(ref.txid) ? [[ids.get(ref.txid)!, ref.cid]] : [])));
  const stored = await client.query<{ tx_seq: number; cid: number; spent_by: number | null }>(
    `SELECT o.tx_seq, o.cid, o.spent_by FROM legacy_outputs o
     JOIN unnest($1::bigint[], $2::integer[]) AS p (seq, cid) ON o.tx_seq = p.seq AND o.cid = p.cid`,
    [places.map((p) => p[0]), places.map((p) => p[1])],
  );
  const outputs = new Set(stored.rows.map((row) => `${row.tx_seq}:${row.cid}`));
  const spent = new Set(stored.rows.filter((row) => row.spent_by !== null).map((row) => `${row.tx_seq}:${row.cid}`));
  const last = await client.query<{ seq: number | null }>("SELECT max(seq) AS seq FROM legacy_transactions");
  let seq = (last.rows[0]!.seq ?? 0) + 1;
  const validCount = currentCount + legacy.txs.length;
  let position = -1;
  for (const tx of legacy.txs) {
    checkNewId(`legacy ${tx.id}`, ids.get(tx.id));
    checkLegacyPosition(tx.id, tx.position, position, validCount);
    position = tx.position;
    await client.query(
      "INSERT INTO legacy_transactions (seq, id, height, position, variant, operation, json) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      [seq, tx.id, height, tx.position, tx.variant, tx.operation, tx.json],
    );
    ids.set(tx.id, seq);
    for (const ref of tx.spends) {
      const spentSeq = ids.get(ref.txid);
      const place = spentSeq === undefined ? "" : `${spentSeq}:${ref.cid}`;
      const what = `legacy ${tx.id} spends ${legacyOutputKey(ref)}`;
      checkLegacySpend(what, outputs.has(place), spent.has(place));
      spent.add(place);
      const changed = await client.query("UPDATE legacy_outputs SET spent_by = $1 WHERE tx_seq = $2 AND cid = $3 AND spent_by IS NULL", [seq, spentSeq, ref.cid]);
      checkSpendTaken(what, changed.rowCount);
    }
    for (const output of tx.outputs) {
      await client.query("INSERT INTO legacy_outputs (tx_seq, cid, condition_uri, public_keys) VALUES ($1, $2, $3, $4)", [
        seq, output.cid, output.conditionUri, JSON.stringify(output.publicKeys),
      ]);
      outputs.add(`${seq}:${output.cid}`);
    }
    seq++;
  }
  for (const refused of legacy.invalid) {
    await client.query("INSERT INTO legacy_invalid (id, height, code, message) VALUES ($1, $2, $3, $4)", [
      refused.id, height, storedText(refused.code), storedText(refused.message),
    ]);
  }
}

/** The history tree's new perfect subtrees, on a `v1` chain (and none on another). */
async function writeHistory(client: pg.ClientBase, block: BlockWrite, state: Pick<ChainState, "commitment"> & { history_size: number }): Promise<void> {
  const history = checkHistory(block, state.commitment, state.history_size);
  if (history === undefined) return;
  const nodes = history.nodes;
  if (nodes.length > 0) {
    await client.query("INSERT INTO history_nodes (level, idx, hash) SELECT * FROM unnest($1::integer[], $2::bigint[], $3::bytea[])", [
      nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => Buffer.from(n.hash)),
    ]);
  }
  const blockNodes = history.blockNodes;
  if (blockNodes.length > 0) {
    await client.query("INSERT INTO block_nodes (height, level, idx, hash) SELECT $1, * FROM unnest($2::integer[], $3::bigint[], $4::bytea[])", [
      block.height, blockNodes.map((n) => n.level), blockNodes.map((n) => n.index), blockNodes.map((n) => Buffer.from(n.hash)),
    ]);
  }
  await client.query("UPDATE chain_state SET history_size = $1 WHERE id = 1", [history.size]);
}
