#!/usr/bin/env node
// The cli folder owns ledgerd's command line: `ledgerd start | init | keys | config | doctor`, with one
// flag per setting (settingOptions.ts, from the config schema) and help that shows the defaults
// from the modules' own option objects. `npm start` runs `ledgerd start` with the defaults.
import { Command } from "commander";
import { ConfigError } from "../config/configError.js";
import { packageInfo } from "../node/packageInfo.js";
import {
  runBackup,
  runConfig,
  runDoctorCommand,
  runExport,
  runImport,
  runImportFromBigchaindb,
  runInit,
  runKeys,
  runMigrateStore,
  runMirror,
  runServeReads,
  runRestore,
  runStart,
  runVerifyChain,
  StartFailed,
} from "./commands.js";
import { addSettingOptions, settingFlags, settingsHelp } from "./settingOptions.js";
import { bigchaindbImportOptionsDefault, fetchConcurrencyMax, retriesMaxMax, type BigchaindbImportOptions } from "../tools/bigchaindbImportOptions.js";
import { registerElectionCommand } from "./electionCommand.js";
import { registerVerifyCommand } from "./verifyCommand.js";
import { registerAuditCommand } from "./auditCommand.js";
import { registerNetworkCommand } from "./networkCommand.js";
import { registerTestnetCommand } from "./testnetCommand.js";

const program = new Command("ledgerd")
  .description("A ledger node wire-compatible with BigchainDB 2.x")
  .version(packageInfo().version)
  .showHelpAfterError()
  .addHelpText("after", settingsHelp());

addSettingOptions(
  program.command("start").description("Run the node: HTTP API, event stream, and its engine"),
).action((options: Record<string, unknown>) => runStart(settingFlags(options)));

addSettingOptions(
  program.command("init").description("Write <data_dir>/config.json with the effective settings, and the node key"),
)
  .option("--force", "replace an existing config.json (the node key is never replaced)")
  .option(
    "--validator-key <FILE>",
    "take the node key from CometBFT's priv_validator_key.json, so the legacy CREATEs this node signs come from a validator",
  )
  .action((options: Record<string, unknown>) =>
    runInit(settingFlags(options), options["force"] === true, options["validatorKey"] as string | undefined),
  );

program
  .command("keys")
  .description("Print a new Ed25519 keypair, base58 (as the BigchainDB drivers make them)")
  .action(() => runKeys());

addSettingOptions(
  program
    .command("config")
    .description("Print the effective settings (defaults < config file < env < flags) as JSON"),
).action((options: Record<string, unknown>) => runConfig(settingFlags(options)));

addSettingOptions(
  program
    .command("doctor")
    .description("Check this node's set-up (key, API, CometBFT version, chain id, validator key, ABCI, sync, peers)"),
).action((options: Record<string, unknown>) => runDoctorCommand(settingFlags(options)));

addSettingOptions(
  program
    .command("verify-chain")
    .description("Recompute every stored block's transaction ids, derived rows and app hashes; print the first height that disagrees (docs/verify-chain.md)")
    .option("--from <H>", "start at this height (the app hash before it is taken as stored)"),
).action((options: Record<string, unknown>) => {
  const from = options["from"] as string | undefined;
  if (from !== undefined && !/^[1-9][0-9]*$/.test(from)) throw new Error(`--from must be a height of 1 or more: ${from}`);
  return runVerifyChain(settingFlags(options), from === undefined ? undefined : Number(from));
});

/** A command of the settings' flags and one path: backup, restore, export, import. */
function pathCommand(name: string, description: string, argument: [string, string], run: (flags: ReturnType<typeof settingFlags>, path: string) => void | Promise<void>): void {
  addSettingOptions(program.command(name).description(description).argument(...argument)).action(
    (path: string, options: Record<string, unknown>) => run(settingFlags(options), path),
  );
}

