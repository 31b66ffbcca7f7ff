// State sync through CometBFT v0.38's ABCI snapshot calls (docs/state-sync.md). Serving: a
// snapshot of the ledger every `engine.snapshot_interval` blocks, taken in the background from
// committed blocks (no commit waits for it), the last `engine.snapshot_keep` kept as files
// (snapshotFiles.ts), listed by ListSnapshots and read by LoadSnapshotChunk. Restoring, on a
// node CometBFT state-syncs: OfferSnapshot checks what a snapshot says of itself against this
// node's chain, ApplySnapshotChunk checks each chunk's hash (a bad one is fetched again from
// another peer, its sender refused) and the blocks against the app hash CometBFT's light client
// verified, and only then writes the ledger (ledger/snapshotRestore.ts).
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import {
  ResponseApplySnapshotChunk_Result as ApplyResult,
  ResponseOfferSnapshot_Result as OfferResult,
  type RequestApplySnapshotChunk,
  type RequestLoadSnapshotChunk,
  type RequestOfferSnapshot,
  type ResponseApplySnapshotChunk,
  type ResponseListSnapshots,
  type ResponseLoadSnapshotChunk,
  type ResponseOfferSnapshot,
} from "cosmjs-types/tendermint/abci/types";
import type { LedgerApp } from "../../ledger/ledgerApp.js";
import { protocolVersion, protocolVersionAt, ruleHeightsFor, ruleHeightsOf } from "../../ledger/protocol.js";
import { chunkHash, readMetadata, snapshotFormatsRestored, snapshotHash, type SnapshotMetadata } from "../../ledger/snapshotFormat.js";
import { restoreSnapshot, SnapshotVerifier } from "../../ledger/snapshotRestore.js";
import { takeSnapshot } from "../../ledger/snapshotTake.js";
import type { ChainReads, LedgerStore, Validator } from "../../store/store.js";
import type { SnapshotFiles, SnapshotWriter } from "./snapshotFiles.js";

export interface SnapshotSyncOptions {
  /** A snapshot every this many blocks (at heights that are multiples of it); 0: none taken or served. */
  readonly intervalBlocks: number;
  /** Snapshots kept, the latest. */
  readonly keep: number;
  /** This node's chain (engine.chain_id): a snapshot of another is refused. */
  readonly chainId: string;
}

/** This node's CometBFT genesis: its chain id and first validator set. */
export interface GenesisFacts {
  readonly chainId: string;
  readonly validators: readonly Validator[];
}

export interface SnapshotSyncDeps {
  readonly files: SnapshotFiles;
  readonly store: ChainReads;
  readonly ledger: LedgerApp;
  /** Reads this node's CometBFT genesis (its RPC's `genesis`), which a snapshot's first set must be. */
  readonly genesis: () => Promise<GenesisFacts>;
  /** CometBFT's signed header of a height as compact JSON (the store's copy, else its RPC's), or null. */
  readonly signedHeader?: (height: number) => Promise<string | null>;
  /** Where a restore keeps the snapshot's signed headers. */
  readonly headerStore: Pick<LedgerStore, "putSignedHeaders" | "getValidators" | "beginBulkLoad" | "endBulkLoad">;
  readonly logger?: Pick<Logger, "info" | "warn">;
}

/** A snapshot being restored: what OfferSnapshot accepted, and the chunks applied so far. */
interface Restoring {
  readonly metadata: SnapshotMetadata;
  /** Its ABCI format (snapshotFormatsRestored). */
  readonly format: number;
  readonly verifier: SnapshotVerifier;
  readonly dir: string;
  applied: number;
  /** Time spent in the first pass so far (the chunks' checks). */
  checkMs: number;
}

export class SnapshotSync {
  /** The snapshot being taken, if one is. */
  private taking: Promise<void> | null = null;
  /** The node is stopping: a snapshot being taken stops at its next chunk. */
  private stopping = false;
  private restoring: Restoring | null = null;

