// The two backends give the same answers for the same ledger (issue #16): one random ledger,
// written block by block into a SQLite file and a PostgreSQL database, then every read of the
// Store interface asked of both and compared: transactions, blocks (both kinds, in block order),
// outputs spent and unspent, paged walks with their positions, balances, queries by field,
// validators, elections, proof nodes, legacy records, and text searches in relevance order.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PostgresStore } from "../../../src/store/postgres/postgresStore.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { Batches, Store } from "../../../src/store/store.js";
import type { CommittedLegacyTx } from "../../../src/legacy/committed.js";
import type { CommittedTx } from "../../../src/transaction/committed.js";
import { startPostgres, type PostgresServer } from "../../helpers/postgres.js";
import { Random } from "../../helpers/random.js";
import { createTx, hex64, publicKey, ref, transferTx, validator } from "./fixtures.js";
import { legacyRef, legacyTx, mixedBlock } from "./legacyFixtures.js";
import { wholeOf } from "../../helpers/wholeAnswers.js";

const words = [
  "running", "runs", "runner", "bicycle", "bicycles", "café", "Crème", "brûlée", "generous", "generously",
  "relational", "conditional", "happiness", "happy", "organisation", "organization", "ledger", "ledgers",
  "the", "of", "and", "don't", "o'neil", "pre-market", "submarine", "périscope", "ÉCOLE", "école", "2019",
  "naïve", "façade", "Zürich", "straße", "caring", "cared", "cares", "agreed", "feed", "ponies", "sky",
];

interface Built {
  readonly txs: CommittedTx[];
  readonly legacy: CommittedLegacyTx[];
  readonly keys: string[];
  readonly assets: string[];
}

/** Writes the same random ledger into every store given. */
async function fill(stores: readonly Store[], seed: number): Promise<Built> {
  const random = new Random(seed);
  const keys = Array.from({ length: 12 }, (_, i) => publicKey(`agree-key-${i}`));
  const sentence = (n: number) => Array.from({ length: n }, () => random.pick(words)).join(" ");
  const built: Built = { txs: [], legacy: [], keys, assets: [] };
  const unspent: { tx: CommittedTx; index: number }[] = [];
  const legacyUnspent: CommittedLegacyTx[] = [];
  for (const store of stores) await store.initChain("agree-chain", [validator("a"), validator("b")], "bigchaindb");
  for (let height = 1; height <= 60; height++) {
    const items: (CommittedTx | CommittedLegacyTx)[] = [];
    const count = random.int(12);
    for (let i = 0; i < count; i++) {
      const label = `agree-${height}-${i}`;
      if (unspent.length > 0 && random.next() < 0.4) {
        const spent = unspent.splice(random.int(unspent.length), 1)[0]!;
        const outputs = [{ keys: [random.pick(keys)], amount: BigInt(1 + random.int(5)) }, { keys: [random.pick(keys), random.pick(keys)] }];
        const tx = transferTx({ label, assetId: spent.tx.assetId, spends: [ref(spent.tx, spent.index)], outputs, metadata: random.next() < 0.5 ? { note: sentence(4), n: random.int(3) } : null });
        items.push(tx);
        unspent.push({ tx, index: 0 }, { tx, index: 1 });
      } else if (random.next() < 0.1) {
        const spends = legacyUnspent.length > 0 && random.next() < 0.5 ? [legacyRef(legacyUnspent.shift()!, 0)] : [];
        const tx = legacyTx({ label, variant: random.next() < 0.5 ? "A" : "B", spends });
        items.push(tx);
        legacyUnspent.push(tx);
      } else {
        const data = random.next() < 0.1 ? null : { title: sentence(1 + random.int(6)), tags: [sentence(1), sentence(2)], kind: random.pick(["car", "bike", "boat"]), serial: random.int(20) };
        const tx = createTx({ label, data, metadata: random.next() < 0.5 ? { note: sentence(3) } : null, outputs: [{ keys: [random.pick(keys)], amount: BigInt(1 + random.int(1000)) }] });
        items.push(tx);
        unspent.push({ tx, index: 0 });
        built.assets.push(tx.id);
      }
    }
    const write = mixedBlock(height, items, random.next() < 0.05 ? [{ id: hex64(`refused-${height}`), code: "DoubleSpend", message: "spent", json: `{"refused":${height}}`, position: items.length }] : []);
    for (const store of stores) await store.commitBlock(height === 30 ? { ...write, validators: [validator("c", 7)] } : write);
    for (const item of items) ("variant" in item ? built.legacy : built.txs).push(item as never);
  }
  return built;
}

