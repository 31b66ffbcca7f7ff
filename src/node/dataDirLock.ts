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
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { StartRefused } from "./startRefused.js";

export const lockFileName = "ledgerd.lock";
export const pidFileName = "ledgerd.pid";

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
    const path = join(dataDir, lockFileName);
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
      if ((error as { code?: string }).code === "SQLITE_BUSY") throw heldBy(dataDir, path, error);
      const what = `cannot lock the data directory ${dataDir}`;
      throw new StartRefused(`${what}: ${reasonOf(error)}`, { cause: error });
    }
    const pidPath = join(dataDir, pidFileName);
    try {
      writeFileSync(pidPath, `${process.pid}\n`);
    } catch (error) {
      db.close();
      const what = `cannot write to the data directory ${dataDir}`;
      throw new StartRefused(`${what}: ${reasonOf(error)}`, { cause: error });
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

function heldBy(dataDir: string, path: string, cause: unknown): StartRefused {
  let pid = "";
  try {
    pid = readFileSync(join(dataDir, pidFileName), "utf8").trim();
  } catch {
    // Not written yet by a holder that is starting: the refusal just cannot name it.
  }
  const holder = /^[0-9]+$/.test(pid) ? `ledgerd process ${pid}` : "another ledgerd process";
  const message = `the data directory ${dataDir} is in use by ${holder} (it holds ${path})`;
  return new StartRefused(message, { cause });
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}