pathCommand("backup", "Copy the ledger at one height into a new folder, beside a running node (keys are not copied)", ["<DEST>", "a new or empty folder"], runBackup);
pathCommand(
  "restore",
  "Restore a backup folder as this node's ledger (a data folder without one), after verify-chain passes on it",
  ["<SRC>", "a folder made by `ledgerd backup`"],
  runRestore,
);
pathCommand("export", "Write the chain as JSON lines another ledgerd re-executes (`import`)", ["<FILE>", "a new file"], runExport);
addSettingOptions(
  program
    .command("import")
    .description("Re-execute an export, or a BigchainDB 2.x node's chain (--from-bigchaindb), into a data folder without a ledger")
    .argument("[FILE]", "a file made by `ledgerd export`")
    .option("--commitment <RULE>", "begin the chain anew with this app hash rule (v1: proofs) instead of the export's (docs/proofs.md)")
    .option("--from-bigchaindb <URL>", "read the chain of this BigchainDB 2.x node's HTTP API instead of a file (docs/migrating-from-bigchaindb.md)")
    .option("--fetch-concurrency <N>", `blocks fetched at once from BigchainDB (default: ${bigchaindbImportOptionsDefault.fetchConcurrency})`)
    .option("--request-timeout-ms <MS>", `time limit of one request to BigchainDB (default: ${bigchaindbImportOptionsDefault.requestTimeoutMs})`)
    .option("--retries <N>", `retries of a request that failed on the network or got a 5xx, waiting twice as long each time (default: ${bigchaindbImportOptionsDefault.retriesMax})`),
).action((file: string | undefined, options: Record<string, unknown>) => {
  const url = options["fromBigchaindb"] as string | undefined;
  if (url !== undefined) {
    if (file !== undefined) throw new Error("give a FILE or --from-bigchaindb URL, not both");
    if (options["commitment"] !== undefined && options["commitment"] !== "v1") throw new Error("--from-bigchaindb always begins a v1 chain (proofs)");
    return runImportFromBigchaindb(settingFlags(options), url, bigchaindbFlags(options));
  }
  for (const flag of ["fetchConcurrency", "requestTimeoutMs", "retries"]) {
    if (options[flag] !== undefined) throw new Error(`--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --from-bigchaindb`);
  }
  if (file === undefined) throw new Error("give the FILE to import (made by `ledgerd export`), or --from-bigchaindb URL");
  const rule = options["commitment"] as string | undefined;
  if (rule !== undefined && rule !== "v1" && rule !== "bigchaindb") throw new Error(`--commitment is v1 or bigchaindb: ${rule}`);
  return runImport(settingFlags(options), file, rule);
});

/** The BigchainDB import's limits, the flags over the defaults (bigchaindbImportOptions.ts). */
function bigchaindbFlags(options: Record<string, unknown>): BigchaindbImportOptions {
  const number = (flag: string, name: string, min: number, max: number): number | undefined => {
    const text = options[flag] as string | undefined;
    if (text === undefined) return undefined;
    if (!/^[0-9]{1,9}$/.test(text) || Number(text) < min || Number(text) > max) throw new Error(`--${name} is a whole number from ${min} to ${max}: ${text}`);
    return Number(text);
  };
  const fetchConcurrency = number("fetchConcurrency", "fetch-concurrency", 1, fetchConcurrencyMax);
  const requestTimeoutMs = number("requestTimeoutMs", "request-timeout-ms", 1, 3_600_000);
  const retriesMax = number("retries", "retries", 0, retriesMaxMax);
  return {
    ...bigchaindbImportOptionsDefault,
    ...(fetchConcurrency === undefined ? {} : { fetchConcurrency }),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(retriesMax === undefined ? {} : { retriesMax }),
  };
}

addSettingOptions(
  program
    .command("serve-reads")
    .description("Serve the API's reads from the database (e.g. a PostgreSQL replica) without an engine; writes go to --writer")
    .option("--writer <URL>", "the writing node's API: transactions posted here are redirected to it (307); without it they are refused 405"),
).action((options: Record<string, unknown>) => runServeReads(settingFlags(options), (options["writer"] as string | undefined) ?? ""));

addSettingOptions(
  program
    .command("migrate-store")
    .description("Copy the node's SQLite ledger into PostgreSQL, every block re-executed to its app hash; resumes when run again")
    .requiredOption("--to <BACKEND>", "the backend to move to: postgres")
    .option("--url <URL>", "the PostgreSQL database (default: database.url, else the PG* environment variables)"),
).action((options: Record<string, unknown>) => {
  if (options["to"] !== "postgres") throw new Error(`--to is postgres: ${String(options["to"])}`);
  return runMigrateStore(settingFlags(options), (options["url"] as string | undefined) ?? "");
});

addSettingOptions(
  program
    .command("mirror")
    .description("Write the history's tiles and checkpoint as static files a plain web server serves (docs/transparency.md); only what is new")
    .requiredOption("--to <DIR>", "the mirror's folder (served at the log's URL prefix)")
    .option("--node <URL>", "read a node's API (default: the local ledger of --data_dir, signed with its node key)"),
).action((options: Record<string, unknown>) => runMirror(settingFlags(options), options["to"] as string, options["node"] as string | undefined));

registerTestnetCommand(program);
registerNetworkCommand(program);
registerElectionCommand(program);
registerVerifyCommand(program);
registerAuditCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.exitCode = 1;
  if (error instanceof StartFailed) return;
  if (error instanceof ConfigError) {
    console.error(`ledgerd: invalid settings:\n${error.message.replace(/^/gm, "  ")}`);
    return;
  }
  console.error(`ledgerd: ${error instanceof Error ? error.message : String(error)}`);
});
