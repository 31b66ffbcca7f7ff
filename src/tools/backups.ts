// `ledgerd backup DEST` and `ledgerd restore SRC` (README "Backups"). A backup is a folder: the
// ledger copied at one height (store/sqlite/backup.ts) and `backup.json` saying which. A restore
// copies it into a data folder that has no ledger yet, and runs verify-chain on the copy before
// putting it where the node reads it: a node never starts on a ledger that does not verify.
// Keys are not in a backup (node_key.json is a secret kept apart).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "../config/schema.js";
import { verifyChain, type ChainReport } from "../ledger/verifyChain.js";
import { backupDatabase, readHead, removeDatabaseFiles, type BackupHead } from "../store/sqlite/backup.js";
import { SqliteStore } from "../store/sqlite/sqliteStore.js";
import { lockLedger } from "../node/dataDirLock.js";
import { packageInfo } from "../node/packageInfo.js";
import { makeDirs } from "../node/preflight.js";
import { failpoint } from "../failpoints.js";

const manifestName = "backup.json";
const databaseName = "ledgerd.sqlite";

export interface BackupManifest extends BackupHead {
  readonly format: "ledgerd-backup";
  readonly version: 1;
  readonly made_at: string;
  readonly ledgerd: string;
}

/** backup and restore are SQLite's; PostgreSQL has its own tools (docs/postgres.md). */
function refuseOnPostgres(config: Config, command: string): void {
  if (config.database.backend === "postgres") {
    throw new Error(`${command} copies a SQLite ledger; on PostgreSQL use pg_dump and pg_restore (docs/postgres.md)`);
  }
}

/** Backs up the node's ledger into the new or empty folder `dest`. */
export function backupLedger(config: Config, dest: string): BackupManifest {
  refuseOnPostgres(config, "backup");
  if (!existsSync(config.database.path)) throw new Error(`no ledger at ${config.database.path}`);
  if (existsSync(dest) && readdirSync(dest).length > 0) throw new Error(`${dest} is not empty: a backup never overwrites`);
  mkdirSync(dest, { recursive: true });
  const head = backupDatabase(config.database.path, join(dest, databaseName));
  failpoint("backup.mid");
  const manifest: BackupManifest = {
    format: "ledgerd-backup",
    version: 1,
    ...head,
    made_at: new Date().toISOString(),
    ledgerd: packageInfo().version,
  };
  // Written last, and whole or not at all (a rename): a backup cut short has none, and restore
  // refuses it (readManifest).
  const staged = join(dest, `${manifestName}.partial`);
  writeFileSync(staged, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(staged, join(dest, manifestName));
  return manifest;
}

/**
 * Restores the backup folder `src` as the node's ledger, once it verifies. Holds the data
 * folder's lock from its first look at the folder to the rename: no node starts on it meanwhile.
 */
export async function restoreLedger(config: Config, src: string, onProgress?: (height: number, of: number) => void): Promise<ChainReport> {
  refuseOnPostgres(config, "restore");
  makeDirs(config.data_dir, "data_dir");
  const lock = lockLedger(config);
  try {
    return await restoreLocked(config, src, onProgress);
  } finally {
    lock.release();
  }
}

async function restoreLocked(config: Config, src: string, onProgress?: (height: number, of: number) => void): Promise<ChainReport> {
  const manifest = readManifest(src);
  const target = config.database.path;
  if (existsSync(target)) throw new Error(`${target} exists: restore into a data folder without a ledger`);
  const staging = join(config.data_dir, `${basename(target)}.restoring`);
  removeDatabaseFiles(staging);
  copyFileSync(join(src, databaseName), staging);
  try {
    const head = readHead(staging);
    if (head.height !== manifest.height || head.appHash !== manifest.appHash) {
      throw new Error(`the backup's ledger is at height ${head.height}, its backup.json says ${String(manifest.height)}`);
    }
    const store = SqliteStore.open({ path: staging });
    let report: ChainReport;
    try {
      report = await verifyChain(store, { onProgress: (height, of) => onProgress?.(height, of) });
    } finally {
      await store.close();
    }
    if (report.fault !== null) throw new Error(`the backup does not verify: height ${report.fault.height}: ${report.fault.reason}`);
    renameSync(staging, target);
    return report;
  } catch (error) {
    removeDatabaseFiles(staging);
    throw error;
  }
}

/** The backup's manifest; a folder without one is a backup that did not finish, or none. */
function readManifest(src: string): Partial<BackupManifest> {
  const path = join(src, manifestName);
  if (!existsSync(path)) {
    const cutShort = existsSync(join(src, databaseName));
    throw new Error(`${src} holds no ledgerd backup (no ${manifestName}${cutShort ? ": a backup that did not finish" : ""})`);
  }
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Partial<BackupManifest>;
  if (manifest.format !== "ledgerd-backup" || manifest.version !== 1) throw new Error(`${src} holds no ledgerd backup (${manifestName})`);
  return manifest;
}
