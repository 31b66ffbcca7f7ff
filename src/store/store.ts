// The Store interface: everything the ledger and the HTTP API read and write, in roles (at the
// end: LedgerStore, ChainReads, ApiReads, StoreLifecycle), each consumer taking only its own.
//
// One interface, several backends (`sqlite/`, `postgres/`), one conformance suite
// (`test/unit/store/conformance.ts`) that every backend passes unchanged. The interface is
// async so that a networked backend fits; the SQLite backend answers synchronously inside.
//
// Text (JSON) is stored and returned as text: the HTTP layer writes it into responses without
// parsing it again, which keeps reads cheap.

import type { CommittedLegacyOutput, CommittedLegacyTx, LegacyInvalidTx, LegacyOutputRef } from "../legacy/committed.js";
import type { CommittedOutput, CommittedTx, Operation, OutputRef } from "../transaction/committed.js";
import type { CommitmentVersion } from "../proofs/commitment.js";
import type { PerfectNode } from "../proofs/history.js";
import type { FieldFilter } from "./fieldQuery.js";

/** An output as the validator sees it when a transaction tries to spend it. */
export interface StoredOutput extends CommittedOutput {
  readonly transactionId: string;
  readonly assetId: string;
  /** The id of the committed transaction that spent it, or null while unspent. */
  readonly spentBy: string | null;
}

export interface Validator {
  /** The Ed25519 public key, 64 lowercase hex characters. */
  readonly publicKey: string;
  readonly power: number;
}

/** A validator set and the height it is in force from (it stays so until the next set's height). */
export interface ValidatorSet {
  readonly height: number;
  readonly validators: readonly Validator[];
}

/**
 * A validator election (docs/compatibility.md #11), as the ledger records it: what it proposes,
 * its votes so far and whether it concluded. The votes are those of committed VOTEs naming it.
 */
export interface ElectionRecord {
  readonly id: string;
  /** The height of the block that carried it. */
  readonly height: number;
  /** The validator it adds, changes or removes: the Ed25519 key as 64 lowercase hex digits. */
  readonly validatorKey: string;
  readonly power: number;
  readonly nodeId: string;
  /** All the voting power it handed out (its outputs' total). */
  readonly total: bigint;
  /** The committed votes for it. */
  readonly votes: bigint;
  /** The height of the block whose votes concluded it, or null. */
  readonly concludedAt: number | null;
}

/** What CometBFT proved a validator did (docs/http-api.md "Evidence"): ABCI's misbehavior kinds. */
export type EvidenceType = "duplicate_vote" | "light_client_attack" | "unknown";

/**
 * Evidence of a validator's misbehavior that a block carried (ABCI 2.0 FinalizeBlock's
 * `misbehavior`), as the ledger records it. It is CometBFT's to prove and to commit (the block
 * header's evidence hash covers it); the ledger keeps it beside the block, outside its app hash.
 */
export interface Evidence {
  /** The height of the block that carried it. */
  readonly height: number;
  /** Its place in that block's list, from 0. */
  readonly index: number;
  readonly type: EvidenceType;
  /** The validator's address: the first 20 bytes of SHA-256 of its key, 40 uppercase hex digits. */
  readonly validatorAddress: string;
  /** The validator's voting power at the infraction. */
  readonly power: number;
  /** The height of the infraction. */
  readonly infractionHeight: number;
  /** The time of the infraction, RFC 3339 in UTC with CometBFT's nanoseconds when not 0. */
  readonly time: string;
  /** The whole validator set's voting power at the infraction. */
  readonly totalPower: number;
}

/** Evidence, and where it is in a paged read. */
export interface EvidenceEntry extends Evidence {
  /** Give it as `after` to continue after this evidence. */
  readonly position: string;
}

/** How a bulk load (Store.beginBulkLoad) will go. */
export interface BulkLoadOptions {
  /** A state-sync restore's: thousands of blocks in one load, not a catch-up's few. */
  readonly restore?: boolean;
}

