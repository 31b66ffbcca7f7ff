// The PostgreSQL block writer: one block per database transaction, all or nothing, in four round
// trips whatever the block's size (BEGIN, one statement reading what the checks need, one
// writing every table through arrays and `unnest`, COMMIT), since each round trip cost more
// than a block of 100 transactions' rows (BENCHMARKS.md, issue #42). Each spend is
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

/** What a block's checks read, in one statement: the chain state (locked), the last seq, the ids named, the outputs spent. */
interface BlockReadRow extends StateRow {
  last_seq: number | null;
  /** [id, seq] of each id the block names that is committed. */
  named: [string, number][];
  /** [seq, output index, spent_by] of each committed output the block spends. */
  stored: [number, number, number | null][];
}

// Not prepared statements: a generic plan (PostgreSQL's choice after five runs) cannot see how
// few rows the arrays hold, and joined the outputs whole (measured: 10x the CPU of a TRANSFER).
const blockReadSql = `
  WITH state AS (SELECT chain_id, height, commitment, history_size FROM chain_state WHERE id = 1 FOR UPDATE),
    named AS (SELECT id, seq FROM transactions WHERE id = ANY($1::text[]))
  SELECT state.*, (SELECT max(seq) FROM transactions) AS last_seq,
    (SELECT coalesce(json_agg(json_build_array(id, seq)), '[]') FROM named) AS named,
    (SELECT coalesce(json_agg(json_build_array(o.tx_seq, o.output_index, o.spent_by)), '[]')
     FROM unnest($2::text[], $3::integer[]) AS p (id, idx)
     JOIN named ON named.id = p.id JOIN outputs o ON o.tx_seq = named.seq AND o.output_index = p.idx) AS stored
  FROM state`;

/**
 * Everything a block writes but its legacy part and the rare rows (validators, elections,
 * evidence), in one statement of data-modifying WITH queries: one round trip, however many
 * tables. They all see the state before the statement, so an output spent in its own block is
 * inserted spent (spent_by) instead of updated; the result is the count of earlier outputs spent.
 */
const blockWriteSql = `
  WITH
    t AS (INSERT INTO transactions (seq, height, operation, id, asset_id, asset_data, metadata, json)
      SELECT seq, $1::bigint, operation, id, asset_id, asset_data, metadata, json
      FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
        AS t (seq, operation, id, asset_id, asset_data, metadata, json)),
    o AS (INSERT INTO outputs (tx_seq, output_index, transaction_id, asset_id, amount, condition_uri, public_keys, spent_by)
      SELECT * FROM unnest($9::bigint[], $10::integer[], $11::text[], $12::text[], $13::numeric[], $14::text[], $15::text[], $16::bigint[])),
    k AS (INSERT INTO output_keys (public_key, tx_seq, output_index, transaction_id, asset_id, amount)
      SELECT * FROM unnest($17::text[], $18::bigint[], $19::integer[], $20::text[], $21::text[], $22::numeric[])),
    s AS (UPDATE outputs SET spent_by = p.by FROM unnest($23::bigint[], $24::integer[], $25::bigint[]) AS p (seq, idx, by)
      WHERE outputs.tx_seq = p.seq AND outputs.output_index = p.idx AND outputs.spent_by IS NULL RETURNING 1),
    at AS (INSERT INTO asset_text (seq, body, tokens) SELECT * FROM unnest($26::bigint[], $27::tsvector[], $28::integer[])),
    mt AS (INSERT INTO metadata_text (seq, body, tokens) SELECT * FROM unnest($29::bigint[], $30::tsvector[], $31::integer[])),
    ts AS (UPDATE text_stats SET documents = text_stats.documents + d.documents, tokens = text_stats.tokens + d.tokens
      FROM unnest($32::text[], $33::bigint[], $34::bigint[]) AS d (kind, documents, tokens) WHERE text_stats.kind = d.kind),
    tt AS (INSERT INTO text_terms (kind, lexeme, documents)
      SELECT kind, lexeme, count(*) FROM unnest($35::text[], $36::text[]) AS l (kind, lexeme) GROUP BY kind, lexeme
      ON CONFLICT (kind, lexeme) DO UPDATE SET documents = text_terms.documents + excluded.documents),
    f AS (INSERT INTO field_index (digest, seq) SELECT * FROM unnest($37::bytea[], $38::bigint[]) ON CONFLICT DO NOTHING),
    hn AS (INSERT INTO history_nodes (level, idx, hash) SELECT * FROM unnest($39::integer[], $40::bigint[], $41::bytea[])),
    bn AS (INSERT INTO block_nodes (height, level, idx, hash) SELECT $1::bigint, * FROM unnest($42::integer[], $43::bigint[], $44::bytea[])),
    b AS (INSERT INTO blocks (height, app_hash, seq_first, tx_count, history_size) VALUES ($1::bigint, $45::text, $46::bigint, $47::integer, $48::bigint)),
    c AS (UPDATE chain_state SET height = $1::bigint, app_hash = $45::text, history_size = coalesce($49::bigint, history_size) WHERE id = 1)
  SELECT count(*)::integer AS spent FROM s`;

