// Crash safety (issues #3 and #16): a real child process commits transactions under load and is
// killed with SIGKILL at random moments, 20 times on SQLite and 10 on PostgreSQL; on PostgreSQL
// the database server itself is also stopped as a crash would stop it, and started again, under
// load. After every restart: each transaction acknowledged as committed is present, no block is
// partial, heights are contiguous, the app-hash chain recomputes, and no output is spent twice.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { V1Chain } from "../helpers/appHashV1.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { PostgresStore } from "../../src/store/postgres/postgresStore.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import type { Store } from "../../src/store/store.js";
import { Random } from "../helpers/random.js";
import { waitFor } from "../helpers/waitFor.js";
import { wholeOf } from "../helpers/wholeAnswers.js";
import { runnableModule } from "../../src/workerThread.js";


/** Commits a round acknowledges before its kill is timed, so that every round kills a node under load. */
const acksBeforeKill = 6;

interface Round {
  readonly acked: string[];
  readonly readyHeight: number;
}

/**
 * Runs the child until it is ready, lets `during` act on it, waits for `acksBeforeKill` commits,
 * SIGKILLs it `killAfterMs` later, and returns what it acknowledged.
 */
/** Acts on a running child under load: its process, its acknowledged count, its stderr so far. */
type Disturbance = (proc: ChildProcess, acked: () => number, said: () => string) => Promise<void>;

function runAndKill(args: readonly string[], killAfterMs: number, during?: Disturbance): Promise<Round> {
  return new Promise((resolve, reject) => {
    // The child runs from a bundle of its sources: under tsx each of the 30 starts cost a second more.
    const proc = spawn(process.execPath, [runnableModule(import.meta.url, "./crashChild"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let readyHeight = -1;
    const ackedSoFar = () => (out.match(/^ACK /gm) ?? []).length;
    const ended = (): string | null => (proc.exitCode !== null || proc.signalCode !== null ? "the child ended" : null);
    const underLoad = async (): Promise<void> => {
      await during?.(proc, ackedSoFar, () => err);
      await waitFor(`${acksBeforeKill} acknowledged commits`, () => ackedSoFar() >= acksBeforeKill, { timeoutMs: 60_000, abortIf: ended });
    };
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (readyHeight < 0) {
        const ready = /READY (\d+)\n/.exec(out);
        if (ready !== null) {
          readyHeight = Number(ready[1]);
          void underLoad().then(
            // The random moment of the kill shapes the fault only: no assertion depends on it.
            () => setTimeout(() => proc.kill("SIGKILL"), killAfterMs),
            (error: unknown) => {
              proc.kill("SIGKILL");
              // What the child said is what tells a failed disturbance apart (seen once, not
              // reproduced: the node did not resume after PostgreSQL returned).
              if (error instanceof Error) {
                const said = `\nthe child's stderr, its end:\n${err.slice(-3_000)}`;
                // The reporter prints the stack, which was written with the message before this.
                error.message += said;
                error.stack = `${error.stack ?? ""}${said}`;
              }
              reject(error);
            },
          );
        }
      }
    });
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    proc.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") return reject(new Error(`child exited ${code} ${signal}: ${err}`));
      // Only whole lines count: a line cut by the kill was never fully acknowledged.
      const acked = [...out.matchAll(/^ACK ([0-9a-f]{64})$/gm)].map((m) => m[1]!);
      resolve({ acked, readyHeight });
    });
  });
}