/** CometBFT's signed header of `height`, as the JSON its RPC's `/commit` showed (`signed_header`). */
export interface StoredSignedHeader {
  readonly height: number;
  readonly json: string;
}

export interface ChainState {
  /** Height of the last committed block; 0 before the first. */
  readonly height: number;
  /** App hash after the last committed block, 64 hex characters; "" before the first. */
  readonly appHash: string;
  /** The chain id given at initChain, or null before it. */
  readonly chainId: string | null;
  /** The app hash's rule (docs/proofs.md): `v1` for a chain begun by this version, else `bigchaindb`. */
  readonly commitment: CommitmentVersion;
  /** The history tree's size (blocks with a valid transaction) after the last block; 0 on a `bigchaindb` chain. */
  readonly historySize: number;
  /**
   * The protocol version the chain's genesis starts its blocks with (docs/upgrades.md), recorded
   * at initChain; null before it, and on a chain begun before the store recorded it (schema 7).
   */
  readonly appVersion: bigint | null;
  /** The height at which each named rule change switches on, from the genesis; empty if none. */
  readonly ruleHeights: ReadonlyMap<string, number>;
}

/** What a chain's genesis says of its rules besides the app hash's (docs/upgrades.md). */
export type ChainRules = Pick<ChainState, "appVersion" | "ruleHeights">;

/** Where a perfect subtree of the history tree is (proofs/history.ts). */
export interface NodePlace {
  readonly level: number;
  readonly index: number;
}

export interface BlockWrite {
  readonly height: number;
  readonly appHash: string;
  /** Only the transactions that passed validation, in block order. */
  readonly txs: readonly CommittedTx[];
  /**
   * On a `v1` chain, every block: the history's size after it and the perfect subtrees the
   * block completed (none when it held no valid transaction). Absent on a `bigchaindb` chain.
   */
  readonly history?: {
    readonly size: number;
    readonly nodes: readonly PerfectNode[];
    /** The block tree's perfect subtrees of 64 leaves and more (proofs/blockTree.ts). */
    readonly blockNodes: readonly PerfectNode[];
  };
  /** When the block changed the validator set: the whole new set, effective from `height + 1`. */
  readonly validators?: readonly Validator[];
  /** The elections the block started or whose votes or state it changed, each whole. */
  readonly elections?: readonly ElectionRecord[];
  /** Only when the block carried legacy transactions (valid or not); absent costs nothing. */
  readonly legacy?: LegacyBlockWrite;
  /** The evidence the block carried, in its order (`index` 0, 1, ...); absent or empty: none. */
  readonly evidence?: readonly Evidence[];
}

// Legacy transactions (docs/compatibility.md #13-#16): BigchainDB's earlier interface variants A
// and B. They share blocks with the v2.0 transactions above but nothing else: their own ids
// (Keccak-256), their own outputs (keyed by `cid`), one spent index for both variants. No v2.0 read
// (getBlock, getTransaction, ...) ever returns one, and no legacy read returns a v2.0 transaction.

export interface LegacyBlockWrite {
  /** The valid ones, in block order. */
  readonly txs: readonly CommittedLegacyTx[];
  /** The refused ones, in block order. An id may be refused again in a later block. */
  readonly invalid: readonly LegacyInvalidTx[];
}

/** A legacy output as the validator sees it when a transaction tries to spend it. */
export interface StoredLegacyOutput extends CommittedLegacyOutput {
  readonly txid: string;
  /** The id of the committed legacy transaction that spent it, or null while unspent. */
  readonly spentBy: string | null;
}

/** A legacy transaction a block carried and execution refused, as a snapshot carries it. */
export interface RefusedLegacyTx {
  readonly height: number;
  /** The valid transactions of its block before it (LegacyInvalidTx.position). */
  readonly position: number;
  readonly json: string;
}

/** What the store knows of a legacy id: committed (valid), or only refused at execution. */
export type LegacyRecord =
  | { readonly status: "valid"; readonly height: number }
  | { readonly status: "invalid"; readonly height: number; readonly code: string; readonly message: string };

