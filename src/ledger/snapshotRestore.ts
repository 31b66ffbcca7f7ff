// Restoring a ledger from a state-sync snapshot (docs/state-sync.md), in two passes over its
// chunks. The first (SnapshotVerifier) runs as the chunks arrive and writes nothing: it reads
// every block's line, recomputes each transaction's id from its body by its kind's rule, and
// folds the ids into the history tree (commitment v1) to the app hash CometBFT's light client
// verified. Only a snapshot that gives that hash reaches the second pass (restoreSnapshot),
// which commits the blocks through the ledger as a replay would, deriving every row the same
// way, but without checking signatures or hashing ids again: the app hash binds every id, every
// id its body, and the second pass reads the very chunks the first checked (their hashes again).
// The signed headers the snapshot carries are outside the app hash: each is kept only if the
// validators the restored ledger names signed it. So are the refused legacy transactions
// (format 2): the second pass executes them again where their block carried them, with every
// check, and records what the rules decide, as a replay does. The second pass is one bulk load
// of the store; a node stopped during it resumes from the blocks it wrote, once the first pass
// has found them on the snapshot's chain.
import { misbehaviorOfLine, type BlockLine } from "./blockLine.js";
import { ChainCommitment } from "./commitment.js";
import { restoredIdOf } from "./kinds/registry.js";
import type { CommittedBlock, LedgerApp } from "./ledgerApp.js";
import type { PreparedBase } from "./txKind.js";
import type { Rejection } from "../errors/ledgerError.js";
import { ruleHeightsOf } from "./protocol.js";
import { checkSignedHeader, type SignedHeader, type TrustedValidator } from "../proofs/cometHeader.js";
import { inBulkLoad, type LedgerStore, type StoredSignedHeader, type Validator } from "../store/store.js";
import { chunkHash, ChunkLines, readBlockLine, snapshotFormat, type SnapshotLine, type SnapshotMetadata } from "./snapshotFormat.js";

/** The first pass: the chunks in order, checked against the trusted app hash. */
export class SnapshotVerifier {
  private readonly lines = new ChunkLines();
  private height = 0;
  private txs = 0;

  private constructor(
    private readonly metadata: SnapshotMetadata,
    private readonly trustedAppHash: string,
    private readonly commitment: ChainCommitment,
    private readonly held: HeldLedger | null,
    private readonly format: number,
  ) {}

  /**
   * `trustedAppHash`: the app hash after the snapshot's height that the light client verified,
   * hex. `held`: where the ledger a stopped restore left stands, which the snapshot must pass
   * through for the restore to resume from it. `format`: the snapshot's (ABCI Snapshot.format).
   */
  static async start(metadata: SnapshotMetadata, trustedAppHash: string, held: HeldLedger | null = null, format = snapshotFormat): Promise<SnapshotVerifier> {
    const empty = { commitment: "v1" as const, appHash: "", historySize: 0 };
    const commitment = await ChainCommitment.open({ getHistoryNodes: () => Promise.resolve([]) }, empty);
    return new SnapshotVerifier(metadata, trustedAppHash, commitment, held, format);
  }

  /** The next chunk: null when its blocks hold together so far, else why the snapshot is refused. */
  chunk(bytes: Uint8Array): string | null {
    const lines = this.lines.push(bytes);
    if (typeof lines === "string") return lines;
    for (const text of lines) {
      const line = readBlockLine(text, this.format);
      if (typeof line === "string") return line;
      const wrong = this.block(line);
      if (wrong !== null) return wrong;
    }
    return null;
  }

  private block(line: BlockLine): string | null {
    if (line.height !== this.height + 1) return `block ${line.height} follows block ${this.height}`;
    if (line.height > this.metadata.height) return `block ${line.height} is past the snapshot's height ${this.metadata.height}`;
    const ids: string[] = [];
    for (const [i, json] of line.txs.entries()) {
      const id = restoredIdOf(json);
      if (id === null) return `block ${line.height}: transaction ${i} hashes to no id`;
      ids.push(id);
    }
    const staged = this.commitment.next(line.height, ids);
    // Not trusted, but a line that disagrees with itself is refused at once.
    if (staged.appHash !== line.app_hash) return `block ${line.height}: app hash ${line.app_hash || '""'} in the snapshot, ${staged.appHash || '""'} recomputed`;
    if (line.height === this.held?.height && staged.appHash !== this.held.appHash) {
      return `this node's ledger holds blocks up to ${line.height} of another history (app hash ${this.held.appHash || '""'} there, the snapshot's ${staged.appHash || '""'}): remove it and join again (docs/state-sync.md)`;
    }
    this.commitment.advance(staged);
    this.height = line.height;
    this.txs += ids.length;
    return null;
  }

