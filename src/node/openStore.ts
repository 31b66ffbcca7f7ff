// Opens the store `database.backend` names, for the node's writer or a reader (an HTTP worker,
// an HTTP-only process, a tool beside a running node).
import { existsSync } from "node:fs";
import { moduleOptions, type ModuleOptions } from "../config/moduleOptions.js";
import type { Config } from "../config/schema.js";
import { SqliteStore } from "../store/sqlite/sqliteStore.js";
import { openThreadedSqliteStore } from "../store/sqlite/threadedStore.js";
import type { Store } from "../store/store.js";
import type { Logger } from "pino";

/** `logger`: where the store reports what fails outside a call (PostgreSQL's background vacuum). */
export async function openStore(options: ModuleOptions, role: "writer" | "reader", logger?: Pick<Logger, "warn">): Promise<Store> {
  if (options.storeBackend === "postgres") {
    // Imported here, not at the top: PostgreSQL's driver costs ~0.15 s of CPU to load, in every
    // process and HTTP worker thread of a node, and most nodes keep their ledger in SQLite.
    const { PostgresStore } = await import("../store/postgres/postgresStore.js");
    return PostgresStore.open({ ...options.postgresStore, access: role }, logger === undefined ? {} : { onVacuumError: vacuumWarning(logger) });
  }
  if (role === "reader") return SqliteStore.open({ ...options.sqliteStore, access: "reader" });
  // The ledger's checks run on the writer's store (its main-thread reader, with the writer
  // thread): only it keeps the filter of committed ids (options.idFilter).
  const writer = { ...options.sqliteStore, idFilter: true };
  return options.sqliteWriterThread ? openThreadedSqliteStore(writer) : SqliteStore.open(writer);
}

/** A failed background vacuum, at warn: the reads it would have sped up go on, slower (docs/postgres.md, Tuning). */
function vacuumWarning(logger: Pick<Logger, "warn">): (error: Error) => void {
  const what = "PostgreSQL's VACUUM (ANALYZE) after a bulk load failed: autovacuum, or the next bulk load's end, makes up for it";
  return (error) => logger.warn({ err: error }, what);
}

/** Where the database is, for logs and messages: the file, or the URL without its password. */
export function databaseName(options: ModuleOptions): string {
  if (options.storeBackend === "sqlite") return options.sqliteStore.path;
  const url = options.postgresStore.url;
  if (url === "") return "postgres (PG* environment variables)";
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres (database.url)";
  }
}

/** A reader of the node's ledger for a tool (verify-chain, export); refuses when there is none. */
export async function openLedgerReader(config: Config): Promise<Store> {
  if (config.database.backend === "sqlite" && !existsSync(config.database.path)) throw new Error(`no ledger at ${config.database.path}`);
  return openStore(moduleOptions(config), "reader");
}
