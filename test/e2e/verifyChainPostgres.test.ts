// verify-chain on a real PostgreSQL ledger whose derived rows were edited with SQL (issue #36,
// 9): each table the reads answer from (the transactions' columns, outputs and their spenders,
// output keys, field index, text documents and the counts search ranks on, legacy outputs) is
// checked against the transactions, and the first row that differs is named with its table and
// transaction. Each edit is made in a copy of the clean database (CREATE DATABASE ... TEMPLATE).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { verifyChain, type ChainReport } from "../../src/ledger/verifyChain.js";
import { PostgresStore } from "../../src/store/postgres/postgresStore.js";
import { writeMixedLedger } from "../helpers/mixedLedger.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";

let server: PostgresServer;
let clean: string;
let copies = 0;

before(async () => {
  server = await startPostgres();
  const url = await server.newDatabase();
  clean = new URL(url).pathname.slice(1);
  const store = await PostgresStore.open({ url });
  try {
    await writeMixedLedger(store);
  } finally {
    await store.close();
  }
});

after(() => server?.stop());

async function sql(database: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: `postgres://ledgerd@127.0.0.1:${server.port}/${database}` });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A copy of the clean ledger with `edit` made in it, verified. */
async function verifyEdited(edit: string): Promise<ChainReport> {
  const name = `edited_${++copies}`;
  await sql("postgres", `CREATE DATABASE ${name} TEMPLATE ${clean}`);
  if (edit !== "") await sql(name, edit);
  const store = await PostgresStore.open({ url: `postgres://ledgerd@127.0.0.1:${server.port}/${name}`, access: "reader" });
  try {
    return await verifyChain(store);
  } finally {
    await store.close();
  }
}

async function refused(edit: string, height: number, reason: RegExp): Promise<void> {
  const report = await verifyEdited(edit);
  assert.equal(report.fault?.height, height, JSON.stringify(report));
  assert.match(report.fault.reason, reason);
}

const ofTx = String.raw`\(transaction [0-9a-f]{64}, height \d+\)`;

describe("verify-chain on PostgreSQL: the rows derived from the transactions (issue #36)", () => {
  it("verifies the clean ledger", async () => {
    const report = await verifyEdited("");
    assert.deepEqual(report, { from: 1, to: 8, txs: 19, fault: null });
  });

  it("reports an asset's data column and an output's amount that are not the transaction's", async () => {
    await refused(`UPDATE transactions SET asset_data = '{"kind":"forged"}' WHERE seq = 1`, 1, new RegExp(String.raw`^transactions\.asset_data holds .*forged.* ${ofTx}$`));
    await refused("UPDATE outputs SET amount = 2000 WHERE tx_seq = 3", 2, /^outputs\.amount of output 0 holds "2000", the transaction gives "2"/);
    await refused(`UPDATE outputs SET public_keys = '["forged"]' WHERE tx_seq = 1`, 1, /^outputs\.public_keys of output 0/);
  });

  it("reports a spend taken away, and a spender no spend names", async () => {
    await refused("UPDATE outputs SET spent_by = NULL WHERE tx_seq = 3", 3, new RegExp(String.raw`^outputs\.spent_by of [0-9a-f]{64}:0 holds nothing, the transaction \(seq 5\) spends it ${ofTx}$`));
    await refused("UPDATE outputs SET spent_by = 2 WHERE tx_seq = 2", 8, /^outputs: 7 outputs name a spender among the transactions checked, which spend 6$/);
  });

  it("reports an output key row missing or added", async () => {
    await refused("DELETE FROM output_keys WHERE tx_seq = 4", 3, /^output_keys: the row of key \w+ of output 0 is missing/);
    await refused("UPDATE output_keys SET amount = amount + 1 WHERE tx_seq = 4", 3, /^output_keys: the row of key \w+ of output 0 is missing or differs from its output/);
    await refused("INSERT INTO output_keys SELECT 'forged', tx_seq, output_index, transaction_id, asset_id, amount FROM output_keys WHERE tx_seq = 6 AND output_index = 0 LIMIT 1", 8, /^output_keys: 1 row\(s\) of transaction [0-9a-f]{64} that it does not give$/);
  });

  it("reports a field index row missing or added", async () => {
    await refused("DELETE FROM field_index WHERE seq = 2", 2, /^field_index: the row of a leaf \(digest [0-9a-f]{32}\) is missing/);
    await refused(`INSERT INTO field_index VALUES ('\\x00112233445566778899aabbccddeeff', 4)`, 8, /^field_index: 1 row\(s\) of transaction [0-9a-f]{64} that it does not give$/);
  });

  it("reports a text document that is not the transaction's text, and the counts search ranks on", async () => {
    await refused("UPDATE asset_text SET body = to_tsvector('simple', 'forged') WHERE seq = 2", 2, new RegExp(String.raw`^asset_text: the document is not the transaction's text ${ofTx}$`));
    await refused("INSERT INTO asset_text VALUES (3, to_tsvector('simple', 'forged'), 1)", 2, /^asset_text: a document the transaction has no assets for/);
    await refused("UPDATE text_terms SET documents = documents + 1 WHERE kind = 'metadata' AND lexeme = 'tamper'", 8, /^text_terms: metadata term "tamper" counts 7 documents, the transactions give 6$/);
    await refused("UPDATE text_stats SET tokens = tokens + 1 WHERE kind = 'assets'", 8, /^text_stats: assets counts/);
  });

  it("reports a legacy output that is not the legacy transaction's, or whose spender is not its spender's", async () => {
    await refused(`UPDATE legacy_outputs SET public_keys = '["forged"]' WHERE tx_seq = 2`, 3, /^legacy_outputs\.public_keys of output 0 .*\(legacy transaction [0-9a-f]{64}, height 3\)$/);
    await refused("UPDATE legacy_outputs SET spent_by = NULL WHERE tx_seq = 5", 8, /^legacy_outputs\.spent_by of [0-9a-f]{64}:0 holds nothing, the transaction \(seq 6\) spends it/);
    await refused("UPDATE legacy_outputs SET spent_by = 6 WHERE tx_seq = 1", 8, /^legacy_outputs: 2 outputs name a spender among the transactions checked, which spend 1$/);
  });
});