  /** After the last chunk: null when the blocks reach the snapshot's height and the trusted app hash. */
  finish(): string | null {
    if (!this.lines.ended) return "the last chunk ends inside a line";
    if (this.height !== this.metadata.height) return `the chunks hold blocks up to ${this.height}, the snapshot's height is ${this.metadata.height}`;
    if (this.txs !== this.metadata.txs) return `the chunks hold ${this.txs} transactions, the metadata says ${this.metadata.txs}`;
    const recomputed = this.commitment.appHash;
    if (recomputed !== this.trustedAppHash) {
      return `the ledger's app hash is ${recomputed || '""'} recomputed from its transactions, the light client verified ${this.trustedAppHash || '""'}`;
    }
    return null;
  }
}

/** The height and app hash of the ledger a node holds when a snapshot is offered. */
export interface HeldLedger {
  readonly height: number;
  readonly appHash: string;
}

/**
 * The second pass, on a snapshot the first accepted: the chain begun with the snapshot's first
 * validator set, then every block restored (LedgerApp.restoreBlock). Into an empty ledger, or
 * one a stopped restore left, which the first pass found on the snapshot's chain: its blocks are
 * kept and the restore goes on after them. Ends at the snapshot's height and app hash, or throws.
 */
export async function restoreSnapshot(
  ledger: LedgerApp,
  metadata: SnapshotMetadata,
  chunks: AsyncIterable<Uint8Array>,
  headers: SnapshotHeaders,
  format = snapshotFormat,
): Promise<void> {
  const rules = { appVersion: BigInt(metadata.app_version), ruleHeights: ruleHeightsOf(metadata.rule_heights) };
  if (ledger.chain === null) await ledger.initChain(metadata.chain_id, metadata.validators, "v1", rules);
  // One bulk load (LedgerStore.beginBulkLoad): the blocks durable together at its end, not each
  // on its own. A node stopped before then holds part of a ledger either way (docs/state-sync.md).
  await inBulkLoad(headers.store, { restore: true }, () => restoreBlocks(ledger, metadata, chunks, headers, format));
  const { height, appHash } = ledger.info();
  if (height !== metadata.height || appHash !== metadata.app_hash) {
    throw new Error(`the restore ended at height ${height}, app hash ${appHash}; the snapshot is of ${metadata.height}, ${metadata.app_hash}`);
  }
}

async function restoreBlocks(ledger: LedgerApp, metadata: SnapshotMetadata, chunks: AsyncIterable<Uint8Array>, headers: SnapshotHeaders, format: number): Promise<void> {
  const lines = new ChunkLines();
  // Blocks a stopped restore wrote stay (the first pass found them on the snapshot's chain).
  const held = ledger.info().height;
  const sets = new RestoreValidators(headers.store);
  let verified: StoredSignedHeader[] = [];
  let index = 0;
  for await (const chunk of chunks) {
    // The bytes the first pass checked, so their ids need no hashing again (prepareRestored).
    if (chunkHash(chunk) !== metadata.chunks[index]) throw new Error(`chunk ${index} is not the one the first pass checked`);
    index++;
    const texts = lines.push(chunk);
    if (typeof texts === "string") throw new Error(texts);
    for (const text of texts) {
      const line = readBlockLine(text, format);
      if (typeof line === "string") throw new Error(line);
      if (line.height > held) {
        const block = await restoreLine(ledger, line, headers);
        sets.restored(block.height, block.validators);
      } else sets.held();
      if (line.signed_header === undefined) continue;
      const appHash = line.height > held ? ledger.info().appHash : line.app_hash;
      const validators = await sets.at(line.height);
      const kept = checkedHeader(headers, metadata.chain_id, line.height, appHash, line.signed_header, validators);
      if (kept !== null) verified.push(kept);
      if (verified.length < signedHeadersPerWrite) continue;
      await headers.store.putSignedHeaders(verified);
      verified = [];
    }
  }
  if (verified.length > 0) await headers.store.putSignedHeaders(verified);
}