export interface BlockRecord {
  readonly height: number;
  readonly appHash: string;
  readonly txIds: readonly string[];
  /** The history tree's size after the block; null on a `bigchaindb` chain. */
  readonly historySize: number | null;
}

/**
 * A committed block as the event streams replay it (events/streamServer.ts): its app hash and its
 * v2.0 transactions' ids and asset ids, in block order (the transactions the stream carries).
 */
export interface StreamBlockRecord {
  readonly height: number;
  readonly appHash: string;
  readonly txs: readonly { readonly id: string; readonly assetId: string }[];
}

/** How much one read of getStreamBlocks gives at most. */
export interface StreamBlockPage {
  readonly blocksMax: number;
  /** No block is added once the page holds this many transactions; the first block always is. */
  readonly txsMax: number;
}

/** A stored transaction as a block holds it, for re-checking the chain (verify-chain). */
export interface StoredBlockTx {
  /** The name of its kind (txKind.ts): `v2` or `legacy`. */
  readonly kind: "v2" | "legacy";
  /** The id it is stored under. */
  readonly id: string;
  /** The transaction as stored. */
  readonly json: string;
}

/** A block as stored: its app hash and every valid transaction of every kind, in block order. */
export interface BlockContents {
  readonly height: number;
  readonly appHash: string;
  readonly txs: readonly StoredBlockTx[];
  /** The history tree's size after the block; null on a `bigchaindb` chain. */
  readonly historySize: number | null;
  /** The evidence it carried, in its order (export and migrate-store copy it). */
  readonly evidence: readonly Evidence[];
}

/** A block's transactions re-derived from their stored JSON: what commitBlock was given for them. */
export type DerivedBlock = Pick<BlockWrite, "height" | "txs" | "legacy">;

/**
 * verify-chain's check of every row a store derived from the transactions (its outputs, spends,
 * indexes, search text, field index), against the transactions re-derived from their JSON.
 * It reads one snapshot of the store from its opening to `close`, so that a writer running
 * beside it moves nothing under it. Each answer is null when all agree, else the first row
 * that does not, named by its table and transaction.
 */
export interface DerivedCheck {
  /** The rows derived from this block's transactions (blocks in order, from the one opened at). */
  block(block: DerivedBlock): Promise<string | null>;
  /** After the last block: no table holds a row of the checked range that no transaction gave. */
  finish(): Promise<string | null>;
  close(): Promise<void>;
}

export interface SearchHit {
  readonly id: string;
  /** The asset data or metadata object, compact JSON. */
  readonly json: string;
}

/** A document that holds every filter of a query by field (docs/compatibility.md #25). */
export interface FieldHit extends SearchHit {
  /** Where the hit is in commit order, in the backend's own words: give it as `after`. */
  readonly position: string;
}

/**
 * Where a paged read starts and how much it reads (docs/http-api.md "Paging"). A paged read
 * answers as of a snapshot, the last transaction committed when its first page was read: a
 * position carries it, so that every page of a walk sees the same ledger (nothing committed
 * later, spent-ness as of then), whatever commits meanwhile.
 */
export interface PageOptions {
  /**
   * An item's `position`, as this store gave it: the read continues after that item, as of the
   * same snapshot. Any other text is a LedgerError BadParameter, from the first `next()`.
   */
  readonly after?: string;
  /** At most this many items (undefined: all). */
  readonly limit?: number;
}

/** An output of a key, with what it holds and where it is in a paged read. */
export interface OutputEntry extends OutputRef {
  /** The amount, a decimal string as in the transaction. */
  readonly amount: string;
  readonly assetId: string;
  /** Give it as `after` to continue after this output. */
  readonly position: string;
}

/** A transaction of an asset's history, and where it is in a paged read. */
export interface HistoryEntry {
  /** The transaction as posted, compact JSON. */
  readonly json: string;
  /** Give it as `after` to continue after this transaction. */
  readonly position: string;
}