/**
 * blockWriteSql is prepared once a connection (node-postgres names it), so the server parses
 * and analyses it once instead of at every block; it is still planned for each block's values
 * (`startWriterSession`). Measured: 4 to 10% less of the server's CPU a transaction
 * (BENCHMARKS.md, "Issue #42: PostgreSQL's write path").
 */
const blockWriteStatement = "ledgerd_block_write";

/**
 * Sets up the writer's session: its prepared statements are planned for each block's values.
 * A generic plan, PostgreSQL's choice after five runs, is made once and kept while the tables
 * grow (measured: 2 to 3x the server's CPU a TRANSFER).
 */
export async function startWriterSession(client: pg.ClientBase): Promise<void> {
  await client.query("SET plan_cache_mode = force_custom_plan");
}

export async function writeBlock(client: pg.ClientBase, block: BlockWrite): Promise<void> {
  await inTransaction(client, async () => {
    const txs = block.txs;
    const named = [...new Set(txs.flatMap((tx) => [tx.id, ...tx.spends.map((ref) => ref.transactionId)]))];
    const spends = txs.flatMap((tx) => tx.spends);
    const read = await client.query<BlockReadRow>(blockReadSql, [named, spends.map((ref) => ref.transactionId), spends.map((ref) => ref.outputIndex)]);
    const state = read.rows[0]!;
    checkNextHeight(block, state.height);
    const seqFirst = (state.last_seq ?? 0) + 1;
    const rows = blockRows(block, seqFirst, state);
    if (block.legacy !== undefined) await writeLegacy(client, block.legacy, block.height, txs.length);
    const history = checkHistory(block, state.commitment, state.history_size);
    const evidence = checkEvidence(block);
    const written = await client.query<{ spent: number }>({
      name: blockWriteStatement,
      text: blockWriteSql,
      values: [
        block.height, ...rows.values,
        ...historyValues(history?.nodes ?? []), ...historyValues(history?.blockNodes ?? []),
        block.appHash, seqFirst, txs.length, block.history?.size ?? null, history?.size ?? null,
      ],
    });
    assert.equal(written.rows[0]!.spent, rows.earlierSpends, "every spend found its unspent output");
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
    for (const e of evidence) {
      await client.query(
        `INSERT INTO evidence (height, idx, type, validator_address, power, infraction_height, time, total_power)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [e.height, e.index, e.type, e.validatorAddress, e.power, e.infractionHeight, e.time, e.totalPower],
      );
    }
  });
}

/** A history tree's nodes as blockWriteSql's three arrays. */
function historyValues(nodes: readonly { level: number; index: number; hash: Uint8Array }[]): unknown[] {
  return [nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => Buffer.from(n.hash))];
}

/**
 * The block's v2.0 transactions, outputs, spends, text and field index as blockWriteSql's
 * arrays ($2 to $38), each checked against the committed state read (`state`) plus the block so
 * far; `earlierSpends`: how many spends are of outputs committed before the block.
 */
function blockRows(block: BlockWrite, seqFirst: number, state: Pick<BlockReadRow, "named" | "stored">): { values: unknown[]; earlierSpends: number } {
  const txs = block.txs;
  const ids = new Map(state.named);
  const outputs = new Set(state.stored.map(([seq, index]) => `${seq}:${index}`));
  const spent = new Map(state.stored.filter((row) => row[2] !== null).map(([seq, index, by]) => [`${seq}:${index}`, by!]));
  const t = { seq: [] as number[], operation: [] as string[], id: [] as string[], assetId: [] as string[], assetData: [] as (string | null)[], metadata: [] as (string | null)[], json: [] as string[] };
  const o = { seq: [] as number[], index: [] as number[], txId: [] as string[], assetId: [] as string[], amount: [] as string[], uri: [] as string[], keys: [] as string[], spentBy: [] as (number | null)[] };
  const k = { key: [] as string[], seq: [] as number[], index: [] as number[], txId: [] as string[], assetId: [] as string[], amount: [] as string[] };
  const s = { seq: [] as number[], index: [] as number[], by: [] as number[] };
  const f = { digest: [] as Buffer[], seq: [] as number[] };
  // Where each of the block's own outputs is in `o`, so that a later spend in the block marks it.
  const ownOutputs = new Map<string, number>();
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
      const own = ownOutputs.get(place);
      if (own !== undefined) o.spentBy[own] = seq;
      else s.seq.push(spentSeq!), s.index.push(ref.outputIndex), s.by.push(seq);
    }
    for (const output of tx.outputs) {
      ownOutputs.set(`${seq}:${output.outputIndex}`, o.seq.length);
      o.seq.push(seq), o.index.push(output.outputIndex), o.txId.push(tx.id), o.assetId.push(tx.assetId), o.amount.push(output.amount.toString());
      o.uri.push(output.conditionUri), o.keys.push(JSON.stringify(output.publicKeys)), o.spentBy.push(null);
      outputs.add(`${seq}:${output.outputIndex}`);
      for (const key of new Set(output.publicKeys)) {
        k.key.push(key), k.seq.push(seq), k.index.push(output.outputIndex), k.txId.push(tx.id), k.assetId.push(tx.assetId), k.amount.push(o.amount.at(-1)!);
      }
    }
    if (tx.assetData !== null) assetDocs.push({ seq, id: tx.id, json: tx.assetData });
    if (tx.metadata !== null) metadataDocs.push({ seq, id: tx.id, json: tx.metadata });
    const leaves = new Set<string>();
    if (tx.assetData !== null) for (const key of fieldLeafKeys("assets", tx.assetData)) leaves.add(key);
    if (tx.metadata !== null) for (const key of fieldLeafKeys("metadata", tx.metadata)) leaves.add(key);
    for (const key of leaves) f.digest.push(fieldDigest(key)), f.seq.push(seq);
  });
  const assets = searchRows(assetDocs);
  const metadata = searchRows(metadataDocs);
  const stats = [["assets", assets], ["metadata", metadata]] as const;
  const counted = stats.filter(([, rows]) => rows.documents > 0);
  const terms = stats.flatMap(([kind, rows]) => rows.lexemes.map((lexeme) => [kind, lexeme] as const));
  return {
    values: [
      t.seq, t.operation, t.id, t.assetId, t.assetData, t.metadata, t.json,
      o.seq, o.index, o.txId, o.assetId, o.amount, o.uri, o.keys, o.spentBy,
      k.key, k.seq, k.index, k.txId, k.assetId, k.amount,
      s.seq, s.index, s.by,
      ...assets.values, ...metadata.values,
      counted.map(([kind]) => kind), counted.map(([, rows]) => rows.documents), counted.map(([, rows]) => rows.tokens),
      terms.map(([kind]) => kind), terms.map(([, lexeme]) => lexeme),
      f.digest, f.seq,
    ],
    earlierSpends: s.seq.length,
  };
}

/** The documents' tsvectors, and the counts bm25.ts ranks on: lengths and (per lexeme) document frequencies. */
function searchRows(docs: readonly { seq: number; id: string; json: string }[]): { values: unknown[]; documents: number; tokens: number; lexemes: string[] } {
  const rows = searchDocuments(docs);
  return {
    values: [docs.map((d) => d.seq), rows.map((r) => r.vector), rows.map((r) => r.tokens)],
    documents: rows.length,
    tokens: rows.reduce((sum, r) => sum + r.tokens, 0),
    lexemes: rows.flatMap((r) => r.lexemes),
  };
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
    await client.query("INSERT INTO legacy_invalid (id, height, code, message, json, position) VALUES ($1, $2, $3, $4, $5, $6)", [
      refused.id, height, storedText(refused.code), storedText(refused.message), refused.json, refused.position,
    ]);
  }
}
