// `ledgerd export FILE` and `ledgerd import FILE` (README "Backups and checking the ledger"): the
// chain as a portable, versioned file of JSON lines that another ledgerd re-executes, block by
// block, to the same app hashes. Line 1 is the header; then one line per block, empty blocks
// included, each transaction as the exact text stored (a JSON string, so its bytes survive):
//   {"format":"ledgerd-export","version":1,"chain_id":"...","validators":[...],"commitment":"v1","from":1,"to":H}
//   {"height":1,"app_hash":"<hex>","txs":["{\"id\":...}", ...]}
// The legacy variants' refused transactions are not exported: they are outside the app hash,
// and an import records none. `commitment` is the chain's app hash rule (docs/proofs.md); an
// export without it was written before the rule existed, of a `bigchaindb` chain.
import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync } from "node:fs";
import { createInterface } from "node:readline";
import type { Config } from "../config/schema.js";
import { moduleOptions } from "../config/moduleOptions.js";
import { LedgerApp } from "../ledger/ledgerApp.js";
import { PreparePool } from "../ledger/preparePool.js";
import { removeDatabaseFiles } from "../store/sqlite/backup.js";
import { SqliteStore } from "../store/sqlite/sqliteStore.js";
import { openLedgerReader } from "./openStore.js";
import type { Validator } from "../store/store.js";
import { commitmentVersions, type CommitmentVersion } from "../proofs/commitment.js";

export const exportFormat = "ledgerd-export";
export const exportVersion = 1;

interface ExportHeader {
  readonly format: typeof exportFormat;
  readonly version: typeof exportVersion;
  readonly chain_id: string;
  /** The first validator set (initChain's): elections in the blocks change it as they did. */
  readonly validators: readonly Validator[];
  readonly commitment?: CommitmentVersion;
  readonly from: 1;
  readonly to: number;
}

export interface ExportBlock {
  readonly height: number;
  readonly app_hash: string;
  readonly txs: readonly string[];
}

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
      from: 1,
      to: head.height,
    };
    await write(out, JSON.stringify(header));
    for (let height = 1; height <= head.height; height++) {
      const contents = await store.getBlockContents(height);
      if (contents === null) throw new Error(`block ${height} is missing`);
      const block: ExportBlock = { height, app_hash: contents.appHash, txs: contents.txs.map((tx) => tx.json) };
      await write(out, JSON.stringify(block));
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
  if (existsSync(config.database.path)) throw new Error(`${config.database.path} exists: import into a data folder without a ledger`);
  mkdirSync(config.data_dir, { recursive: true });
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity })[Symbol.asyncIterator]();
  const first = await lines.next();
  const header = (first.done === true ? null : parseLine(first.value, 1)) as Partial<ExportHeader> | null;
  if (header?.format !== exportFormat || header.version !== exportVersion || typeof header.chain_id !== "string" || !validatorList(header.validators)) {
    throw new Error(`${file} is not a ledgerd export of version ${exportVersion}`);
  }
  const exported = header.commitment ?? "bigchaindb";
  if (!commitmentVersions.includes(exported)) throw new Error(`${file}: commitment ${JSON.stringify(exported)} is none this ledgerd knows`);
  const commitment = rule ?? exported;
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
    await ledger.initChain(header.chain_id, header.validators, commitment);
    let height = 0;
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      if (line.trim() === "") continue;
      const block = parseLine(line, height + 2) as ExportBlock;
      if (block.height !== height + 1) throw new Error(`line for height ${block.height} follows height ${height}`);
      await replayBlock(ledger, block, !rehashed);
      height = block.height;
      onProgress?.(height, header.to ?? height);
    }
    if (height !== header.to) throw new Error(`the export ends at height ${height}, its header says ${String(header.to)}`);
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
  const finalized = await ledger.finalizeBlock(block.height, block.txs.map((tx) => Buffer.from(tx, "utf8")));
  const refused = finalized.results.findIndex((result) => result !== null);
  if (refused >= 0) throw new Error(`height ${block.height}: transaction ${refused} is refused: ${finalized.results[refused]!.message}`);
  if (sameRule && finalized.appHash !== block.app_hash) {
    throw new Error(`height ${block.height}: app hash ${finalized.appHash} re-executed, ${block.app_hash} stored`);
  }
  await ledger.commit();
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new Error(`line ${number} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function validatorList(value: unknown): value is Validator[] {
  return (
    Array.isArray(value) &&
    value.every((v: Partial<Validator>) => typeof v.publicKey === "string" && /^[0-9a-f]{64}$/.test(v.publicKey) && Number.isSafeInteger(v.power) && v.power! > 0)
  );
}
