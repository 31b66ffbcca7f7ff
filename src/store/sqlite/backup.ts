// Backups of a SQLite ledger (README.md, "Backups and checking the ledger"). `VACUUM INTO`
// copies the database as one read transaction sees it: a consistent height, taken beside a
// running node (WAL: the writer is not blocked, the copy never sees half a block) and compacted.
// SQLite's page-by-page backup API restarts whenever the writer commits, so under steady
// commits it may never finish; VACUUM INTO cannot be overtaken.
import Database from "better-sqlite3";
import { existsSync, rmSync } from "node:fs";

export interface BackupHead {
  readonly height: number;
  readonly appHash: string;
  readonly chainId: string | null;
}

/** Copies the ledger at `source` into the new file `dest`; the height the copy holds. */
export function backupDatabase(source: string, dest: string): BackupHead {
  if (existsSync(dest)) throw new Error(`${dest} exists: a backup never overwrites`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.prepare("VACUUM INTO ?").run(dest);
  } finally {
    db.close();
  }
  return readHead(dest);
}

/** The chain head a ledger file holds. */
export function readHead(path: string): BackupHead {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT height, app_hash AS appHash, chain_id AS chainId FROM chain_state WHERE id = 1").get() as BackupHead | undefined;
    if (row === undefined) throw new Error(`${path} is not a ledgerd database`);
    return row;
  } finally {
    db.close();
  }
}

/** Removes a database file and the WAL files SQLite may have left beside it. */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}
