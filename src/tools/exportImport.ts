// `ledgerd export FILE` and `ledgerd import FILE` (README "Backups and checking the ledger"): the
// chain as a portable, versioned file of JSON lines that another ledgerd re-executes, block by
// block, to the same app hashes. Line 1 is the header; then one line per block, empty blocks
// included, each transaction as the exact text stored (a JSON string, so its bytes survive):
//   {"format":"ledgerd-export","version":1,"chain_id":"...","validators":[...],"commitment":"v1","from":1,"to":H}
//   {"height":1,"app_hash":"<hex>","txs":["{\"id\":...}", ...]}
// The legacy variants' refused transactions are not exported: they are outside the app hash,
// and an import records none. `commitment` is the chain's app hash rule (docs/proofs.md); an
// export without it was written before the rule existed, of a `bigchaindb` chain. A block that
// carried evidence of misbehavior (docs/http-api.md "Evidence") has it as `evidence`, which an
// import records with the block: outside the app hash, it is copied, not re-derived.
import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync, renameSync } from "node:fs";
import type { Config } from "../config/schema.js";
import { moduleOptions } from "../config/moduleOptions.js";
import { LedgerApp } from "../ledger/ledgerApp.js";
import { PreparePool } from "../ledger/preparePool.js";
import { removeDatabaseFiles } from "../store/sqlite/backup.js";
import { SqliteStore } from "../store/sqlite/sqliteStore.js";
import { openLedgerReader } from "../node/openStore.js";
import type { ChainRules } from "../store/store.js";
import { blockLineOf, misbehaviorOfLine } from "../ledger/blockLine.js";
import type { CommitmentVersion } from "../proofs/commitment.js";
import { lockLedger } from "../node/dataDirLock.js";
import { exportFormat, exportLineBytesMax, exportVersion, readBlock, readHeader, type ExportBlock, type ExportHeader } from "./exportFormat.js";
import { readLines, type NumberedLine } from "./exportLines.js";
import { makeDirs } from "../node/preflight.js";

/** Writes the whole chain to `file` (a new file); the last height written. */
export async function exportChain(config: Config, file: string, onProgress?: (height: number, of: number) => void): Promise<number> {
  if (existsSync(file)) throw new Error(`${file} exists: an export never overwrites`);
  const store = await openLedgerReader(config);
  const out = createWriteStream(file, { flags: "wx" });
  try {
    const head = await store.getChainState();
    if (head.chainId === null) throw new Error("the ledger has no chain yet");
    const header: ExportHeader = {
      format: exportFormat,
      version: exportVersion,
      chain_id: head.chainId,
      validators: await store.getValidators(1),
      commitment: head.commitment,
      ...(head.appVersion === null ? {} : { app_version: String(head.appVersion) }),
      ...(head.ruleHeights.size === 0 ? {} : { rule_heights: Object.fromEntries(head.ruleHeights) }),
      from: 1,
      to: head.height,
    };
    await write(out, JSON.stringify(header));
    for (let height = 1; height <= head.height; height++) {
      const contents = await store.getBlockContents(height);
      if (contents === null) throw new Error(`block ${height} is missing`);
      const block: ExportBlock = blockLineOf(contents);
      const line = JSON.stringify(block);
      if (Buffer.byteLength(line) > exportLineBytesMax) {
        throw new Error(`block ${height} is longer than ${exportLineBytesMax} bytes as a line, the most an import reads`);
      }
      await write(out, line);
      onProgress?.(height, head.height);
    }
    return head.height;
  } finally {
    out.end();
    await once(out, "close");
    await store.close();
  }
}

async function write(out: NodeJS.WritableStream, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, "drain");
}

/**
 * Re-executes an export into a data folder without a ledger: every block through the ledger
 * (each transaction checked as when it was first committed), each app hash compared with the
 * exported one. Stops at the first block that differs. With `rule` other than the export's,
 * the chain is begun anew under that rule (docs/proofs.md, upgrading): the exported app hashes
 * are of the other rule, so only the transactions' acceptance is checked.
 */
