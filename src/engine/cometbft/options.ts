// Options of the CometBFT engine, with their defaults: the one source of them (STYLE rule 10).
// The ports are CometBFT's own defaults (`proxy_app` tcp://127.0.0.1:26658, RPC 26657), so a
// node next to a CometBFT made by `cometbft init` needs no settings but `engine = cometbft`.

export interface CometBftEngineOptions {
  /** Where the ABCI server listens for CometBFT (`proxy_app = "tcp://<host>:<port>"`). */
  readonly abciHost: string;
  readonly abciPort: number;
  /** A unix socket instead, when not empty (`proxy_app = "unix://<path>"`). */
  readonly abciSocketPath: string;
  /** CometBFT's JSON-RPC endpoint (`[rpc] laddr`), where transactions are broadcast. */
  readonly rpcUrl: string;
  /** How long `broadcast_tx_async` and `broadcast_tx_sync` may take before 503. */
  readonly rpcTimeoutMs: number;
  /**
   * How long `broadcast_tx_commit` may take before 504. CometBFT has its own limit
   * (`[rpc] timeout_broadcast_tx_commit`, 10 s by default) that answers 504 too.
   */
  readonly commitTimeoutMs: number;
  /**
   * Connections to the RPC at once. Each `broadcast_tx_commit` holds one and counts as one of
   * CometBFT's `max_subscription_clients` (100 by default), so stay below that.
   */
  readonly rpcSocketsMax: number;
  /**
   * `broadcast_tx_async` and `_sync` calls made together go out as one JSON-RPC batch of at most
   * this many calls (1: no batching). Each call still gets its own answer. CometBFT refuses a
   * batch over its `rpc.max_request_batch_size` (10 by default) as a whole.
   */
  readonly rpcBatchCallsMax: number;
  /** And at most this many request bytes: below CometBFT's `rpc.max_body_bytes` (1,000,000). */
  readonly rpcBatchBytesMax: number;
  /** The chain id CometBFT's genesis must carry; InitChain with another one stops the node. */
  readonly chainId: string;
  /**
   * Largest ABCI request read, in bytes. A FinalizeBlock carries a whole block: CometBFT's
   * `block.max_bytes` is 21 MiB by default and 100 MiB at most (`types.MaxBlockSizeBytes`).
   */
  readonly abciMessageBytesMax: number;
  /** ABCI requests of one connection in progress at once (CheckTx pipelining); then reads pause. */
  readonly abciRequestsInFlightMax: number;
  /** ABCI answers buffered before a write even without a Flush. */
  readonly abciWriteBufferBytesMax: number;
  /**
   * CometBFT keeps the last this many blocks and prunes the rest (ABCI Commit's retain_height,
   * never above the lowest signed header ledgerd has not stored: signedHeaderKeeper.ts); 0 keeps
   * every block. A peer that is behind can only sync from a node that still has its blocks.
   */
  readonly retainBlocks: number;
  /**
   * A state-sync snapshot every this many blocks (docs/state-sync.md); 0 takes and serves none
   * (a node can still restore from others'). Each snapshot reads the whole ledger in the
   * background, so it is taken seldom: every 1,000 blocks a joining node has at most 1,000
   * blocks to replay after its restore, and a busy network takes one every few minutes at most.
   */
  readonly snapshotIntervalBlocks: number;
  /** Snapshots kept, the latest; 2 so that one stays whole while the next is written and a peer still fetches it. */
  readonly snapshotKeep: number;
  /** The folder snapshots are kept in (the data folder's `snapshots/`); "" for none (tests). */
  readonly snapshotDir: string;
}

export const cometBftEngineOptionsDefault: CometBftEngineOptions = Object.freeze({
  abciHost: "127.0.0.1",
  abciPort: 26658,
  abciSocketPath: "",
  rpcUrl: "http://127.0.0.1:26657",
  rpcTimeoutMs: 10_000,
  commitTimeoutMs: 30_000,
  rpcSocketsMax: 64,
  rpcBatchCallsMax: 10,
  rpcBatchBytesMax: 512 * 1024,
  chainId: "ledgerd",
  abciMessageBytesMax: 104_857_600 + 1_048_576,
  abciRequestsInFlightMax: 10_000,
  abciWriteBufferBytesMax: 65_536,
  retainBlocks: 0,
  snapshotIntervalBlocks: 1_000,
  snapshotKeep: 2,
  snapshotDir: "",
});

/**
 * CometBFT run by the node itself (cometBftSupervisor.ts). Here, not beside the supervisor, so
 * that reading the defaults loads no child-process code.
 */
export interface CometBftSupervisorOptions {
  /** CometBFT's home (`cometbft start --home`); "" leaves CometBFT to the operator. */
  readonly home: string;
  /** The binary; "" is the package's .cache/bin/cometbft if there is one, else PATH's cometbft. */
  readonly binary: string;
}

export const cometBftSupervisorOptionsDefault: CometBftSupervisorOptions = Object.freeze({ home: "", binary: "" });