/** The unspent amount one key alone holds of one asset (docs/http-api.md "Balances"). */
export interface Balance {
  readonly assetId: string;
  /** The sum, a decimal string (it may pass 2^64). */
  readonly amount: string;
  /** Give it as `after` to continue with the next asset (in asset id order). */
  readonly position: string;
}

/**
 * A long answer, read a batch at a time (one `next()`, one bounded read), as of the moment the
 * read began: a reader takes its answer in pieces, so that no single read holds the node or
 * builds a whole answer in memory. A batch may be empty while more follow. Errors a client
 * caused (a bad search) come from the first `next()`. Stop early with `return()`.
 */
export type Batches<T> = AsyncIterableIterator<readonly T[]>;

// The Store in roles, each sized to the code that uses it: a consumer takes the role(s) it
// needs, so that what a layer may read or write is written in its types. A backend implements
// `Store`, every role at once.

/** Reads both the ledger and the chain's readers make: the head, the validators, the history tree. */
export interface SharedReads {
  getChainState(): Promise<ChainState>;
  /** The validator set in force at `height` (default: the latest). */
  getValidators(height?: number): Promise<Validator[]>;
  /** getValidators with the height the set is in force from; null before initChain. */
  getValidatorSet(height?: number): Promise<ValidatorSet | null>;
  /** The records of the elections among these ids (ids of other transactions are absent). */
  getElections(ids: readonly string[]): Promise<Map<string, ElectionRecord>>;
  /** The hashes of these perfect subtrees of the history tree, in order; null where none is stored. */
  getHistoryNodes(places: readonly NodePlace[]): Promise<(Uint8Array | null)[]>;
  /**
   * CometBFT's signed header and commit of `height` as its RPC's `/commit` showed it
   * (`signed_header`, compact JSON), kept so that proofs outlive CometBFT's pruning; null if not kept.
   */
  getSignedHeader(height: number): Promise<string | null>;
  /** The highest height whose signed header is kept, 0 if none. */
  getSignedHeaderHeight(): Promise<number>;
}

/** What the ledger reads to validate a block and what it commits. */
export interface LedgerStore extends SharedReads {
  /**
   * Records the chain id, the first validator set (effective from height 1), the app hash's
   * rule (default `v1`) and the genesis's other rules (default: none recorded, no rule heights).
   * Once only, before the first block.
   */
  initChain(chainId: string, validators: readonly Validator[], commitment?: CommitmentVersion, rules?: ChainRules): Promise<void>;
  /**
   * Writes one block and everything derived from it in one database transaction: all or nothing.
   * The height must be the last committed height + 1 (asserted). Empty blocks are stored too.
   * A spend of a missing or spent output, or an id stored twice, of either kind, is asserted.
   */
  commitBlock(block: BlockWrite): Promise<void>;
  /**
   * A bulk load (a state-sync restore, docs/state-sync.md) begins: until `endBulkLoad`, a
   * backend may make each commitBlock visible to this store's own reads without making it
   * durable (SQLite: many blocks in one transaction, no fsync; PostgreSQL: asynchronous commit).
   * Reads of this store see every block committed so far; a crash may lose the last ones. Not
   * nested; no other writer runs meanwhile. `options.restore`: the load is a restore's, of a
   * whole ledger's blocks (not a catch-up's short batch), so a backend may hold upkeep it does a
   * block to the load's commits (SQLite: the deferred indexes' merges).
   */
  beginBulkLoad(options?: BulkLoadOptions): Promise<void>;
  /** Ends a bulk load: every block committed since `beginBulkLoad` is durable when it resolves. */
  endBulkLoad(): Promise<void>;
  /** Keeps signed headers (see getSignedHeader), in one write; a height kept already is left as it is. */
  putSignedHeaders(headers: readonly StoredSignedHeader[]): Promise<void>;
  /**
   * Records the protocol version the chain's genesis starts with where the chain state has none
   * (a chain begun before schema 7, whose genesis the engine reads later); a recorded one stays.
   */
  recordAppVersion(appVersion: bigint): Promise<void>;