/** Where a restore keeps the snapshot's signed headers, and whom it tells of one it refuses. */
export interface SnapshotHeaders {
  readonly store: Pick<LedgerStore, "putSignedHeaders" | "getValidators" | "beginBulkLoad" | "endBulkLoad">;
  readonly onRefused: (height: number, reason: string) => void;
  /** Told of a transaction the snapshot says its block refused that the rules let pass (left out). */
  readonly onNotRefused?: (height: number, id: string) => void;
}

/**
 * A line's block restored: its valid transactions as restored ones (their ids bound by the app
 * hash), the refused ones with every check (outside it), each where the block carried it, so
 * that execution refuses and records them as it did on the nodes that executed the block.
 */
async function restoreLine(ledger: LedgerApp, line: SnapshotLine, headers: SnapshotHeaders): Promise<CommittedBlock> {
  const carried = line.refused ?? [];
  const prepared: (PreparedBase | Rejection)[] = [];
  const refused: number[] = [];
  let next = 0;
  for (let at = 0; at <= line.txs.length; at++) {
    for (; carried[next]?.at === at; next++) {
      refused.push(prepared.length);
      prepared.push(ledger.prepareRefused(carried[next]!.tx));
    }
    if (at < line.txs.length) prepared.push(ledger.prepareRestored(line.txs[at]!));
  }
  const block = await ledger.restoreBlock(line.height, prepared, misbehaviorOfLine(line), refused);
  for (const id of block.leftOut) headers.onNotRefused?.(line.height, id);
  return block;
}

/** Signed headers stored in one write (as signedHeaderKeeper.ts batches them). */
const signedHeadersPerWrite = 64;

/**
 * The signed header of `height + 1` a block's line carried, to keep when it carries the app hash
 * restored after `height` and more than two thirds of the set that signed it did: CometBFT's set
 * at `height + 1`, which is the ledger's at `height` (CometBFT applies a concluded election's
 * change a block later than the ledger, docs/compatibility.md #11). The snapshot is not trusted
 * for them: one that does not verify is not kept (its proofs then fall back on CometBFT's RPC).
 */
function checkedHeader(
  headers: SnapshotHeaders,
  chainId: string,
  height: number,
  appHash: string,
  json: string,
  validators: readonly TrustedValidator[],
): StoredSignedHeader | null {
  let reason: string | null;
  try {
    reason = checkSignedHeader(JSON.parse(json) as SignedHeader, { height: height + 1, appHash, chainId }, validators);
  } catch {
    reason = "it is not JSON";
  }
  if (reason === null) return { height: height + 1, json };
  headers.onRefused(height + 1, reason);
  return null;
}

/**
 * The ledger's validator set as a restore goes, which each kept header is checked against: read
 * from the store once, then followed through the changes of the blocks the restore commits (a
 * read per change of the set, not per header). The changes of blocks a stopped restore wrote
 * were not seen: at those it reads the store each time.
 */
export class RestoreValidators {
  private current: readonly TrustedValidator[] | null = null;
  private next: { readonly from: number; readonly validators: readonly TrustedValidator[] } | null = null;

  constructor(private readonly store: Pick<LedgerStore, "getValidators">) {}

  /** A block the restore committed; `validators`, when it changed the set: the new one, from `height + 1`. */
  restored(height: number, validators: readonly Validator[] | undefined): void {
    if (validators !== undefined) this.next = { from: height + 1, validators: trustedOf(validators) };
  }

  /** A block a stopped restore wrote, whose change, if any, is not known here. */
  held(): void {
    this.current = null;
    this.next = null;
  }

  /** The set at `height`, the last block committed or held (heights only go up). */
  async at(height: number): Promise<readonly TrustedValidator[]> {
    if (this.next !== null && height >= this.next.from) {
      this.current = this.next.validators;
      this.next = null;
    }
    this.current ??= trustedOf(await this.store.getValidators(height));
    return this.current;
  }
}

function trustedOf(validators: readonly Validator[]): TrustedValidator[] {
  return validators.map((v) => ({ publicKey: Buffer.from(v.publicKey, "hex"), power: BigInt(v.power) }));
}