  constructor(
    private readonly options: SnapshotSyncOptions,
    private readonly deps: SnapshotSyncDeps,
  ) {}

  /** After block `height` is durable: a snapshot begins at every interval, unless one is still being taken. */
  committed(height: number): void {
    const interval = this.options.intervalBlocks;
    if (interval === 0 || height % interval !== 0) return;
    if (this.taking !== null) {
      this.deps.logger?.warn({ height }, "no snapshot at this height: the previous one is still being taken");
      return;
    }
    this.taking = this.take(height).finally(() => {
      this.taking = null;
    });
  }

  /** Resolves once no snapshot is being taken. */
  async settled(): Promise<void> {
    await this.taking;
  }

  /** Stops a snapshot being taken (at its next chunk; it is not kept) and resolves once it has. */
  async close(): Promise<void> {
    this.stopping = true;
    await this.taking;
  }

  private async take(height: number): Promise<void> {
    const started = performance.now();
    let writer: SnapshotWriter | undefined;
    try {
      writer = await this.deps.files.writer(height);
      const metadata = await takeSnapshot(this.deps.store, height, this.chunksTo(writer), this.deps.signedHeader);
      await writer.finish(metadata);
      await this.deps.files.prune(this.options.keep);
      const ms = Math.round(performance.now() - started);
      this.deps.logger?.info({ height, chunks: metadata.chunks.length, txs: metadata.txs, ms }, "snapshot taken");
    } catch (error) {
      // A partial folder that cannot be removed now is removed at the next start.
      await writer?.abandon().catch(() => undefined);
      this.deps.logger?.warn({ height, err: error }, "snapshot not taken");
    }
  }

  /** Where a snapshot's chunks go: the writer's folder, until the node stops. */
  private chunksTo(writer: SnapshotWriter): (index: number, chunk: Buffer) => Promise<void> {
    return (index, chunk) => {
      if (this.stopping) throw new Error("the node is stopping");
      return writer.putChunk(index, chunk);
    };
  }

  /** ListSnapshots: the kept snapshots (none while snapshots are off). */
  async list(): Promise<ResponseListSnapshots> {
    if (this.options.intervalBlocks === 0) return { snapshots: [] };
    const snapshots = (await this.deps.files.list()).map((kept) => ({ ...kept, height: BigInt(kept.height) }));
    return { snapshots };
  }

  /** LoadSnapshotChunk: a kept chunk, or nothing (CometBFT then tells the peer it has none). */
  async load(request: RequestLoadSnapshotChunk): Promise<ResponseLoadSnapshotChunk> {
    if (this.options.intervalBlocks === 0) return { chunk: new Uint8Array(0) };
    const chunk = await this.deps.files.chunk(Number(request.height), request.format, request.chunk);
    return { chunk: chunk ?? new Uint8Array(0) };
  }

