// The state-sync snapshot, format 2 (docs/state-sync.md): what a snapshot's metadata says, how
// its hash and its chunks' hashes are made, and how its chunks are cut and read back.
//
// A snapshot of height H is the chain's blocks 1..H as lines of JSON (blockLine.ts, the lines of
// `ledgerd export`, with the legacy transactions execution refused), one after another, cut into pieces of `snapshotChunkBytes` (the last one
// shorter; a line may run on into the next), each gzip-compressed into a chunk. The metadata is JSON naming the chain, its
// app hash rule, the protocol version, the height and app hash, the first validator set, and
// the SHA-256 of every chunk; the snapshot's hash is SHA-256 of a tag and the metadata's bytes.
// So the hash CometBFT hands over commits to every chunk's hash, and each chunk is checked as it
// arrives. None of this is trusted: the app hash CometBFT's light client verified is, and the
// restore recomputes it from the transactions (snapshotVerifier.ts) before it writes anything.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { constants, gunzipSync, gzip } from "node:zlib";
import type { BlockLine, EvidenceLine } from "./blockLine.js";
import type { CommitmentVersion } from "../proofs/commitment.js";
import { ruleHeightsOf } from "./protocol.js";
import type { Validator } from "../store/store.js";

/** ABCI Snapshot.format of the layout this release takes. */
export const snapshotFormat = 2;

/**
 * The formats this release restores; another is refused (REJECT_FORMAT). Format 1, the previous
 * release's, is format 2 without `refused` (docs/state-sync.md "Formats").
 */
export const snapshotFormatsRestored: readonly number[] = [1, 2];

/** The metadata's `format` field, naming what the bytes are. */
export const snapshotKind = "ledgerd-snapshot";

/**
 * Bytes of lines in a chunk, before compression (the last one: at most). CometBFT carries a
 * chunk in one p2p message of at most 16,000,000 bytes (v0.38 statesync/reactor.go
 * chunkMsgSize): 10 MiB fits even if gzip gained nothing. A chunk that inflates to more is
 * refused (a peer's compressed chunk cannot make the node hold more than this).
 */
export const snapshotChunkBytes = 10 * 1024 * 1024;

/**
 * gzip's fastest level: CREATEs' lines come out 3.2 times smaller (their keys and signatures do
 * not compress), so a chunk crosses CometBFT's rate-limited p2p links (`p2p.send_rate`) in a
 * third of the time, for ~250 ms of CPU a 10 MiB chunk on a busy core.
 */
const chunkGzipLevel = constants.Z_BEST_SPEED;

/**
 * Bytes in the metadata. CometBFT carries every snapshot's metadata in one p2p message of at
 * most 4,000,000 bytes (snapshotMsgSize); the chunk hashes take 67 bytes each, the first
 * validator set up to ~150 bytes a validator.
 */
export const snapshotMetadataBytesMax = 3_500_000;

/** Chunks in a snapshot: 500 GB of transactions, and their hashes well within the metadata. */
export const snapshotChunksMax = 50_000;

/**
 * Bytes in one line (one block): a block of CometBFT's largest `block.max_bytes` (100 MiB) with
 * every transaction's text escaped in a JSON string could pass 64 MiB; the node refuses to
 * snapshot such a block rather than make a snapshot no node restores.
 */
export const snapshotLineBytesMax = 64 * 1024 * 1024;

/** Validators in the first set: CometBFT's `MaxVotesCount`. */
export const snapshotValidatorsMax = 10_000;

/**
 * A snapshot's line: a block, and CometBFT's signed header of the next height (which carries the
 * app hash after this block) as the serving node's RPC `commit` showed it, compact JSON, when it
 * had one. A restored node keeps the headers that verify, so that its proofs of heights its own
 * CometBFT never held carry them as a replaying node's do.
 */
export interface SnapshotLine extends BlockLine {
  readonly signed_header?: string;
  /**
   * Format 2: the legacy transactions the block carried and execution refused (status
   * `invalid`), in block order; absent when none. Outside the app hash: a restore executes
   * them again where they stood, so their refusal is the rules', not the snapshot's.
   */
  readonly refused?: readonly RefusedLine[];
}

/** A refused transaction of a line: the stored text, after the block's first `at` valid ones. */
export interface RefusedLine {
  readonly at: number;
  readonly tx: string;
}