  // Reads the validator uses (batched: one call per block, not per input).
  /** Which of these ids are committed transactions. */
  findTransactions(ids: readonly string[]): Promise<Set<string>>;
  /** The committed outputs among these references, keyed by `outputKey`; missing ones are absent. */
  getOutputs(refs: readonly OutputRef[]): Promise<Map<string, StoredOutput>>;

  // Legacy transactions (see above). Reads of the validator, batched as the v2.0 ones.
  /** Which of these ids are committed legacy transactions. */
  findLegacyTransactions(ids: readonly string[]): Promise<Set<string>>;
  /** The committed legacy outputs among these, keyed by `legacyOutputKey`; missing ones are absent. */
  getLegacyOutputs(refs: readonly LegacyOutputRef[]): Promise<Map<string, StoredLegacyOutput>>;
}

/** The chain as stored: blocks, validators, elections and the proofs' tree nodes. */
export interface ChainReads extends SharedReads {
  getBlock(height: number): Promise<BlockRecord | null>;
  /** The height of the block that holds this transaction, or null. */
  getBlockHeightOfTransaction(id: string): Promise<number | null>;
  /** A block's app hash and valid transactions of both kinds in block order, or null. */
  getBlockContents(height: number): Promise<BlockContents | null>;
  /**
   * The legacy transactions that blocks `from` to `to` carried and execution refused, whose
   * bodies are kept (recorded since schema 8 (SQLite), 7 (PostgreSQL)), by height then block
   * order: what a state-sync snapshot carries for a restore to execute again.
   */
  getRefusedLegacyTxs(from: number, to: number): Promise<RefusedLegacyTx[]>;
  /** A block's app hash and history size, without its transactions; null when there is no such block. */
  getBlockHead(height: number): Promise<Omit<BlockRecord, "txIds"> | null>;
  /** The ids of a block's valid transactions of both kinds in block order (its contents' ids), or null. */
  getBlockIds(height: number): Promise<string[] | null>;
  /** The validator sets in force from heights `from` to `to`, in height order, at most `limit`: where the set changed. */
  getValidatorSetsFrom(from: number, to: number, limit: number): Promise<ValidatorSet[]>;
  /**
   * The stored blocks from height `from` on, in height order, as one snapshot, for the event
   * streams' replay (StreamBlockPage bounds it). A height the store lacks (below the oldest it
   * holds) is not there: the caller sees the first block's height differ from `from`.
   */
  getStreamBlocks(from: number, page: StreamBlockPage): Promise<StreamBlockRecord[]>;
  /** The same of the tree of the block at `height`. */
  getBlockNodes(height: number, places: readonly NodePlace[]): Promise<(Uint8Array | null)[]>;
  /** Opens a DerivedCheck whose first block is at height `from` (the store must hold it). */
  openDerivedCheck(from: number): Promise<DerivedCheck>;
  /**
   * The evidence blocks carried, in commit order (by block height, then place in the block);
   * with `height`, only that block's. Paged (PageOptions): a walk reads the chain as of the
   * height committed when its first page was read.
   */
  streamEvidence(height: number | undefined, page?: PageOptions): Batches<EvidenceEntry>;
  /**
   * `valid` with its height when committed; otherwise `invalid` with the latest refusal when
   * a block carried it and execution refused it; otherwise null.
   */
  getLegacyRecord(id: string): Promise<LegacyRecord | null>;
}

