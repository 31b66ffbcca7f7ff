// The CometBFT engine: ledgerd as an ABCI application behind a CometBFT v0.38 node, as a
// BigchainDB node ran behind Tendermint (docs/bigchaindb-behaviour.md §3). This folder owns:
//   abciCodec.ts   the socket framing (uvarint length + protobuf Request/Response);
//   abciServer.ts  the socket server (four connections, answers in order, Flush);
//   abciApp.ts     what each ABCI request does to the ledger;
//   rpcClient.ts   CometBFT's JSON-RPC over HTTP;
//   cometBftBroadcaster.ts  POST /transactions through `broadcast_tx_*`, mapped per
// docs/compatibility.md #5;
//   cometBftConfig.ts       the config.toml edits a node needs (used by `ledgerd testnet`).
//   signedHeaderKeeper.ts   CometBFT's signed headers kept in the store for the proofs, and
// Commit's retain_height (`engine.retain_blocks`);
//   genesisVersionReader.ts the genesis's protocol version for a store begun without it;
//   snapshotSync.ts, snapshotFiles.ts  state sync: snapshots taken, kept, served and restored.
// The node listens on ABCI first; CometBFT, started after, connects, runs the Info handshake
// (replaying the blocks the ledger lacks) and from then on drives the ledger.
import type { Logger } from "pino";
import type { Clock } from "../../clock/clock.js";
import type { LedgerApp } from "../../ledger/ledgerApp.js";
import type { ChainReads, Store, Validator } from "../../store/store.js";
import type { Door, PreparedBase } from "../../ledger/txKind.js";
import type { BroadcastMode, Broadcaster } from "../broadcaster.js";
import { readinessTimeoutMs, type EngineReadiness } from "../readiness.js";
import { LedgerAbciApp } from "./abciApp.js";
import { AbciServer, type AbciListen } from "./abciServer.js";
import { CometBftBroadcaster } from "./cometBftBroadcaster.js";
import { GenesisVersionReader } from "./genesisVersionReader.js";
import { cometBftEngineOptionsDefault, type CometBftEngineOptions } from "./options.js";
import { CometBftRpcClient, rpcResponseBytesMaxDefault } from "./rpcClient.js";
import { SignedHeaderKeeper } from "./signedHeaderKeeper.js";
import { SnapshotFiles } from "./snapshotFiles.js";
import { SnapshotSync, type GenesisFacts } from "./snapshotSync.js";
import { CometBftSignedHeaders, signedHeaderTimeoutMs } from "./signedHeaders.js";

export interface CometBftEngineDeps {
  readonly ledger: LedgerApp;
  readonly store: Pick<Store, "getTransaction" | "putSignedHeaders" | "getSignedHeaderHeight" | "getValidators" | "beginBulkLoad" | "endBulkLoad"> & ChainReads;
  /** ledgerd's version, for the Info answer. */
  readonly version: string;
  /** Called once if a block cannot be applied: a broken invariant or a failed disk. */
  readonly onFatal?: (error: unknown) => void;
  readonly logger?: Pick<Logger, "info" | "warn" | "error">;
  /** The timers of the RPC client and the ABCI app; Node's timers by default. */
  readonly clock?: Clock;
}

export class CometBftEngine implements Broadcaster, EngineReadiness {
  private stopped: Promise<void> | null = null;

  private constructor(
    private readonly server: AbciServer,
    private readonly app: LedgerAbciApp,
    private readonly rpc: CometBftRpcClient,
    private readonly broadcaster: CometBftBroadcaster,
    private readonly headers: { readonly rpc: CometBftSignedHeaders; readonly keeper: SignedHeaderKeeper },
    private readonly genesisVersion: GenesisVersionReader,
    private readonly snapshots: SnapshotSync | undefined,
  ) {}

