// What each command does once commander has parsed it. The only console output of ledgerd is
// in src/cli/ (STYLE rule 15: no console.* outside it): `keys` and `config` print JSON,
// `init` says what it wrote; a running node speaks through its logger.
//
// A command's own work is imported when it runs (`await import`), not here: a node's start brings
// Fastify, the engines and the stores, and `ledgerd keys` or `election show` need none of them
// (each command loaded them all before: `ledgerd keys` took 0.64 to 0.76 s of CPU, now 0.30 s).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { ConfigError } from "../config/configError.js";
import { configFileName, loadConfig, type ConfigSources } from "../config/loadConfig.js";
import type { Config } from "../config/schema.js";
import type { CommitmentVersion } from "../proofs/commitment.js";
import type { BigchaindbImportOptions } from "../tools/bigchaindbImportOptions.js";
import { moduleOptions } from "../config/moduleOptions.js";
import { createNodeKey, keyFileOfValidator, newKeyFile, readNodeKey } from "../node/nodeKey.js";
import { makeDirs } from "../node/preflight.js";
import { StartRefused } from "../node/startRefused.js";
import { withProgress } from "./progress.js";

/** On top of the engine's commit timeout, how long a shutdown may take before the process quits. */
export const shutdownMarginMs = 10_000;

/** The settings from the real environment, working directory and home folder. */
export function loadSettings(flags: ConfigSources["flags"]): Config {
  return loadConfig({ env: process.env, flags });
}

/** `ledgerd keys`: a new Ed25519 keypair in the drivers' base58. */
export function runKeys(): void {
  const { public_key, private_key } = newKeyFile();
  console.log(JSON.stringify({ public_key, private_key }, null, 2));
}

/** `ledgerd config`: the effective settings, after file, env and flags. */
export function runConfig(flags: ConfigSources["flags"]): void {
  console.log(JSON.stringify(loadSettings(flags), null, 2));
}

/**
 * `ledgerd init`: writes `<data_dir>/config.json` (every effective setting, so it is a complete
 * template to edit) and the node key: random, or a CometBFT validator's key
 * (`validatorKeyPath`, a `priv_validator_key.json`). An existing config is only replaced with
 * `--force`; an existing key never is (it is the chain's validator).
 */
export function runInit(flags: ConfigSources["flags"], force: boolean, validatorKeyPath?: string): void {
  const config = loadSettings(flags);
  const wanted =
    validatorKeyPath === undefined ? undefined : keyFileOfValidator(readFileSync(validatorKeyPath, "utf8"));
  const existing = readNodeKey(config.data_dir);
  if (wanted !== undefined && existing !== null && existing.publicKey !== wanted.public_key) {
    const reason = `holds another key (${existing.publicKey}) than ${validatorKeyPath}; a node key is never replaced`;
    throw new ConfigError([{ key: "node key", reason, source: `file ${existing.path}` }]);
  }
  const configPath = join(config.data_dir, configFileName);
  if (existsSync(configPath) && !force) {
    const reason = "already exists; --force replaces it";
    throw new ConfigError([{ key: "config file", reason, source: `file ${configPath}` }]);
  }
  makeDirs(config.data_dir, "data_dir");
  writeFileSync(configPath, `${JSON.stringify(fileSettings(config), null, 2)}\n`);
  console.log(`wrote ${configPath}`);
  const created = existing === null ? createNodeKey(config.data_dir, undefined, wanted) : null;
  const key = created ?? readNodeKey(config.data_dir);
  if (key === null) throw new Error(`node key in ${config.data_dir} vanished`);
  console.log(`${created === null ? "kept" : "wrote"} ${key.path} (public key ${key.publicKey})`);
}

/**
 * What `init` writes: the settings without `data_dir` (the file lives in it), with the database
 * path relative to it when inside, so the folder can be moved as a whole.
 */
function fileSettings(config: Config): Omit<Config, "data_dir"> {
  const { data_dir: dataDir, ...rest } = config;
  const inside = relative(dataDir, config.database.path);
  const path = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : config.database.path;
  return { ...rest, database: { ...rest.database, path } };
}

/**
 * `ledgerd start`: runs the node until SIGTERM or SIGINT, then shuts down gracefully and exits 0.
 * A second signal, or a shutdown that overruns, exits 1 at once.
 */
