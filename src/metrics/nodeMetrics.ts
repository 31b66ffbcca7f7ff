// The metrics folder owns ledgerd's Prometheus metrics: the one registry of a process, what is
// counted, and how the figures of several processes (HTTP workers) become one answer. Nothing
// else imports prom-client: the ledger, the engine, the pool and the HTTP app are watched
// through the narrow `*Source` interfaces below, wired in the composition root (node/).
//
// Names follow Prometheus' conventions: `ledgerd_` prefix, unit last (`_seconds`, `_bytes`),
// counters end in `_total` (STYLE rule 15).
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** Request durations, in seconds: from a cached read (~0.1 ms) to a `mode=commit` POST. */
const httpDurationBucketsSeconds = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
/** Block execution and write, in seconds: a few ms for a small block, up to seconds for a full one. */
const commitDurationBucketsSeconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The kinds of evidence CometBFT commits (ABCI's MisbehaviorType), counted from 0. */
const evidenceTypes = ["duplicate_vote", "light_client_attack"] as const;

/** One process's figures as `Registry.getMetricsAsJSON` gives them: plain JSON, fit for IPC. */
export type MetricsSnapshot = readonly object[];

/** The two interfaces a transaction can arrive by: v2.0 (`/api/v1`) or the legacy variants. */
export type TxInterface = "v2" | "legacy";

/** The ledger as the metrics watch it (LedgerApp is one, through `committedFigures`). */
export interface LedgerSource {
  onFinalizing(listener: (height: number) => void): void;
  readonly pendingCount: number;
}

/**
 * What a committed block tells the metrics: its height, its valid transactions by interface and
 * the type of each evidence of misbehavior it carried.
 */
export interface CommittedFigures {
  readonly height: number;
  readonly txs: Readonly<Partial<Record<TxInterface, number>>>;
  readonly evidence?: readonly string[];
}

/** A verification pool (PreparePool is one): transactions sent to it and not answered yet. */
export interface PoolSource {
  readonly queuedCount: number;
}

/** The event stream (StreamServer is one). */
export interface StreamSource {
  readonly subscriberCount: number;
  readonly droppedCount: number;
  /** Resumed subscribers still replaying from the store (docs/http-api.md "Resuming a stream"). */
  readonly replayingCount: number;
}

/** Whether the node can take transactions now, as `/readyz` answers (the node's process). */
export interface ReadinessSource {
  ready(): Promise<boolean>;
}

export interface NodeMetricsDeps {
  /** A monotonic clock in milliseconds (default: `performance.now`). */
  readonly now?: () => number;
}

/**
 * One process's metrics. In the node's process every source is watched; in an HTTP worker only
 * what the worker does (requests, transactions received, its verification pool), the rest
 * reading 0, so that summing the processes' figures (`aggregateMetrics`) gives the node's.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly now: () => number;
  private readonly requests: Histogram<"method" | "route" | "status">;
  /** Per method, route and status: the child histogram, so a request costs no label hashing. */
  private readonly requestChildren = new Map<string, { observe(value: number): void }>();
  private readonly accepted: Counter<"interface">;
  private readonly refused: Counter<"interface" | "code">;
  private readonly committedTxs: Counter<"interface">;
  private readonly committedBlocks: Counter;
  private readonly evidence: Counter<"type">;
  private readonly commitDuration: Histogram;
  private readonly pools: PoolSource[] = [];
  private ledger: LedgerSource | null = null;
  private stream: StreamSource | null = null;
  private readiness: ReadinessSource | null = null;
  private storeBytes: (() => number | Promise<number>) | null = null;
  private height = 0;
  /** When finalizeBlock began for the block not yet committed. */
  private finalizingSince: number | null = null;
  /** The stream's drop count already added to its counter. */
  private droppedSeen = 0;

  constructor(deps: NodeMetricsDeps = {}) {
    this.now = deps.now ?? (() => performance.now());
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Histogram({
      name: "ledgerd_http_request_duration_seconds",
      help: "HTTP API requests by method, route (the pattern, not the URL) and status; _count counts them",
      labelNames: ["method", "route", "status"],
      buckets: httpDurationBucketsSeconds,
      registers,
    });
    this.accepted = new Counter({
      name: "ledgerd_transactions_accepted_total",
      help: "Transactions POSTed to this node's API and accepted, by interface",
      labelNames: ["interface"],
      registers,
    });
    this.refused = new Counter({
      name: "ledgerd_transactions_refused_total",
      help: "Transactions POSTed to this node's API and refused, by interface and error code",
      labelNames: ["interface", "code"],
      registers,
    });
    this.committedTxs = new Counter({
      name: "ledgerd_transactions_committed_total",
      help: "Valid transactions in committed blocks, by interface",
      labelNames: ["interface"],
      registers,
    });
    this.committedBlocks = new Counter({
      name: "ledgerd_blocks_committed_total",
      help: "Blocks committed",
      registers,
    });
    this.evidence = new Counter({
      name: "ledgerd_evidence_total",
      help: "Evidence of validators' misbehavior in committed blocks (CometBFT's), by type: duplicate_vote, light_client_attack",
      labelNames: ["type"],
      registers,
    });
    // Known types read 0 from the start, so that an alert on their increase sees the first one.
    for (const type of evidenceTypes) this.evidence.inc({ type }, 0);
    this.commitDuration = new Histogram({
      name: "ledgerd_block_commit_duration_seconds",
      help: "From FinalizeBlock to the block durable in the store (execution and write)",
      buckets: commitDurationBucketsSeconds,
      registers,
    });
    this.defineGauges(registers);
  }

  /** One answered HTTP request; `route` is the route's pattern (a bounded set of labels). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let child = this.requestChildren.get(key);
    if (child === undefined) {
      child = this.requests.labels({ method, route, status: String(status) });
      this.requestChildren.set(key, child);
    }
    child.observe(seconds);
  }

  transactionAccepted(via: TxInterface): void {
    this.accepted.inc({ interface: via });
  }

  transactionRefused(via: TxInterface, code: string): void {
    this.refused.inc({ interface: via, code });
  }

  /** Times each block from FinalizeBlock to `blockCommitted`; reads the pool size at scrapes. */
  watchLedger(ledger: LedgerSource): void {
    this.ledger = ledger;
    ledger.onFinalizing(() => {
      this.finalizingSince = this.now();
    });
  }

  /** A block is durable: counts it, its transactions and evidence, its commit duration, the height. */
  blockCommitted(block: CommittedFigures): void {
    this.height = block.height;
    this.committedBlocks.inc();
    for (const [via, count] of Object.entries(block.txs)) {
      if (count > 0) this.committedTxs.inc({ interface: via }, count);
    }
    for (const type of block.evidence ?? []) this.evidence.inc({ type });
    const since = this.finalizingSince;
    if (since !== null) this.commitDuration.observe((this.now() - since) / 1000);
    this.finalizingSince = null;
  }

  /** Sets the height before the first commit (the store's, at start). */
  startAt(height: number): void {
    this.height = height;
  }

  watchPool(pool: PoolSource): void {
    this.pools.push(pool);
  }

  /** `ready()` is asked at each scrape (the /readyz checks: a CometBFT `status` call at most). */
  watchReadiness(readiness: ReadinessSource): void {
    this.readiness = readiness;
  }

  watchStream(stream: StreamSource): void {
    this.stream = stream;
  }

  /** `sizeBytes` is read at each scrape. */
  watchStoreSize(sizeBytes: () => number | Promise<number>): void {
    this.storeBytes = sizeBytes;
  }

  /** This process's figures, for another process to aggregate (JSON-safe). */
  snapshot(): Promise<MetricsSnapshot> {
    return this.registry.getMetricsAsJSON();
  }

  /** The Prometheus text of this process and of `others` (HTTP workers' snapshots), summed. */
  async text(others: readonly MetricsSnapshot[] = []): Promise<string> {
    if (others.length === 0) return this.registry.metrics();
    return aggregateMetrics([await this.snapshot(), ...others]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Gauges read their sources at scrape time: nothing is done per request for them. */
  private defineGauges(registers: Registry[]): void {
    const self = this;
    new Gauge({
      name: "ledgerd_block_height",
      help: "Height of the last committed block",
      registers,
      collect() {
        this.set(self.height);
      },
    });
    new Gauge({
      name: "ledgerd_ready",
      help: "1 when the node can take transactions (GET /readyz answers 200), else 0",
      registers,
      async collect() {
        // An HTTP worker watches none and reads 0, so the processes' sum is the node's answer.
        const source = self.readiness;
        this.set(source !== null && (await source.ready().catch(() => false)) ? 1 : 0);
      },
    });
    new Gauge({
      name: "ledgerd_pending_transactions",
      help: "Transactions accepted and not yet in a committed block (the pending pool)",
      registers,
      collect() {
        this.set(self.ledger?.pendingCount ?? 0);
      },
    });
    new Gauge({
      name: "ledgerd_verification_queue_transactions",
      help: "Transactions waiting for or in signature verification, over every HTTP process",
      registers,
      collect() {
        this.set(self.pools.reduce((sum, pool) => sum + pool.queuedCount, 0));
      },
    });
    new Gauge({
      name: "ledgerd_stream_subscribers",
      help: "Open subscriptions to the WebSocket event stream",
      registers,
      collect() {
        this.set(self.stream?.subscriberCount ?? 0);
      },
    });
    new Gauge({
      name: "ledgerd_stream_replaying_subscribers",
      help: "Resumed event-stream subscribers still replaying from the store, not yet on the live blocks",
      registers,
      collect() {
        this.set(self.stream?.replayingCount ?? 0);
      },
    });
    new Counter({
      name: "ledgerd_stream_dropped_subscribers_total",
      help: "Event-stream subscribers closed for falling behind (wsserver.send_queue_bytes_max)",
      registers,
      collect() {
        const dropped = self.stream?.droppedCount ?? 0;
        if (dropped > self.droppedSeen) this.inc(dropped - self.droppedSeen);
        self.droppedSeen = dropped;
      },
    });
    new Gauge({
      name: "ledgerd_store_size_bytes",
      help: "Bytes the store takes on disk (SQLite: the database file and its write-ahead log; PostgreSQL: pg_database_size of its database)",
      registers,
      async collect() {
        try {
          this.set((await self.storeBytes?.()) ?? 0);
        } catch {
          // The database cannot be reached: the last size stands, and the scrape still answers.
        }
      },
    });
  }
}

/**
 * Several processes' figures as one registry: counters, histograms and gauges summed per label
 * set (prom-client's cluster aggregation; the default process metrics carry their own rule).
 */
export function aggregateMetrics(snapshots: readonly MetricsSnapshot[]): Registry {
  return AggregatorRegistry.aggregate([...snapshots]);
}
