// A real in-process stack for tests: a SQLite file store (or, given a URL, a PostgreSQL one),
// prepare pool, ledger, solo engine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SoloEngine } from "../../src/engine/solo/soloEngine.js";
import type { SoloEngineOptions } from "../../src/engine/solo/options.js";
import type { Clock } from "../../src/clock/clock.js";
import { LedgerApp } from "../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import { PostgresStore } from "../../src/store/postgres/postgresStore.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import type { SqliteStoreOptions } from "../../src/store/sqlite/options.js";
import type { Store } from "../../src/store/store.js";

export interface SoloStack {
  readonly dir: string;
  readonly path: string;
  readonly store: Store;
  readonly pool: PreparePool;
  readonly ledger: LedgerApp;
  readonly engine: SoloEngine;
  close(): Promise<void>;
}

export const testValidator = { publicKey: "cd".repeat(32), power: 10 };

export async function startSoloStack(
  options: Partial<SoloEngineOptions> = {},
  at?: { dir?: string; postgresUrl?: string; onFatal?: (error: unknown) => void; clock?: Clock; sqlite?: Partial<SqliteStoreOptions> },
  threads = 0,
): Promise<SoloStack> {
  const dir = at?.dir ?? mkdtempSync(join(tmpdir(), "ledgerd-solo-"));
  const path = join(dir, "ledger.sqlite");
  const store = at?.postgresUrl === undefined ? SqliteStore.open({ ...at?.sqlite, path }) : await PostgresStore.open({ url: at.postgresUrl });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads });
  const ledger = await LedgerApp.open({}, { store, pool });
  const engine = await SoloEngine.start({ blockIntervalMs: 5, ...options }, {
    ledger,
    validator: testValidator,
    ...(at?.onFatal === undefined ? {} : { onFatal: at.onFatal }),
    ...(at?.clock === undefined ? {} : { clock: at.clock }),
  });
  return {
    dir,
    path,
    store,
    pool,
    ledger,
    engine,
    async close() {
      await engine.stop();
      await pool.close();
      await store.close();
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