/** What the metadata says (JSON, these field names). */
export interface SnapshotMetadata {
  readonly format: typeof snapshotKind;
  readonly chain_id: string;
  readonly commitment: CommitmentVersion;
  /** The protocol version (ledger/protocol.ts) the chain's genesis names, in decimal. */
  readonly app_version: string;
  /** The rule heights the chain's genesis names (docs/upgrades.md); with `app_version`, the version at any height. */
  readonly rule_heights: Readonly<Record<string, number>>;
  readonly height: number;
  /** The app hash after `height`, hex ("" before the first transaction). */
  readonly app_hash: string;
  /** The valid transactions of blocks 1..height. */
  readonly txs: number;
  /** The chain's first validator set (InitChain's), which elections in the blocks change. */
  readonly validators: readonly Validator[];
  /** SHA-256 of each chunk, hex, in order. */
  readonly chunks: readonly string[];
}

/** A chunk's hash: SHA-256 of its bytes, hex. */
export function chunkHash(chunk: Uint8Array): string {
  return createHash("sha256").update(chunk).digest("hex");
}

/** The snapshot's hash: SHA-256 of the tag `ledgerd/snapshot/v1` and the metadata's bytes. */
export function snapshotHash(metadata: Uint8Array): Uint8Array {
  return createHash("sha256").update("ledgerd/snapshot/v1", "utf8").update(metadata).digest();
}

/** The metadata as the bytes a snapshot carries. */
export function encodeMetadata(metadata: SnapshotMetadata): Buffer {
  return Buffer.from(JSON.stringify(metadata), "utf8");
}

const hex64 = /^[0-9a-f]{64}$/;

/** The metadata read from untrusted bytes, every field checked; or why it is not one. */
export function readMetadata(bytes: Uint8Array): SnapshotMetadata | string {
  if (bytes.length > snapshotMetadataBytesMax) return `the metadata is longer than ${snapshotMetadataBytesMax} bytes`;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return "the metadata is not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the metadata is not a JSON object";
  const m = value as Record<string, unknown>;
  if (m["format"] !== snapshotKind) return `the metadata's format is not ${snapshotKind}`;
  if (typeof m["chain_id"] !== "string" || m["chain_id"] === "") return "the metadata names no chain id";
  if (m["commitment"] !== "v1" && m["commitment"] !== "bigchaindb") return "the metadata names no app hash rule";
  if (typeof m["app_version"] !== "string" || !/^[0-9]{1,20}$/.test(m["app_version"])) return "the metadata's app_version is not a number";
  if (m["rule_heights"] === undefined) return "the metadata names no rule_heights";
  try {
    ruleHeightsOf(m["rule_heights"]);
  } catch (error) {
    return `the metadata's rule_heights: ${(error as Error).message}`;
  }
  if (!isCount(m["height"]) || m["height"] < 1) return "the metadata's height is not 1 or more";
  if (typeof m["app_hash"] !== "string" || !(m["app_hash"] === "" || hex64.test(m["app_hash"]))) return "the metadata's app_hash is not hex";
  if (!isCount(m["txs"])) return "the metadata's txs is not a count";
  const validators = readValidators(m["validators"]);
  if (typeof validators === "string") return validators;
  const chunks = m["chunks"];
  if (!Array.isArray(chunks) || chunks.length < 1 || chunks.length > snapshotChunksMax) return `the metadata lists not 1 to ${snapshotChunksMax} chunks`;
  if (!chunks.every((hash) => typeof hash === "string" && hex64.test(hash))) return "a chunk's hash in the metadata is not 64 hex digits";
  return m as unknown as SnapshotMetadata;
}

function readValidators(value: unknown): readonly Validator[] | string {
  if (!Array.isArray(value) || value.length < 1 || value.length > snapshotValidatorsMax) return `the metadata lists not 1 to ${snapshotValidatorsMax} validators`;
  const keys = new Set<string>();
  for (const v of value as unknown[]) {
    const validator = v as Partial<Record<string, unknown>> | null;
    if (typeof validator?.["publicKey"] !== "string" || !hex64.test(validator["publicKey"])) return "a validator's key in the metadata is not 64 hex digits";
    if (!isCount(validator["power"]) || validator["power"] < 1) return "a validator's power in the metadata is not 1 or more";
    if (keys.has(validator["publicKey"])) return "the metadata lists a validator twice";
    keys.add(validator["publicKey"]);
  }
  return value as Validator[];
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** One block's line of a snapshot of `format` read from an untrusted chunk, its shape checked; or why it is not one. */
export function readBlockLine(text: string, format = snapshotFormat): SnapshotLine | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "a line is not JSON";
  }
  const line = value as Partial<Record<string, unknown>> | null;
  if (typeof line !== "object" || line === null || Array.isArray(line)) return "a line is not a JSON object";
  if (!isCount(line["height"]) || line["height"] < 1) return "a line's height is not 1 or more";
  if (typeof line["app_hash"] !== "string") return `block ${line["height"]}'s app_hash is not a string`;
  const txs = line["txs"];
  if (!Array.isArray(txs) || !txs.every((tx) => typeof tx === "string")) return `block ${line["height"]}'s txs are not strings`;
  const evidence = line["evidence"];
  if (evidence !== undefined && !(Array.isArray(evidence) && evidence.every(isEvidenceLine))) return `block ${line["height"]}'s evidence is malformed`;
  if (line["signed_header"] !== undefined && typeof line["signed_header"] !== "string") return `block ${line["height"]}'s signed_header is not a string`;
  const refused = line["refused"];
  if (refused !== undefined && (format < 2 || !isRefusedList(refused, txs.length))) return `block ${line["height"]}'s refused transactions are malformed`;
  return line as unknown as SnapshotLine;
}