/** The HTTP API's reads of transactions: by id, paged, and searched, in batches (see Batches). */
export interface ApiReads {
  /** The committed transaction as posted (compact JSON), or null. */
  getTransaction(id: string): Promise<string | null>;
  /** The committed legacy transaction as stored (compact JSON), or null. */
  getLegacyTransaction(id: string): Promise<string | null>;
  /**
   * Transactions of an asset in commit order: its CREATE and every TRANSFER of it. With
   * `operation` only those; with `lastOnly` only the last one that matches.
   */
  streamTransactionsByAsset(
    assetId: string,
    options?: { operation?: Operation; lastOnly?: boolean },
  ): Batches<string>;
  /**
   * Outputs whose condition names this key anywhere, in commit order. `spent` true: only spent;
   * false: only unspent; undefined: all.
   */
  streamOutputsByPublicKey(publicKey: string, spent?: boolean): Batches<OutputRef>;
  /**
   * Text search over asset data (docs/compatibility.md #12), best match first; `limit`
   * undefined means all (a number must be 1 or more).
   */
  streamSearchAssets(query: string, limit: number | undefined): Batches<SearchHit>;
  /** The same over metadata. */
  streamSearchMetadata(query: string, limit: number | undefined): Batches<SearchHit>;
  /**
   * Asset data (`assets`, CREATEs only) or metadata documents that hold every filter as an
   * indexed leaf (fieldQuery.ts), in commit order, paged (PageOptions).
   */
  streamFieldMatches(kind: "assets" | "metadata", filters: readonly FieldFilter[], page?: PageOptions): Batches<FieldHit>;
  /**
   * The outputs of a key as streamOutputsByPublicKey finds them, same order, with amounts,
   * asset ids and positions, paged (PageOptions; spent-ness as of the page's snapshot).
   */
  streamOutputEntries(publicKey: string, spent: boolean | undefined, page?: PageOptions): Batches<OutputEntry>;
  /** streamTransactionsByAsset (not `lastOnly`) with positions, paged (PageOptions). */
  streamAssetHistory(assetId: string, operation: Operation | undefined, page?: PageOptions): Batches<HistoryEntry>;
  /**
   * A text search, paged: hits ranked as streamSearchAssets/streamSearchMetadata rank them, among
   * the matches committed up to the walk's snapshot; `page.limit` must be given (1 or more).
   */
  streamSearchPage(kind: "assets" | "metadata", query: string, page: PageOptions & { limit: number }): Batches<FieldHit>;
  /**
   * What `publicKey` alone may spend (outputs with the plain Ed25519 condition of that one key,
   * unspent), summed per asset, in asset id order; with `assetId` that asset only (read through
   * that asset, not every output of the key). Paged (PageOptions) by asset: a page holds whole
   * sums, never part of one asset's; a batch may be empty while sums are being added up.
   */
  streamBalances(publicKey: string, assetId: string | undefined, page?: PageOptions): Batches<Balance>;
  /** The transactions of a block as posted, in block order, in batches; null when there is no such block. */
  streamBlockTransactions(height: number): Promise<Batches<string> | null>;
}

/** The store as a running node holds it: what it is, how big, and its end. */
export interface StoreLifecycle {
  /** The backend's name, e.g. `sqlite`. */
  readonly backend: string;
  /** The bytes the store takes on disk, for the metrics (`ledgerd_store_size_bytes`). */
  sizeBytes(): Promise<number>;
  close(): Promise<void>;
  /**
   * Calls `listener` the first time a read finds the database damaged (docs/errors.md
   * StoreDamaged), so that the node stops; the read itself fails with that error. Backends that
   * cannot tell a damaged file from another failure have none.
   */
  onDamaged?(listener: (error: Error) => void): void;
}

/** Every role at once: what a backend implements (one conformance suite holds them all). */
export interface Store extends LedgerStore, ChainReads, ApiReads, StoreLifecycle {}

/**
 * Runs `work` inside one bulk load of `store`, ended whether or not `work` succeeds (what it
 * wrote is made durable either way). When it fails its own error is thrown: ending the load
 * after it can fail of the same cause (a full disk, a server gone), and that error says less.
 */
export async function inBulkLoad<T>(
  store: Pick<LedgerStore, "beginBulkLoad" | "endBulkLoad">,
  options: BulkLoadOptions,
  work: () => Promise<T>,
): Promise<T> {
  await store.beginBulkLoad(options);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await store.endBulkLoad().catch(() => undefined);
    throw error;
  }
  await store.endBulkLoad();
  return result;
}
