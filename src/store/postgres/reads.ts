// How the PostgreSQL store's readers reach the database: one statement on the read pool, or
// several in one snapshot; a connection failure becomes StoreUnavailable (connection.ts).
import type pg from "pg";
import { isUnavailable, reachable } from "./connection.js";

/**
 * A lookup value as sent: PostgreSQL's text cannot hold NUL, so a string with one is sent with
 * each NUL as U+FFFE, a noncharacter no stored key holds (ids, asset ids and public keys are hex
 * or base58): it finds nothing, as on SQLite, instead of failing the statement.
 */
export function lookupValue(value: unknown): unknown {
  if (typeof value === "string") return value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFE") : value;
  return Array.isArray(value) ? value.map(lookupValue) : value;
}

/** Rows one batch of a long answer reads, as in the SQLite backend. */
export const batchRowsMax = 500;

export class Reads {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** One statement: its rows. */
  async rows<R extends pg.QueryResultRow>(sql: string, values: readonly unknown[] = []): Promise<R[]> {
    return reachable(async () => (await this.#pool.query<R>(sql, values.map(lookupValue))).rows);
  }

  /** The last seq committed: the snapshot a long answer is read as of. */
  async lastSeq(): Promise<number> {
    const rows = await this.rows<{ seq: number | null }>("SELECT max(seq) AS seq FROM transactions");
    return rows[0]!.seq ?? 0;
  }

  /** Runs reads on one connection in one snapshot (REPEATABLE READ, read only). */
  async snapshot<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return reachable(async () => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        broken = error instanceof Error ? error : new Error(String(error));
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release(broken !== undefined && isUnavailable(broken) ? broken : undefined);
      }
    });
  }
}
