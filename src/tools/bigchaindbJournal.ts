// The files `ledgerd import --from-bigchaindb` keeps in the data folder, so that a stopped import
// resumes and its report survives the stop (docs/migrating-from-bigchaindb.md):
// - `bigchaindb-import.json`: what is imported (the source, the chain id, the validator set)
//   and whether it is done; written first, rewritten at the end with the summary.
// - `bigchaindb-import.jsonl`, the journal: per block with transactions, a line per refused
//   transaction then `{"height","txs","refused"}`, made durable before the block is committed.
//   The ledger's height is the truth: a resumed import drops the journal's lines past it (a
//   block written to the journal, not committed) and executes those blocks again.
// - `bigchaindb-import-report.json`: the summary and every refusal, written at the end.
import { once } from "node:events";
import { closeSync, createReadStream, createWriteStream, existsSync, fsyncSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Validator } from "../store/store.js";
import type { Refusal } from "./bigchaindbRefusals.js";
import { readLines } from "./exportLines.js";

export const importRecordName = "bigchaindb-import.json";
export const journalName = "bigchaindb-import.jsonl";
export const reportName = "bigchaindb-import-report.json";
export const importRecordFormat = "ledgerd-bigchaindb-import";
/** A journal line is one refusal or one block's counts: far below this. */
const journalLineBytesMax = 1024 * 1024;

export interface ImportRecord {
  readonly format: typeof importRecordFormat;
  readonly version: 1;
  /** The node's base URL, as the import was given it. */
  readonly source: string;
  readonly source_version: string;
  readonly chain_id: string;
  readonly validators: readonly Validator[];
  readonly state: "importing" | "done";
  /** Set when done: the heights and counts of the whole import. */
  readonly summary?: ImportSummary;
}

export interface ImportSummary {
  readonly to: number;
  readonly transactions: number;
  readonly accepted: number;
  readonly refused: number;
  readonly app_hash: string;
}

/** The record of an import begun in `dataDir`, or null. */
export function readImportRecord(dataDir: string): ImportRecord | null {
  const path = join(dataDir, importRecordName);
  if (!existsSync(path)) return null;
  const record = JSON.parse(readFileSync(path, "utf8")) as Partial<ImportRecord>;
  if (record.format !== importRecordFormat) throw new Error(`${path} is not the record of a BigchainDB import`);
  return record as ImportRecord;
}

/** Writes the record whole or not at all (a file beside it, renamed over it). */
export function writeImportRecord(dataDir: string, record: ImportRecord): void {
  writeDurably(join(dataDir, importRecordName), `${JSON.stringify(record, null, 2)}\n`);
}

function writeDurably(path: string, text: string): void {
  const staging = `${path}.writing`;
  const fd = openSync(staging, "w");
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(staging, path);
}

/** The counts and the refusals of the journal up to the ledger's height. */
export interface JournalState {
  transactions: number;
  refused: number;
}

/**
 * Reads the journal back to `height` (the ledger's), giving each refusal to `onRefusal`, and
 * cuts it after the last line of that height: what follows is of blocks not committed, or a
 * line a stop cut short.
 */
export async function resumeJournal(dataDir: string, height: number, onRefusal: (refusal: Refusal) => void): Promise<JournalState> {
  const path = join(dataDir, journalName);
  const state: JournalState = { transactions: 0, refused: 0 };
  if (!existsSync(path)) return state;
  let kept = 0;
  for await (const line of readLines(createReadStream(path), journalLineBytesMax)) {
    const entry = parseEntry(line.text);
    if (entry === null || entry.height > height) break;
    if ("id" in entry) onRefusal(entry);
    else {
      state.transactions += entry.txs;
      state.refused += entry.refused;
    }
    kept += Buffer.byteLength(line.text) + 1;
  }
  truncateSync(path, kept);
  return state;
}

type JournalEntry = Refusal | { readonly height: number; readonly txs: number; readonly refused: number };

function parseEntry(text: string): JournalEntry | null {
  try {
    const entry = JSON.parse(text) as JournalEntry;
    return typeof entry.height === "number" ? entry : null;
  } catch {
    return null;
  }
}

/** Appends to the journal; each block's lines are durable when `block` returns. */
export class Journal {
  private readonly fd: number;

  constructor(dataDir: string) {
    this.fd = openSync(join(dataDir, journalName), "a");
  }

  block(height: number, txs: number, refusals: readonly Refusal[]): void {
    const lines = refusals.map((refusal) => JSON.stringify(refusal));
    lines.push(JSON.stringify({ height, txs, refused: refusals.length }));
    writeSync(this.fd, `${lines.join("\n")}\n`);
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * The report: the record's summary and every refusal of the journal, written as it is read
 * (a chain of many refusals costs no memory here).
 */
export async function writeReport(dataDir: string, record: ImportRecord, summary: ImportSummary): Promise<string> {
  const path = join(dataDir, reportName);
  const out = createWriteStream(`${path}.writing`);
  const head = { format: "ledgerd-bigchaindb-import-report", version: 1, source: record.source, source_version: record.source_version, chain_id: record.chain_id, from: 1, ...summary };
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write(`${JSON.stringify(head, null, 2).slice(0, -2)},\n  "refusals": [`);
  let first = true;
  for await (const line of readLines(createReadStream(join(dataDir, journalName)), journalLineBytesMax)) {
    const entry = parseEntry(line.text);
    if (entry === null || !("id" in entry)) continue;
    await write(`${first ? "" : ","}\n    ${JSON.stringify(entry)}`);
    first = false;
  }
  await write(`${first ? "" : "\n  "}]\n}\n`);
  out.end();
  await once(out, "close");
  renameSync(`${path}.writing`, path);
  return path;
}
