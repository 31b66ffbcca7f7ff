// The record a chaos run keeps, and the checker reads (chaos/checker.ts). A run appends events as
// they happen (one JSON object a line in the run's history.jsonl) and, after the last heal, takes a
// snapshot of every node's ledger. Times are milliseconds since the run's start, from the runner's
// own clock: they order events of one process, and measure recoveries; they are never compared
// across nodes.

/** How a client asked a node to take a transaction (POST /api/v1/transactions?mode=). */
export type PostMode = "async" | "sync" | "commit";

/** An output a transaction spends: `${transactionId}:${outputIndex}`. */
export type OutputRef = string;

/**
 * One POST of one transaction to one node, invoked at `atMs` and ended at `endMs`. `status` is
 * the HTTP status, or null when no answer came (refused connection, reset, the client's own
 * timeout): then the transaction may or may not have been taken.
 */
export interface PostEvent {
  readonly type: "post";
  readonly client: number;
  readonly node: number;
  readonly mode: PostMode;
  readonly txId: string;
  /** The transaction's JSON exactly as sent. */
  readonly body: string;
  /** The outputs it spends (none for a CREATE). */
  readonly spends: readonly OutputRef[];
  readonly atMs: number;
  readonly endMs: number;
  readonly status: number | null;
  /** The error answer's message (4xx/5xx), or the client's error when no answer came. */
  readonly error?: string;
}

/** A read of outputs or balances, kept for its status: a 5xx outside a fault is an anomaly. */
export interface ReadEvent {
  readonly type: "read";
  readonly client: number;
  readonly node: number;
  readonly path: string;
  readonly atMs: number;
  readonly endMs: number;
  readonly status: number | null;
}

/** A transaction a stream subscriber received, in the order received. */
export interface StreamEvent {
  readonly type: "stream";
  readonly subscriber: number;
  readonly node: number;
  readonly txId: string;
  readonly height: number;
  readonly atMs: number;
}

/** A stream subscriber lost its socket (`"closed"`) or opened a new one (`"opened"`). */
export interface StreamConnectionEvent {
  readonly type: "stream-connection";
  readonly subscriber: number;
  readonly node: number;
  readonly state: "opened" | "closed";
  readonly atMs: number;
}

/**
 * A fault the nemesis started at `atMs` and healed at `healedMs` (null if the run ended first),
 * and when the first transaction posted after its heal committed (null if none did).
 */
export interface FaultEvent {
  readonly type: "fault";
  /** The fault's kind, e.g. "partition-isolate", "pause-ledgerd", "kill-both". */
  readonly kind: string;
  readonly nodes: readonly number[];
  readonly atMs: number;
  readonly healedMs: number | null;
  readonly recoveredMs: number | null;
  /** A PostgreSQL kill's: when every node on the server was ready again (null: not in time). */
  readonly readyMs?: number | null;
  /** A crash point's `name=count`, a clock skew's offset ("+90s"). */
  readonly detail?: string;
  /** A crash point's: whether the ledgerd died there before the heal. */
  readonly reached?: boolean;
}

export type HistoryEvent = PostEvent | ReadEvent | StreamEvent | StreamConnectionEvent | FaultEvent;

/** One block as a node serves it after the run. */
export interface BlockSnapshot {
  readonly height: number;
  /** The transaction ids, in the block's order. */
  readonly txIds: readonly string[];
  /** The app hash the node reports for the state after this block (hex or base64, as read). */
  readonly appHash: string;
}

/** What one node holds after the last heal. */
export interface NodeSnapshot {
  readonly node: number;
  readonly blocks: readonly BlockSnapshot[];
  /**
   * Every committed transaction's JSON as the node serves it, by id. An id in the node's blocks
   * that it does not serve is absent, or an empty text.
   */
  readonly transactions: ReadonlyMap<string, string>;
  /** Whether the node's proofs of a sample of transactions verified against the genesis validators. */
  readonly proofsVerified: boolean;
  /** ledgerd verify-chain's verdict on the node's data folder, run after the node stopped. */
  readonly verifyChainPassed: boolean;
  /**
   * Whether the node reached the height the runner waited for (the network's top once the
   * workload stopped) before its snapshot was taken. A node below the others' top is a failed
   * recovery unless this is true (blocks committed between two nodes' snapshots leave the
   * first one a little behind); absent counts as false.
   */
  readonly caughtUp?: boolean;
  /** The evidence of misbehavior the node serves (`GET /api/v1/evidence`); absent: not read. */
  readonly evidence?: readonly EvidenceSnapshot[];
}

/** One evidence record as a node serves it, the fields the checker compares. */
export interface EvidenceSnapshot {
  /** The height of the block that carried it. */
  readonly height: number;
  readonly type: string;
  /** CometBFT's address of the validator's key, uppercase hex. */
  readonly address: string;
  readonly infractionHeight: number;
}

/** A node that joined during the run, and the election that made it a validator. */
export interface ElectionOutcome {
  readonly node: number;
  readonly joinedMs: number;
  /** When it reached the validators' height at its start (null: not in time). */
  readonly caughtUpMs: number | null;
  readonly electionId: string | null;
  /** "concluded", "ongoing" when time ran out, or "not proposed". */
  readonly status: string;
  /** The height the election concluded at. */
  readonly concludedAt: number | null;
  /** When the runner saw it concluded. */
  readonly concludedMs: number | null;
  /** Whether CometBFT's validator set then held the node. */
  readonly inValidatorSet: boolean;
  /** Commands that failed and were sent again (a node down, a 503 while a fault ran). */
  readonly errors: readonly string[];
}

export interface RunRecord {
  readonly seed: number;
  readonly events: readonly HistoryEvent[];
  readonly nodes: readonly NodeSnapshot[];
  /** The run's join and election, if it had one. */
  readonly election?: ElectionOutcome | null;
}