export async function importChain(
  config: Config,
  file: string,
  onProgress?: (height: number, of: number) => void,
  rule?: CommitmentVersion,
): Promise<{ height: number; rehashed: boolean; appHash: string }> {
  if (config.database.backend !== "sqlite") throw new Error("import builds a SQLite ledger: import, then `ledgerd migrate-store --to postgres`");
  const lines = readLines(createReadStream(file), exportLineBytesMax);
  try {
    const first = await lines.next();
    if (first.done === true) throw new Error(`${file} is empty: not a ledgerd export`);
    const header = readHeader(first.value.text);
    makeDirs(config.data_dir, "data_dir");
    // Held to the end, the rename included: no node starts on the folder meanwhile (dataDirLock.ts).
    const lock = lockLedger(config);
    try {
      if (existsSync(config.database.path)) throw new Error(`${config.database.path} exists: import into a data folder without a ledger`);
      return await buildLedger(config, header, lines, { rule, onProgress });
    } finally {
      lock.release();
    }
  } finally {
    await lines.return(undefined);
  }
}

/** What importChain was asked besides the file. */
interface ImportChoices {
  readonly rule: CommitmentVersion | undefined;
  readonly onProgress: ((height: number, of: number) => void) | undefined;
}

/** The import proper, under the lock: the ledger built beside the target, renamed at the end. */
async function buildLedger(
  config: Config,
  header: ExportHeader,
  lines: AsyncIterator<NumberedLine>,
  choices: ImportChoices,
): Promise<{ height: number; rehashed: boolean; appHash: string }> {
  const exported = header.commitment ?? "bigchaindb";
  const commitment = choices.rule ?? exported;
  const rehashed = commitment !== exported;
  const options = moduleOptions(config);
  // Built beside the target and renamed at the end: a failed import leaves nothing to start on.
  const staging = `${config.database.path}.importing`;
  removeDatabaseFiles(staging);
  const store = SqliteStore.open({ ...options.sqliteStore, path: staging, access: "owner" });
  const pool = new PreparePool(options.preparePool);
  let done = false;
  try {
    const ledger = await LedgerApp.open(options.ledger, { store, pool });
    // A rule change this release does not know is refused here, naming it.
    await ledger.initChain(header.chain_id, header.validators, commitment, chainRulesOfHeader(header));
    let height = 0;
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      if (line.text.trim() === "") continue;
      const block = readBlock(line.text, line.number);
      if (block.height !== height + 1) throw new Error(`line ${line.number}: height ${block.height} follows height ${height}`);
      await replayBlock(ledger, block, !rehashed).catch((error: unknown) => {
        throw new Error(`line ${line.number}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      height = block.height;
      choices.onProgress?.(height, header.to);
    }
    if (height !== header.to) throw new Error(`the export ends at height ${height}, its header says ${header.to}`);
    done = true;
    return { height, rehashed, appHash: ledger.info().appHash };
  } finally {
    await pool.close();
    await store.close();
    if (done) renameSync(staging, config.database.path);
    else removeDatabaseFiles(staging);
  }
}

/**
 * Executes one block of a chain on a ledger that holds the blocks before it: every transaction
 * must be accepted, and with `sameRule` the app hash must come out as it was.
 */
export async function replayBlock(ledger: LedgerApp, block: ExportBlock, sameRule: boolean): Promise<void> {
  const misbehavior = misbehaviorOfLine(block);
  const finalized = await ledger.finalizeBlock(block.height, block.txs.map((tx) => Buffer.from(tx, "utf8")), undefined, misbehavior);
  const refused = finalized.results.findIndex((result) => result !== null);
  if (refused >= 0) throw new Error(`height ${block.height}: transaction ${refused} is refused: ${finalized.results[refused]!.message}`);
  if (sameRule && finalized.appHash !== block.app_hash) {
    throw new Error(`height ${block.height}: app hash ${finalized.appHash} re-executed, ${block.app_hash} stored`);
  }
  await ledger.commit();
}

/** The chain's protocol version and rule heights an export's header names (none: not recorded). */
export function chainRulesOfHeader(header: ExportHeader): ChainRules {
  return {
    appVersion: header.app_version === undefined ? null : BigInt(header.app_version),
    ruleHeights: new Map(Object.entries(header.rule_heights ?? {})),
  };
}