async function all<T>(batches: Batches<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

/** A paged walk, `size` at a time, each page continuing after the last item's position. */
async function walk<T extends { position: string }>(page: (after: string | undefined) => Batches<T>): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (;;) {
    const items = await all(page(after));
    out.push(...items);
    if (items.length === 0) return out;
    after = items.at(-1)!.position;
  }
}

describe("the SQLite and PostgreSQL backends agree", () => {
  let server: PostgresServer;
  let dir: string;
  let sqlite: Store;
  let postgres: Store;
  let built: Built;

  before(async () => {
    server = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), "ledgerd-agree-"));
    sqlite = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
    postgres = await PostgresStore.open({ url: await server.newDatabase() });
    built = await fill([sqlite, postgres], 16);
  });

  after(async () => {
    await sqlite?.close();
    await postgres?.close();
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `read` of both backends, deep-equal. */
  async function same<T>(what: string, read: (store: Store) => Promise<T>): Promise<T> {
    const [a, b] = [await read(sqlite), await read(postgres)];
    assert.deepEqual(b, a, what);
    return a;
  }

  it("chain state, validators and every block with its contents, ids, head and proof nodes", async () => {
    const state = await same("chain state", (s) => s.getChainState());
    assert.equal(state.height, 60);
    for (let height = 0; height <= 62; height++) {
      await same(`block ${height}`, (s) => s.getBlock(height));
      await same(`contents ${height}`, (s) => s.getBlockContents(height));
      await same(`ids ${height}`, (s) => s.getBlockIds(height));
      await same(`head ${height}`, (s) => s.getBlockHead(height));
      await same(`transactions ${height}`, (s) => wholeOf(s).getBlockTransactions(height));
      await same(`validators ${height}`, (s) => s.getValidatorSet(height));
    }
    await same("latest validators", (s) => s.getValidators());
  });

  it("every transaction, its height, its asset's history (whole, by operation, last, paged) and its outputs", async () => {
    for (const tx of built.txs) {
      await same(`tx ${tx.id}`, (s) => s.getTransaction(tx.id));
      await same(`height of ${tx.id}`, (s) => s.getBlockHeightOfTransaction(tx.id));
      const refs = tx.outputs.map((o) => ref(tx, o.outputIndex));
      const outputs = await same(`outputs of ${tx.id}`, async (s) => [...(await s.getOutputs([...refs, ref(tx, 9)]))]);
      assert.equal(outputs.length, refs.length);
    }
    assert.deepEqual(await postgres.findTransactions(built.txs.map((t) => t.id)), new Set(built.txs.map((t) => t.id)));
    for (const asset of built.assets) {
      for (const operation of [undefined, "CREATE", "TRANSFER"] as const) {
        await same(`history of ${asset} ${String(operation)}`, (s) => wholeOf(s).getTransactionsByAsset(asset, operation === undefined ? {} : { operation }));
        await same(`last of ${asset} ${String(operation)}`, (s) => wholeOf(s).getTransactionsByAsset(asset, { lastOnly: true, ...(operation === undefined ? {} : { operation }) }));
        await same(`paged history of ${asset}`, (s) => walk((after) => s.streamAssetHistory(asset, operation, { limit: 2, ...(after === undefined ? {} : { after }) })));
      }
    }
  });

  it("every key's outputs (all, spent, unspent; whole and paged) and balances", async () => {
    for (const key of built.keys) {
      for (const spent of [undefined, true, false]) {
        const refs = await same(`outputs of ${key} ${String(spent)}`, (s) => wholeOf(s).getOutputsByPublicKey(key, spent));
        if (spent === undefined) assert.ok(refs.length > 0);
        await same(`paged outputs of ${key} ${String(spent)}`, (s) => walk((after) => s.streamOutputEntries(key, spent, { limit: 3, ...(after === undefined ? {} : { after }) })));
      }
      const whole = await same(`balances of ${key}`, (s) => all(s.streamBalances(key, undefined)));
      await same(`paged balances of ${key}`, (s) => walk((after) => s.streamBalances(key, undefined, { limit: 2, ...(after === undefined ? {} : { after }) })));
      for (const asset of [built.assets[0]!, ...whole.map((b) => b.assetId)]) {
        await same(`balance of ${key} in ${asset}`, (s) => all(s.streamBalances(key, asset)));
      }
    }
  });

  it("queries by field, whole and paged", async () => {
    const queries = [
      { kind: "assets" as const, filters: [{ path: ["kind"], value: "car" }] },
      { kind: "assets" as const, filters: [{ path: ["kind"], value: "bike" }, { path: ["serial"], value: 3 }] },
      { kind: "assets" as const, filters: [{ path: ["tags"], value: "ledger" }] },
      { kind: "metadata" as const, filters: [{ path: ["n"], value: 1 }] },
      { kind: "metadata" as const, filters: [{ path: ["n"], value: 1.0 }, { path: ["missing"], value: null }] },
    ];
    for (const { kind, filters } of queries) {
      await same(`fields ${JSON.stringify(filters)}`, (s) => all(s.streamFieldMatches(kind, filters)));
      await same(`paged fields ${JSON.stringify(filters)}`, (s) => walk((after) => s.streamFieldMatches(kind, filters, { limit: 4, ...(after === undefined ? {} : { after }) })));
    }
  });

  it("text searches find the same documents in the same order, whole, limited and paged", async () => {
    const queries = [...words, "run", "bicycl", "cafe", "CAFE", "brulee", "ecole", "zurich", "strasse", "generosity", "organ",
      '"crème brûlée"', '"the ledger"', "ledger -happy", 'bike -"running runs"', "o'neil", "pre-market", "don't", "car", "x".repeat(300),
      // Several words (ranked by the database, a count of each), one twice, and words with a phrase.
      "car bike", "ledger car ledger", "cafe zurich run", 'run "the ledger"'];
    let found = 0;
    for (const query of queries) {
      for (const kind of ["assets", "metadata"] as const) {
        const search = (s: Store) => (kind === "assets" ? wholeOf(s).searchAssets(query, 0) : wholeOf(s).searchMetadata(query, 0));
        found += (await same(`${kind} ${query}`, search)).length;
        await same(`${kind} ${query} limit 3`, (s) => (kind === "assets" ? wholeOf(s).searchAssets(query, 3) : wholeOf(s).searchMetadata(query, 3)));
        await same(`paged ${kind} ${query}`, (s) => walk((after) => s.streamSearchPage(kind, query, { limit: 5, ...(after === undefined ? {} : { after }) })));
      }
    }
    assert.ok(found > 100, `the searches found ${found} documents`);
  });

  it("legacy transactions, outputs and records", async () => {
    assert.ok(built.legacy.length > 0);
    for (const tx of built.legacy) {
      await same(`legacy ${tx.id}`, (s) => s.getLegacyTransaction(tx.id));
      await same(`legacy record ${tx.id}`, (s) => s.getLegacyRecord(tx.id));
      await same(`legacy outputs ${tx.id}`, async (s) => [...(await s.getLegacyOutputs([legacyRef(tx, 0), legacyRef(tx, 5)]))]);
    }
    for (let height = 1; height <= 60; height++) await same(`refusal ${height}`, (s) => s.getLegacyRecord(hex64(`refused-${height}`)));
  });
});