export async function runStart(flags: ConfigSources["flags"]): Promise<void> {
  const config = loadSettings(flags);
  const [{ createLogger }, { startNode }] = await Promise.all([import("../node/logger.js"), import("../node/startNode.js")]);
  const logger = createLogger(config.log.level);
  // A bug that escaped every handler: one structured line, then out (the state is unknown).
  process.on("uncaughtException", (error, origin) => {
    logger.fatal({ err: error, origin }, "uncaught error; the node stops");
    process.exit(1);
  });
  let node;
  try {
    node = await startNode(config, { logger });
  } catch (error) {
    // The machine's refusal (a taken port, a data directory in use) is one line, no stack.
    if (error instanceof StartRefused) logger.fatal(`ledgerd failed to start: ${error.message}`);
    else logger.fatal({ err: error }, "ledgerd failed to start");
    process.exitCode = 1;
    throw new StartFailed(error);
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting without finishing the shutdown");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "signal received; shutting down");
    const timeoutMs = config.engine.commit_timeout_ms + shutdownMarginMs;
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, "shutdown took too long; exiting");
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    node.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

/**
 * `ledgerd serve-reads [--writer URL]`: the API's reads from a store this process only reads
 * (src/node/readServer.ts), until SIGTERM or SIGINT.
 */
export async function runServeReads(flags: ConfigSources["flags"], writerUrl: string): Promise<void> {
  const config = loadSettings(flags);
  const [{ createLogger }, { startReadServer }, { databaseName }] = await Promise.all([
    import("../node/logger.js"),
    import("../node/readServer.js"),
    import("../node/openStore.js"),
  ]);
  const logger = createLogger(config.log.level);
  const server = await startReadServer(config, { writerUrl, logger });
  logger.info({ http: `${server.address.host}:${server.address.port}`, writer: writerUrl || null, database: databaseName(moduleOptions(config)) }, "ledgerd serving reads");
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** A start failure already logged by the node's logger: main.ts only sets the exit code. */
export class StartFailed extends Error {
  override readonly name = "StartFailed";
  constructor(cause: unknown) {
    super("ledgerd failed to start", { cause });
  }
}

/**
 * `ledgerd doctor`: one line per check of the node's set-up (doctor.ts), what to do after each
 * failure; exit code 1 when any failed.
 */
export async function runDoctorCommand(flags: ConfigSources["flags"]): Promise<void> {
  const { runDoctor } = await import("../tools/doctor.js");
  const checks = await runDoctor(loadSettings(flags));
  for (const check of checks) {
    console.log(`${check.ok ? "ok  " : "FAIL"} ${check.name}: ${check.detail}${check.fix === undefined ? "" : `\n     -> ${check.fix}`}`);
  }
  if (checks.some((check) => !check.ok)) process.exitCode = 1;
}

/**
 * `ledgerd verify-chain`: re-derives every stored block, and every row derived from its
 * transactions, from the transactions (src/ledger/verifyChain.ts, docs/verify-chain.md) and
 * prints the first height that disagrees; exit code 1 then. Reads only: the node may run
 * meanwhile.
 */
export async function runVerifyChain(flags: ConfigSources["flags"], from: number | undefined): Promise<void> {
  const config = loadSettings(flags);
  const [{ openLedgerReader }, { verifyChain }] = await Promise.all([import("../node/openStore.js"), import("../ledger/verifyChain.js")]);
  const store = await openLedgerReader(config);
  try {
    const report = await withProgress("verify-chain", (onProgress) => verifyChain(store, { ...(from === undefined ? {} : { from }), onProgress }));
    if (report.fault !== null) {
      console.log(`FAIL height ${report.fault.height}: ${report.fault.reason}`);
      process.exitCode = 1;
      return;
    }
    console.log(`ok heights ${report.from} to ${report.to}: ${report.txs} transactions, every id, derived row and app hash recomputed`);
  } finally {
    await store.close();
  }
}

/** `ledgerd backup DEST`: the ledger at one height, beside a running node (src/tools/backups.ts). */
export async function runBackup(flags: ConfigSources["flags"], dest: string): Promise<void> {
  const { backupLedger } = await import("../tools/backups.js");
  const manifest = backupLedger(loadSettings(flags), dest);
  console.log(`backed up height ${manifest.height} (app hash ${manifest.appHash || '""'}) to ${dest}`);
}

/** `ledgerd restore SRC`: the backup into a data folder without a ledger, once it verifies. */
export async function runRestore(flags: ConfigSources["flags"], src: string): Promise<void> {
  const { restoreLedger } = await import("../tools/backups.js");
  const report = await withProgress("restore: verified", (onProgress) => restoreLedger(loadSettings(flags), src, onProgress));
  console.log(`restored heights 1 to ${report.to} (${report.txs} transactions, verified)`);
}

/** `ledgerd export FILE`: the chain as JSON lines (src/tools/exportImport.ts). */
export async function runExport(flags: ConfigSources["flags"], file: string): Promise<void> {
  const { exportChain } = await import("../tools/exportImport.js");
  const height = await withProgress("export", (onProgress) => exportChain(loadSettings(flags), file, onProgress));
  console.log(`exported heights 1 to ${height} to ${file}`);
}

/** `ledgerd migrate-store --to postgres [--url URL]` (src/tools/migrateStore.ts). */
export async function runMigrateStore(flags: ConfigSources["flags"], url: string): Promise<void> {
  // Loaded for this command only: it brings PostgreSQL's driver (see openStore).
  const { migrateToPostgres } = await import("../tools/migrateStore.js");
  const done = await withProgress("migrate-store", (onProgress) => migrateToPostgres(loadSettings(flags), url, onProgress));
  if (done.from > done.to) {
    console.log(`PostgreSQL already holds heights 1 to ${done.to} of this ledger: nothing to migrate`);
  } else {
    console.log(`migrated heights ${done.from} to ${done.to} into PostgreSQL, every block re-executed to its stored app hash (last ${done.appHash || '""'})`);
  }
  console.log("to run on it: stop the node, run migrate-store once more (it resumes), then set database.backend=postgres and database.url");
}

/** `ledgerd import FILE`: re-executes an export into a data folder without a ledger. */
export async function runImport(flags: ConfigSources["flags"], file: string, rule?: CommitmentVersion): Promise<void> {
  const { importChain } = await import("../tools/exportImport.js");
  const done = await withProgress("import", (onProgress) => importChain(loadSettings(flags), file, onProgress, rule));
  if (done.rehashed) {
    console.log(`imported heights 1 to ${done.height} as a new chain with app hash rule ${String(rule)}: last app hash ${done.appHash || '""'}`);
  } else {
    console.log(`imported heights 1 to ${done.height}: every block re-executed to its exported app hash`);
  }
}

/**
 * `ledgerd import --from-bigchaindb URL` (src/tools/bigchaindbImport.ts): each refusal and retry
 * on stderr as it happens, the summary on stdout. Exit code 0 when every transaction was
 * imported, 2 when some were refused (listed in the report), 1 when the import stopped (run it
 * again to resume).
 */
export async function runImportFromBigchaindb(flags: ConfigSources["flags"], url: string, options: BigchaindbImportOptions): Promise<void> {
  const [{ importFromBigchaindb }, { describeRefusal }] = await Promise.all([
    import("../tools/bigchaindbImport.js"),
    import("../tools/bigchaindbRefusals.js"),
  ]);
  const done = await withProgress("import --from-bigchaindb", (onProgress) =>
    importFromBigchaindb(loadSettings(flags), {
      url,
      options,
      onProgress,
      onRefused: (refusal) => process.stderr.write(`refused: ${describeRefusal(refusal)}\n`),
      onRetry: (path, attempt, reason) => process.stderr.write(`retry ${attempt} of GET ${path}: ${reason}\n`),
    }),
  );
  const { summary } = done;
  const resumed = done.from > 1 ? ` (resumed at height ${done.from})` : "";
  console.log(`imported heights 1 to ${summary.to} from BigchainDB${resumed} as a v1 chain: ${summary.accepted} of ${summary.transactions} transactions accepted, ${summary.refused} refused; last app hash ${summary.app_hash || '""'}`);
  console.log(`report: ${done.reportPath}`);
  if (summary.refused > 0) process.exitCode = importRefusedExit;
}

/** `import --from-bigchaindb`'s exit code when it finished with refused transactions. */
export const importRefusedExit = 2;

/** `ledgerd mirror --to DIR [--node URL]`: the log as static files (src/tools/mirror.ts). */
export async function runMirror(flags: ConfigSources["flags"], dir: string, node: string | undefined): Promise<void> {
  const { ledgerLogSource, mirrorLog, nodeLogSource } = await import("../tools/mirror.js");
  const source = node === undefined ? await ledgerLogSource(loadSettings(flags)) : nodeLogSource(node);
  try {
    const report = await mirrorLog(source, dir);
    console.log(`mirrored the log of ${report.size} blocks (was ${report.from}) to ${dir}: ${report.written} tiles written, ${report.removed} partial tiles removed`);
  } finally {
    await source.close();
  }
}
