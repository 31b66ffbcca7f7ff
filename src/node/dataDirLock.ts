// One node per data directory. Two nodes on one database would each believe they extend the
// chain; SQLite would refuse the second only at its first write, after a 5 s busy wait, with a
// raw "database is locked". So the node holds a lock from the start and a second one is
// refused at once, naming the holder.
//
// The lock is an exclusive SQLite lock (POSIX fcntl on the file `ledgerd.lock`, held by a
// connection in EXCLUSIVE locking mode), not a pid file: the kernel drops it when its process
// dies however it dies, so there is no stale lock to detect and no pid reuse to be fooled by,
// and SQLite refuses a second connection in the same process too. The holder's pid is written
// beside it (`ledgerd.pid`) only to be named in the refusal.
//
// A database outside the data directory (`database.path` elsewhere) gets a lock of its own beside
// it (`<database>.lock`): the node opens its SQLite file for readers too (backup, verify-chain,
// HTTP workers), so SQLite no longer refuses a second writer at open, and two data directories
// naming one database must not both write it.
//
// `import` and `restore` build a ledger in the folder and rename it into place at the end: they
// hold the same locks for their whole run (lockLedger), so a node is refused a folder they are
// filling and they are refused a folder a node runs on.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Config } from "../config/schema.js";
import { StartRefused } from "./startRefused.js";

export const lockFileName = "ledgerd.lock";
export const pidFileName = "ledgerd.pid";

/** What a lock guards: the lock file, the pid file beside it, and how a refusal names it. */
interface LockPlace {
  readonly path: string;
  readonly pidPath: string;
  readonly what: string;
}

export class DataDirLock {
  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
    private readonly pidPath: string,
  ) {}

  /**
   * Takes the lock of `dataDir`, or throws StartRefused naming the process that holds it.
   * With `existingOnly`, writes nothing: null when there is no lock file yet.
   */
  static acquire(dataDir: string, existingOnly = false): DataDirLock | null {
    const place = { path: join(dataDir, lockFileName), pidPath: join(dataDir, pidFileName), what: `the data directory ${dataDir}` };
    return DataDirLock.acquireAt(place, existingOnly);
  }

  /** Takes the lock of a database file outside the data directory (`<file>.lock`). */
  static acquireDatabase(databasePath: string): DataDirLock {
    const place = { path: `${databasePath}.lock`, pidPath: `${databasePath}.pid`, what: `the database ${databasePath}` };
    return DataDirLock.acquireAt(place, false)!;
  }

  private static acquireAt(place: LockPlace, existingOnly: boolean): DataDirLock | null {
    const { path, pidPath, what: guarded } = place;
    if (existingOnly && !existsSync(path)) return null;
    let db: Database.Database;
    try {
      // timeout 0: a held lock is an answer, not something to wait for.
      db = new Database(path, { timeout: 0 });
    } catch (error) {
      throw new StartRefused(`cannot create the lock file ${path}: ${reasonOf(error)}`, { cause: error });
    }
    try {
      db.pragma("locking_mode = EXCLUSIVE");
      db.pragma("journal_mode = MEMORY");
      // The first write in EXCLUSIVE locking mode takes the lock and keeps it until close.
      db.exec("BEGIN EXCLUSIVE");
      db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)");
      db.exec("DELETE FROM holder");
      db.prepare("INSERT INTO holder (pid) VALUES (?)").run(process.pid);
      db.exec("COMMIT");
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code === "SQLITE_BUSY") throw heldBy(place, error);
      throw new StartRefused(`cannot lock ${guarded}: ${reasonOf(error)}`, { cause: error });
    }
    try {
      writeFileSync(pidPath, `${process.pid}\n`);
    } catch (error) {
      db.close();
      throw new StartRefused(`cannot write beside ${guarded}: ${reasonOf(error)}`, { cause: error });
    }
    return new DataDirLock(db, path, pidPath);
  }

  /** Lets another node start on the directory. */
  release(): void {
    if (!this.db.open) return;
    rmSync(this.pidPath, { force: true });
    this.db.close();
  }
}

/** What lockLedger holds: released together. */
export interface LedgerLock {
  release(): void;
}

/**
 * Takes the data directory's lock (or uses `held`, already taken) and, for a SQLite database
 * outside the directory, the database's own lock; throws StartRefused naming the holder. The
 * data directory must exist.
 */
export function lockLedger(config: Config, held: DataDirLock | null = null): LedgerLock {
  const lock = held ?? DataDirLock.acquire(config.data_dir)!;
  if (config.database.backend !== "sqlite" || isInside(config.database.path, config.data_dir)) return lock;
  try {
    const database = DataDirLock.acquireDatabase(config.database.path);
    return { release: () => [database, lock].forEach((each) => each.release()) };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Whether `path` is inside the folder `dir` (then the folder's lock covers it). */
function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

function heldBy(place: LockPlace, cause: unknown): StartRefused {
  let pid = "";
  try {
    pid = readFileSync(place.pidPath, "utf8").trim();
  } catch {
    // Not written yet by a holder that is starting: the refusal just cannot name it.
  }
  const holder = /^[0-9]+$/.test(pid) ? `ledgerd process ${pid}` : "another ledgerd process";
  const message = `${place.what} is in use by ${holder} (it holds ${place.path})`;
  return new StartRefused(message, { cause });
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}