  /** OfferSnapshot: accepted when it can restore this node's chain to the trusted app hash. */
  async offer(request: RequestOfferSnapshot): Promise<ResponseOfferSnapshot> {
    const snapshot = request.snapshot;
    const height = Number(snapshot?.height ?? 0);
    const refuse = (result: OfferResult, reason: string): ResponseOfferSnapshot => {
      this.deps.logger?.warn({ height, format: snapshot?.format, reason }, "state sync: snapshot refused");
      return { result };
    };
    if (snapshot === undefined) return refuse(OfferResult.REJECT, "no snapshot offered");
    if (!snapshotFormatsRestored.includes(snapshot.format)) return refuse(OfferResult.REJECT_FORMAT, `format ${snapshot.format}; this node restores formats ${snapshotFormatsRestored.join(", ")}`);
    const state = this.deps.ledger.info();
    const chain = this.deps.ledger.chain;
    if (state.height !== 0 && chain === null) return refuse(OfferResult.ABORT, `this node's ledger is not empty (height ${state.height})`);
    const metadata = await this.offered(snapshot, Buffer.from(request.appHash).toString("hex"));
    if (typeof metadata === "string") return refuse(OfferResult.REJECT, metadata);
    // A ledger here is what a stopped restore left: resumed if the snapshot's chain passes through it (the first pass checks).
    if (chain !== null && (chain !== metadata.chain_id || state.height > metadata.height)) {
      return refuse(OfferResult.ABORT, `this node's ledger is not empty (chain ${chain}, height ${state.height}) and no part of this snapshot's`);
    }
    // The rules are outside the app hash: a resume goes on only under the ones the restore began with.
    if (chain !== null && !this.deps.ledger.rulesAre(BigInt(metadata.app_version), ruleHeightsOf(metadata.rule_heights))) {
      return refuse(OfferResult.ABORT, `this node's ledger began under other rules (protocol version, rule heights) than this snapshot's; remove it to restore`);
    }
    const verifier = await SnapshotVerifier.start(metadata, metadata.app_hash, chain === null ? null : state, snapshot.format);
    this.restoring = { metadata, format: snapshot.format, verifier, dir: await this.deps.files.restoring(), applied: 0, checkMs: 0 };
    this.deps.logger?.info({ height, chunks: metadata.chunks.length, txs: metadata.txs }, "state sync: snapshot accepted, restoring");
    return { result: OfferResult.ACCEPT };
  }

  /** The snapshot's metadata if this node may restore it, else why not. */
  private async offered(snapshot: NonNullable<RequestOfferSnapshot["snapshot"]>, trustedAppHash: string): Promise<SnapshotMetadata | string> {
    if (Buffer.compare(snapshotHash(snapshot.metadata), snapshot.hash) !== 0) return "its metadata does not hash to its hash";
    const metadata = readMetadata(snapshot.metadata);
    if (typeof metadata === "string") return metadata;
    if (metadata.height !== Number(snapshot.height)) return `its metadata is of height ${metadata.height}`;
    if (metadata.chunks.length !== snapshot.chunks) return `its metadata lists ${metadata.chunks.length} chunks, the snapshot ${snapshot.chunks}`;
    if (metadata.chain_id !== this.options.chainId) return `it is of chain ${metadata.chain_id}; this node's is ${this.options.chainId}`;
    // BigchainDB's rule hashes ids in a chain no proof or restore is checked against (docs/proofs.md).
    if (metadata.commitment !== "v1") return `its chain keeps BigchainDB's app hash rule (${metadata.commitment}); state sync needs commitment v1 (docs/proofs.md)`;
    // The version the chain runs after the snapshot, which this release must know how to run.
    const version = protocolVersionAt(metadata.height + 1, BigInt(metadata.app_version), ruleHeightsFor(metadata.chain_id, ruleHeightsOf(metadata.rule_heights)));
    if (version > protocolVersion) return `its chain runs protocol version ${version} after height ${metadata.height}; this release runs up to ${protocolVersion}`;
    if (metadata.app_hash !== trustedAppHash) return `it claims app hash ${metadata.app_hash || '""'}; the light client verified ${trustedAppHash || '""'}`;
    let genesis: GenesisFacts;
    try {
      genesis = await this.deps.genesis();
    } catch (error) {
      return `this node's genesis cannot be read from CometBFT's RPC (${error instanceof Error ? error.message : String(error)})`;
    }
    // The first validator set is outside the app hash: it must be this node's genesis's.
    if (genesis.chainId !== metadata.chain_id) return `it is of chain ${metadata.chain_id}; CometBFT's genesis is of ${genesis.chainId}`;
    if (!sameValidators(genesis.validators, metadata.validators)) return "its first validator set is not this node's genesis's";
    return metadata;
  }