/** A line's `refused`: entries in block order, each after at most all the block's valid transactions. */
function isRefusedList(value: unknown, validTxs: number): value is RefusedLine[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  let at = 0;
  for (const entry of value as unknown[]) {
    const e = entry as Partial<Record<string, unknown>> | null;
    if (typeof e !== "object" || e === null || !isCount(e["at"]) || e["at"] < at || e["at"] > validTxs || typeof e["tx"] !== "string") return false;
    at = e["at"];
  }
  return true;
}

function isEvidenceLine(value: unknown): value is EvidenceLine {
  const e = value as Partial<Record<string, unknown>> | null;
  if (typeof e !== "object" || e === null) return false;
  const types: readonly unknown[] = ["duplicate_vote", "light_client_attack", "unknown"];
  return types.includes(e["type"]) && typeof e["validator_address"] === "string" && /^[0-9A-F]*$/.test(e["validator_address"]) &&
    isCount(e["power"]) && isCount(e["infraction_height"]) && typeof e["time"] === "string" && isCount(e["total_power"]);
}

const gzipAsync = promisify(gzip);

/**
 * Cuts a run of lines into chunks of `snapshotChunkBytes`: `add` a line, then `end`; each full
 * chunk goes to `onChunk` as soon as it is full.
 */
export class SnapshotChunker {
  private buffer = Buffer.allocUnsafe(snapshotChunkBytes);
  private filled = 0;
  private chunks = 0;

  constructor(private readonly onChunk: (chunk: Buffer) => Promise<void>) {}

  async add(line: string): Promise<void> {
    const bytes = Buffer.from(`${line}\n`, "utf8");
    if (bytes.length > snapshotLineBytesMax) throw new Error(`a block's line is longer than ${snapshotLineBytesMax} bytes, the most a restore reads`);
    let offset = 0;
    while (offset < bytes.length) {
      const taken = bytes.copy(this.buffer, this.filled, offset);
      offset += taken;
      this.filled += taken;
      if (this.filled === snapshotChunkBytes) await this.flush();
    }
  }

  /** The last chunk (a snapshot has at least one, even of nothing); the number of chunks. */
  async end(): Promise<number> {
    if (this.filled > 0 || this.chunks === 0) await this.flush();
    return this.chunks;
  }

  private async flush(): Promise<void> {
    // On libuv's threads, from a buffer of its own: a validator taking a snapshot goes on
    // committing meanwhile.
    const full = this.buffer.subarray(0, this.filled);
    this.buffer = Buffer.allocUnsafe(snapshotChunkBytes);
    this.filled = 0;
    const chunk = await gzipAsync(full, { level: chunkGzipLevel });
    this.chunks++;
    await this.onChunk(chunk);
  }
}

/**
 * The lines of a run of chunks given one at a time: `push` a chunk (compressed, as a snapshot
 * carries it), get the lines it completes; `rest` is what waits for the next chunk (at most
 * `snapshotLineBytesMax` bytes).
 */
export class ChunkLines {
  private rest: Buffer = Buffer.alloc(0);

  /** The lines this chunk completes, or why the chunks are not lines of a snapshot. */
  push(chunk: Uint8Array): string[] | string {
    let piece: Buffer;
    try {
      piece = gunzipSync(chunk, { maxOutputLength: snapshotChunkBytes });
    } catch {
      return `a chunk is not gzip data of at most ${snapshotChunkBytes} bytes`;
    }
    const data = this.rest.length === 0 ? piece : Buffer.concat([this.rest, piece]);
    const lines: string[] = [];
    let start = 0;
    for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a, start)) {
      lines.push(data.toString("utf8", start, end));
      start = end + 1;
    }
    this.rest = data.subarray(start);
    if (this.rest.length > snapshotLineBytesMax) return `a line is longer than ${snapshotLineBytesMax} bytes`;
    return lines;
  }

  /** Whether the last chunk ended its last line. */
  get ended(): boolean {
    return this.rest.length === 0;
  }
}
