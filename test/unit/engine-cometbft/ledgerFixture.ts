// A real ledger on a temporary SQLite file, for the CometBFT engine's unit tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import type { LedgerOptions } from "../../../src/ledger/options.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";

export interface LedgerFixture {
  readonly dir: string;
  readonly store: SqliteStore;
  readonly pool: PreparePool;
  readonly ledger: LedgerApp;
  close(): Promise<void>;
}

export async function openLedger(options: Partial<LedgerOptions> = {}): Promise<LedgerFixture> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-cometbft-"));
  const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
  const ledger = await LedgerApp.open(options, { store, pool });
  return {
    dir,
    store,
    pool,
    ledger,
    async close() {
      await pool.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