  /** ApplySnapshotChunk: the chunk checked and kept; after the last, the ledger checked and written. */
  async apply(request: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk> {
    const answer = (result: ApplyResult, refetchChunks: number[] = [], rejectSenders: string[] = []): ResponseApplySnapshotChunk => ({ result, refetchChunks, rejectSenders });
    const restoring = this.restoring;
    if (restoring === null || request.index !== restoring.applied) {
      this.deps.logger?.warn({ index: request.index }, "state sync: a chunk out of order, or with no snapshot accepted");
      return answer(ApplyResult.ABORT);
    }
    const hash = chunkHash(request.chunk);
    if (hash !== restoring.metadata.chunks[request.index]) {
      this.deps.logger?.warn({ index: request.index, sender: request.sender, hash }, "state sync: a chunk does not hash to the snapshot's; fetched again from another peer, its sender refused");
      return answer(ApplyResult.RETRY, [request.index], request.sender === "" ? [] : [request.sender]);
    }
    const checking = performance.now();
    const wrong = restoring.verifier.chunk(request.chunk);
    restoring.checkMs += performance.now() - checking;
    if (wrong !== null) return this.rejectRestore(wrong);
    await writeChunk(join(restoring.dir, `${request.index}.chunk`), request.chunk);
    restoring.applied++;
    if (restoring.applied < restoring.metadata.chunks.length) return answer(ApplyResult.ACCEPT);
    const unfit = restoring.verifier.finish();
    if (unfit !== null) return this.rejectRestore(unfit);
    await this.restore(restoring);
    return answer(ApplyResult.ACCEPT);
  }

  /** The snapshot fails its checks: nothing was written; CometBFT tries another. */
  private async rejectRestore(reason: string): Promise<ResponseApplySnapshotChunk> {
    this.deps.logger?.warn({ height: this.restoring?.metadata.height, reason }, "state sync: snapshot refused, its ledger does not hold");
    this.restoring = null;
    await this.deps.files.doneRestoring();
    return { result: ApplyResult.REJECT_SNAPSHOT, refetchChunks: [], rejectSenders: [] };
  }

  /** The second pass: the checked chunks committed as blocks. A failure here stops the node. */
  private async restore(restoring: Restoring): Promise<void> {
    const started = performance.now();
    const { metadata, format, dir } = restoring;
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < metadata.chunks.length; i++) yield await readChunk(join(dir, `${i}.chunk`));
    }
    const onRefused = (at: number, reason: string): void => this.deps.logger?.warn({ height: at, reason }, "state sync: a snapshot's signed header not kept");
    const onNotRefused = (at: number, id: string): void =>
      this.deps.logger?.warn({ height: at, id }, "state sync: a transaction the snapshot says its block refused passes the rules: left out");
    await restoreSnapshot(this.deps.ledger, metadata, chunks(), { store: this.deps.headerStore, onRefused, onNotRefused }, format);
    this.restoring = null;
    await this.deps.files.doneRestoring();
    const seconds = (performance.now() - started) / 1000;
    this.deps.logger?.info(
      {
        height: metadata.height,
        txs: metadata.txs,
        checkSeconds: Number((restoring.checkMs / 1000).toFixed(1)),
        seconds: Number(seconds.toFixed(1)),
        txsPerSecond: Math.round(metadata.txs / seconds),
      },
      "state sync: ledger restored",
    );
  }
}

/** The same validators and powers, in any order (InitChain's is CometBFT's set order, not the genesis file's). */
function sameValidators(a: readonly Validator[], b: readonly Validator[]): boolean {
  const powers = new Map(a.map((v) => [v.publicKey, v.power]));
  return a.length === b.length && powers.size === a.length && b.every((v) => powers.get(v.publicKey) === v.power);
}

async function writeChunk(path: string, chunk: Uint8Array): Promise<void> {
  const file = await open(path, "wx");
  try {
    await file.writeFile(chunk);
  } finally {
    await file.close();
  }
}

async function readChunk(path: string): Promise<Uint8Array> {
  const file = await open(path, "r");
  try {
    return await file.readFile();
  } finally {
    await file.close();
  }
}
