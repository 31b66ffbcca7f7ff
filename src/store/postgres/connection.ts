// Connections to PostgreSQL: a read pool and the writer's own client, with bigints read as
// numbers (seqs and heights stay far below 2^53) and connection failures told apart from the
// rest, so that a database that is down answers 503 (StoreUnavailable) instead of a 500.

import pg from "pg";
import { LedgerError } from "../../errors/ledgerError.js";
import type { PostgresStoreOptions } from "./options.js";

const int8Oid = 20;

const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === int8Oid ? (text: string) => Number(text) : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/** What every connection of a store is opened with. */
export function connectionConfig(options: PostgresStoreOptions): pg.ClientConfig {
  return {
    ...(options.url === "" ? {} : { connectionString: options.url }),
    application_name: "ledgerd",
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.statementTimeoutMs > 0 ? { statement_timeout: options.statementTimeoutMs } : {}),
    types,
  };
}

/** The read pool. An idle connection that breaks is dropped; the next read opens another. */
export function openPool(options: PostgresStoreOptions): pg.Pool {
  const pool = new pg.Pool({ ...connectionConfig(options), max: options.poolSize });
  // Without a listener a broken idle connection would be an uncaught error.
  pool.on("error", () => undefined);
  return pool;
}

// SQLSTATE classes and codes of a server that is gone or not yet back.
const unavailableCodes = new Set(["57P01", "57P02", "57P03", "53300", "53400"]);
// ENOENT: a Unix-domain socket's file is gone while its server is stopped.
const unavailableErrnos = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN", "ENOENT"]);

/** True when the error says the database cannot be reached (as opposed to a bad statement). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || unavailableCodes.has(code) || unavailableErrnos.has(code))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client was closed/i.test(error.message);
}

/** The 503 a read or write fails with while the database cannot be reached. */
export function storeUnavailable(error: unknown): LedgerError {
  const reason = error instanceof Error ? error.message : String(error);
  return new LedgerError("StoreUnavailable", `PostgreSQL cannot be reached (${reason}); the node resumes when it returns`, { cause: error });
}

// PostgreSQL's query_canceled: `database.statement_timeout_ms` ran out (a read held up by a lock
// an operator's session holds, or one too large for the limit), or an operator cancelled it.
const statementCancelled = "57014";

/** True when the server cancelled the statement (its time limit, or an operator). */
export function isCancelled(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === statementCancelled;
}

/** The 503 a read fails with when the server cancelled it: the reader may try again. */
export function storeTimeout(error: Error): LedgerError {
  return new LedgerError("StoreTimeout", `The database cancelled the read (${error.message}); try again, or ask for less`, { cause: error });
}

/** Runs `work`, turning a connection failure into StoreUnavailable, a cancelled statement into StoreTimeout; other errors pass. */
export async function reachable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnavailable(error)) throw storeUnavailable(error);
    if (isCancelled(error)) throw storeTimeout(error as Error);
    throw error;
  }
}