  /** Listens for CometBFT on ABCI; broadcasts go to its RPC. */
  static async start(options: Partial<CometBftEngineOptions>, deps: CometBftEngineDeps): Promise<CometBftEngine> {
    const o: CometBftEngineOptions = { ...cometBftEngineOptionsDefault, ...options };
    const clocked = deps.clock === undefined ? {} : { clock: deps.clock };
    const rpc = new CometBftRpcClient({
      url: o.rpcUrl,
      socketsMax: o.rpcSocketsMax,
      responseBytesMax: rpcResponseBytesMaxDefault,
      batchMethods: new Set(["broadcast_tx_async", "broadcast_tx_sync"]),
      batchCallsMax: o.rpcBatchCallsMax,
      batchBytesMax: o.rpcBatchBytesMax,
    }, clocked);
    // A failed block write reaches both the app (at once) and the server (the next FinalizeBlock
    // throws it): the node hears of it once.
    let fatal = false;
    const onFatal = (error: unknown): void => {
      if (fatal) return;
      fatal = true;
      deps.onFatal?.(error);
    };
    const headersRpc = CometBftSignedHeaders.connect(o.rpcUrl, signedHeaderTimeoutMs, deps.clock);
    const signedHeaders = await SignedHeaderKeeper.open(deps.store, headersRpc, o.retainBlocks, deps.logger);
    const snapshots = o.snapshotDir === "" ? undefined : new SnapshotSync(
      { intervalBlocks: o.snapshotIntervalBlocks, keep: o.snapshotKeep, chainId: o.chainId },
      {
        files: new SnapshotFiles(o.snapshotDir),
        store: deps.store,
        ledger: deps.ledger,
        genesis: () => genesisFacts(rpc),
        signedHeader: (height) => signedHeaderJson(deps.store, headersRpc, height),
        headerStore: deps.store,
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      },
    );
    const app = new LedgerAbciApp({ chainId: o.chainId, version: deps.version }, {
      ledger: deps.ledger,
      store: deps.store,
      onFatal,
      signedHeaders,
      ...(snapshots === undefined ? {} : { snapshots }),
      ...clocked,
    });
    const listen: AbciListen = o.abciSocketPath !== "" ? { path: o.abciSocketPath } : { host: o.abciHost, port: o.abciPort };
    const logger = deps.logger;
    const server = await AbciServer.start(
      {
        listen,
        messageBytesMax: o.abciMessageBytesMax,
        requestsInFlightMax: o.abciRequestsInFlightMax,
        writeBufferBytesMax: o.abciWriteBufferBytesMax,
      },
      {
        handler: app,
        onFatal,
        onEvent: (event) => {
          if (event.type === "connected") logger?.info({ connection: event.connection }, "CometBFT connected over ABCI");
          else logger?.warn({ connection: event.connection, err: event.error }, "CometBFT ABCI connection closed");
        },
      },
    );
    const broadcaster = new CometBftBroadcaster(
      { rpcTimeoutMs: o.rpcTimeoutMs, commitTimeoutMs: o.commitTimeoutMs },
      { ledger: deps.ledger, rpc, durable: () => app.durable() },
    );
    // A store that did not record the genesis's protocol version learns it once CometBFT serves RPC.
    const genesisVersion = new GenesisVersionReader(deps.ledger, rpc, logger);
    deps.ledger.onCommitted(() => genesisVersion.poke());
    const headers = { rpc: headersRpc, keeper: signedHeaders };
    return new CometBftEngine(server, app, rpc, broadcaster, headers, genesisVersion, snapshots);
  }

  get abciAddress(): AbciListen {
    return this.server.address;
  }

  broadcast(bytes: Uint8Array, mode: BroadcastMode, door?: Door): Promise<PreparedBase> {
    return this.broadcaster.broadcast(bytes, mode, door);
  }

  /**
   * Ready when CometBFT's RPC answers `status` (so CometBFT runs, and it only serves RPC once
   * connected to this node over ABCI) and it is not catching up: while it replays or fetches
   * blocks, it refuses broadcasts (`rpc/core/mempool.go`), so this node cannot take any.
   */
  async notReadyReason(): Promise<string | null> {
    if (this.stopped !== null) return "the engine is stopping";
    let status: unknown;
    try {
      status = await this.rpc.call("status", {}, readinessTimeoutMs);
    } catch (error) {
      return `CometBFT's RPC does not answer (${error instanceof Error ? error.message : String(error)})`;
    }
    const catchingUp = (status as { sync_info?: { catching_up?: unknown } } | null)?.sync_info?.catching_up;
    if (catchingUp === true) return "CometBFT is catching up with the network";
    if (catchingUp !== false) return "CometBFT's status has no sync_info.catching_up";
    return null;
  }

  /**
   * Closes the RPC connections and the ABCI server. CometBFT stops when its app goes away
   * (v0.38 `proxy/multi_app_conn.go`), so stop CometBFT first for a clean shutdown.
   */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.rpc.close();
      await this.genesisVersion.settled();
      await this.server.close();
      await this.app.close();
      await this.headers.keeper.settled();
      await this.snapshots?.close();
      this.headers.rpc.close();
    })();
    return this.stopped;
  }
}

/** This node's CometBFT genesis as its RPC's `genesis` shows it: the chain id and the first validators. */
async function genesisFacts(rpc: CometBftRpcClient): Promise<GenesisFacts> {
  const result = (await rpc.call("genesis", {}, genesisTimeoutMs)) as { genesis?: { chain_id?: unknown; validators?: unknown } } | null;
  const genesis = result?.genesis;
  if (typeof genesis?.chain_id !== "string" || !Array.isArray(genesis.validators)) throw new Error("CometBFT's genesis has no chain_id or validators");
  const validators = (genesis.validators as { pub_key?: { type?: string; value?: string }; power?: string }[]).map((v): Validator => {
    if (v.pub_key?.type !== "tendermint/PubKeyEd25519" || typeof v.pub_key.value !== "string") throw new Error("a genesis validator's key is not Ed25519");
    return { publicKey: Buffer.from(v.pub_key.value, "base64").toString("hex"), power: Number(v.power) };
  });
  return { chainId: genesis.chain_id, validators };
}

/** How long the genesis read may take (a large genesis is served in one answer). */
const genesisTimeoutMs = 10_000;

/** A height's signed header for a snapshot: the store's copy (pruning keeps them), else CometBFT's; null if neither has it. */
async function signedHeaderJson(store: Pick<Store, "getSignedHeader">, rpc: CometBftSignedHeaders, height: number): Promise<string | null> {
  const stored = await store.getSignedHeader(height);
  if (stored !== null) return stored;
  return rpc.signedHeader(height).then((header) => JSON.stringify(header), () => null);
}