/** Every acknowledged transaction present, whole blocks, contiguous heights, app hashes recomputed; the count in blocks. */
async function checkLedger(store: Store, acked: readonly string[]): Promise<number> {
  let inBlocks = 0;
  for (const id of acked) assert.notEqual(await store.getTransaction(id), null, `acknowledged ${id} lost`);
  const { height, appHash } = await store.getChainState();
  let hash = "";
  // The app hash rule of a chain the solo engine began (docs/proofs.md).
  const chain = new V1Chain();
  const spent = new Set<string>();
  for (let h = 1; h <= height; h++) {
    const block = await store.getBlock(h);
    assert.ok(block !== null, `block ${h} missing: heights are not contiguous`);
    for (const id of block.txIds) {
      assert.equal(await store.getBlockHeightOfTransaction(id), h, `block ${h} is partial`);
    }
    const txs = (await wholeOf(store).getBlockTransactions(h)) ?? [];
    assert.equal(txs.length, block.txIds.length, `block ${h} is partial`);
    for (const json of txs) {
      for (const input of JSON.parse(json).inputs as { fulfills: { transaction_id: string; output_index: number } | null }[]) {
        if (input.fulfills === null) continue;
        const key = `${input.fulfills.transaction_id}:${input.fulfills.output_index}`;
        assert.ok(!spent.has(key), `output ${key} spent twice`);
        spent.add(key);
      }
    }
    inBlocks += block.txIds.length;
    hash = chain.next(h, block.txIds);
    assert.equal(block.appHash, hash, `app hash of block ${h} does not recompute`);
  }
  assert.equal(appHash, hash);
  assert.equal(await store.getBlock(height + 1), null);
  return inBlocks;
}

async function crashRounds(args: readonly string[], kills: number, seed: number, disturb?: (round: number) => Disturbance | undefined): Promise<string[]> {
  const random = new Random(seed);
  const acked: string[] = [];
  let lastHeight = 0;
  for (let round = 0; round < kills; round++) {
    const result = await runAndKill(args, 300 + random.int(700), disturb?.(round));
    assert.ok(result.readyHeight >= lastHeight, "a restart resumes at or after the last height");
    acked.push(...result.acked);
    lastHeight = result.readyHeight;
  }
  assert.ok(acked.length > kills * 5, `too little load: ${acked.length} acknowledged`);
  return acked;
}

describe("crash safety under SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-crash-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite: keeps every acknowledged commit across 20 kills", async () => {
    const acked = await crashRounds([dir], 20, 20261121);
    const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
    let inBlocks: number;
    try {
      inBlocks = await checkLedger(store, acked);
    } finally {
      await store.close();
    }
    // Nothing outside a block: every stored transaction belongs to one of the blocks. (Read
    // after the store is closed: its writing connection holds the file exclusively.)
    const db = new Database(join(dir, "ledger.sqlite"), { readonly: true });
    const row = db.prepare("SELECT count(*) AS n FROM transactions").get() as { n: number };
    db.close();
    assert.equal(row.n, inBlocks, "transactions stored outside any block");
  });
});

describe("crash safety on PostgreSQL: the node SIGKILLed, the database stopped and restarted", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-crash-pg-"));
  let server: PostgresServer | undefined;
  after(() => {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every acknowledged commit across 10 kills and 3 database crashes, and resumes by itself", async () => {
    server = await startPostgres();
    const running = server;
    const url = await running.newDatabase();
    // Rounds 2, 5 and 8: PostgreSQL crashes under load and stays down until the node has refused
    // a client for it (the child's reader: its writing clients may all be waiting on the block
    // the engine holds), then returns; the node must go on acknowledging commits before it is killed.
    const crashDatabase: Disturbance = async (proc, acked, said) => {
      const ended = (): string | null => (proc.exitCode !== null || proc.signalCode !== null ? "the child ended" : null);
      await waitFor("commits before PostgreSQL crashes", () => acked() >= 3, { timeoutMs: 60_000, abortIf: ended });
      const saidBefore = said().length;
      running.halt();
      await waitFor("the node to refuse a client while PostgreSQL is down", () => said().slice(saidBefore).includes("refused: StoreUnavailable"), { timeoutMs: 60_000, abortIf: ended });
      running.resume();
      const before = acked();
      await waitFor("the node to resume committing after PostgreSQL returned", () => acked() > before, { timeoutMs: 60_000, abortIf: ended });
    };
    const acked = await crashRounds([dir, url], 10, 20261125, (round) => (round % 3 === 2 ? crashDatabase : undefined));
    const store = await PostgresStore.open({ url });
    let inBlocks: number;
    try {
      inBlocks = await checkLedger(store, acked);
    } finally {
      await store.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { n } = (await client.query<{ n: string }>("SELECT count(*) AS n FROM transactions")).rows[0]!;
      assert.equal(Number(n), inBlocks, "transactions stored outside any block");
    } finally {
      await client.end();
    }
  });
});
