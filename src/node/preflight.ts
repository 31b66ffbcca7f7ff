// What start-up checks before it writes anything: that the data directory (and the database's
// directory) can be made and written, that no other node holds it, and that the ports are free.
// A node that cannot start says why in one line at once, instead of failing after it created a
// database and a node key, or after a 5 s busy wait.
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, resolve } from "node:path";
import type { Logger } from "pino";
import { listenAddresses, type ListenAddress } from "../config/listenAddresses.js";
import { parseHostPort } from "../config/parseHostPort.js";
import type { Config } from "../config/schema.js";
import { DataDirLock, lockLedger, type LedgerLock } from "./dataDirLock.js";
import { StartRefused } from "./startRefused.js";

/** Folders created for a data directory at most: deeper is a typo (and bounds the walk up). */
const missingDirsMax = 64;

/**
 * Checks everything start-up can check, then creates the data directory and takes its lock.
 * Throws StartRefused; on success the caller releases the lock on shutdown.
 */
export async function preflight(config: Config): Promise<LedgerLock> {
  const dataDir = config.data_dir;
  // A PostgreSQL database is not in a folder: its lock is the writer's advisory lock.
  const databaseDir = config.database.backend === "sqlite" ? dirname(config.database.path) : config.data_dir;
  checkDirUsable(dataDir, "data_dir");
  if (databaseDir !== dataDir) checkDirUsable(databaseDir, "database.path");
  // A lock file from an earlier run: take it now, writing nothing new, so that a second node
  // is told who holds the directory rather than that its port is taken.
  const lock = DataDirLock.acquire(dataDir, true);
  try {
    await checkPortsFree(listenAddresses(config));
    makeDirs(dataDir, "data_dir");
    if (databaseDir !== dataDir) makeDirs(databaseDir, "database.path");
  } catch (error) {
    lock?.release();
    throw error;
  }
  return lockLedger(config, lock);
}

/**
 * Settings that run but give up durability, said loudly at every start so that no one runs
 * them unknowingly (`off` also needs its acknowledgement, settingsThatCannotWork.ts).
 */
export function warnUnsafeSettings(config: Config, logger: Logger): void {
  const synchronous = config.database.synchronous;
  if (synchronous === "full") return;
  const loss =
    synchronous === "off"
      ? "can be lost, and the database damaged, on power loss or an OS crash"
      : "can be lost on power loss or an OS crash (not on a crash of ledgerd)";
  const what = `database.synchronous is ${synchronous}`;
  const message = `UNSAFE: ${what}: transactions acknowledged as committed ${loss}`;
  logger.warn({ setting: "database.synchronous", value: synchronous }, message);
}



/**
 * `dir` exists as a writable directory, or can be made: its nearest existing ancestor is a
 * writable directory. Writes nothing.
 */
export function checkDirUsable(dir: string, key: string): void {
  let at = resolve(dir);
  for (let depth = 0; ; depth++) {
    const kind = kindOf(at);
    if (kind === "missing") {
      const parent = dirname(at);
      if (parent === at || depth >= missingDirsMax) throw refused(key, dir, "no folder above it exists");
      at = parent;
      continue;
    }
    if (kind !== "directory") throw refused(key, dir, `${at} is not a directory`);
    try {
      accessSync(at, constants.W_OK | constants.X_OK);
    } catch (error) {
      throw refused(key, dir, `${at} is not writable (${codeOf(error)})`);
    }
    return;
  }
}

/**
 * Creates `dir` and the folders above it that are missing, one at a time. Not
 * `mkdirSync(dir, { recursive: true })`: Node's loops forever, at full CPU, where a parent
 * exists but refuses a child with ENOENT, as `/proc` does (`data_dir=/proc/x`).
 */
export function makeDirs(dir: string, key: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  while (kindOf(at) === "missing" && missing.length < missingDirsMax) {
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      if (codeOf(error) === "EEXIST" && kindOf(folder) === "directory") continue;
      throw refused(key, dir, `cannot create ${folder} (${codeOf(error)})`);
    }
  }
  if (kindOf(resolve(dir)) !== "directory") throw refused(key, dir, "is not a directory");
}

function kindOf(path: string): "missing" | "directory" | "other" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch (error) {
    if (codeOf(error) === "ENOENT") return "missing";
    throw refused("path", path, `cannot be read (${codeOf(error)})`);
  }
}

/**
 * Binds each address and lets go, all at once (so two settings on one port clash here too).
 * A port taken between this check and the real listen still fails there, as before.
 */
export async function checkPortsFree(binds: readonly ListenAddress[]): Promise<void> {
  const servers: Server[] = [];
  try {
    for (const bind of binds) {
      const address = parseHostPort(bind.text);
      if (address === null || address.port === 0) continue;
      const server = createServer();
      await new Promise<void>((resolveListen, reject) => {
        server.once("error", reject);
        server.listen({ host: address.host, port: address.port, exclusive: true }, () => resolveListen());
      }).catch((error: unknown) => {
        const code = codeOf(error);
        const why = code === "EADDRINUSE" ? "is already in use" : `cannot be listened on (${code})`;
        throw new StartRefused(`${bind.key} ${bind.text} ${why}`, { cause: error });
      });
      servers.push(server);
    }
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done()))));
  }
}

function refused(key: string, dir: string, why: string): StartRefused {
  return new StartRefused(`${key} ${dir}: ${why}`);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : String(error);
}
