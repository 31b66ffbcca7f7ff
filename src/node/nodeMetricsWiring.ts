// The metrics of a process, wired: which sources the node's process and an HTTP worker watch,
// the counted Broadcaster and legacy gateway their HTTP apps get, and the `metrics.bind`
// server. Everything here is skipped when `metrics.bind` is empty: no registry, no hook.
import type { Logger } from "pino";
import type { Broadcaster } from "../engine/broadcaster.js";
import type { HttpObserver } from "../http/requestObserver.js";
import type { LegacyGateway } from "../http/routes/legacy.js";
import { MetricsServer } from "../metrics/metricsServer.js";
import { kindOf } from "../ledger/kinds/registry.js";
import type { CommittedBlock, LedgerApp } from "../ledger/ledgerApp.js";
import {
  NodeMetrics,
  type CommittedFigures,
  type MetricsSnapshot,
  type PoolSource,
  type TxInterface,
} from "../metrics/nodeMetrics.js";
import type { MetricsOptions } from "../metrics/options.js";
import { countedBroadcaster, countedLegacyGateway } from "./countedTransactions.js";

/** The node's process: the ledger's blocks and pool, the store's size; the stream comes later. */
export function nodeMetricsOf(
  options: MetricsOptions,
  sources: { readonly ledger: LedgerApp; readonly pool: PoolSource; readonly storeSize: () => number | Promise<number> },
): NodeMetrics | null {
  if (options.listen === null) return null;
  const metrics = new NodeMetrics();
  const ledger = sources.ledger;
  metrics.startAt(ledger.info().height);
  metrics.watchLedger(ledger);
  ledger.onCommitted((block) => metrics.blockCommitted(committedFigures(block)));
  metrics.watchPool(sources.pool);
  metrics.watchStoreSize(sources.storeSize);
  return metrics;
}

/** An HTTP worker: its requests, the transactions it receives, its verification pool. */
export function workerMetricsOf(options: MetricsOptions, pool: PoolSource): NodeMetrics | null {
  if (options.listen === null) return null;
  const metrics = new NodeMetrics();
  metrics.watchPool(pool);
  return metrics;
}

/** What an HTTP app of this process is given: counted when metrics are on, as they are else. */
export function measuredHttpDeps(
  metrics: NodeMetrics | null,
  broadcaster: Broadcaster,
  legacy: LegacyGateway,
): { broadcaster: Broadcaster; legacy: LegacyGateway; observer?: HttpObserver } {
  if (metrics === null) return { broadcaster, legacy };
  return {
    broadcaster: countedBroadcaster(broadcaster, metrics),
    legacy: countedLegacyGateway(legacy, metrics),
    observer: {
      request: (method, route, status, seconds) => metrics.observeRequest(method, route, status, seconds),
    },
  };
}

/** Serves this process's figures plus the workers' (`others`, gathered per scrape). */
export async function startMetricsServer(
  options: MetricsOptions,
  metrics: NodeMetrics | null,
  others: () => Promise<MetricsSnapshot[]>,
  logger: Logger,
): Promise<MetricsServer | null> {
  if (options.listen === null || metrics === null) return null;
  return MetricsServer.start(options.listen, {
    render: async () => ({ contentType: metrics.contentType, body: await metrics.text(await others()) }),
    onError: (error) => logger.error({ err: error }, "gathering the metrics failed"),
  });
}

/** A committed block's figures: the valid transactions of each interface, its evidence's types. */
function committedFigures(block: CommittedBlock): CommittedFigures {
  const txs: Partial<Record<TxInterface, number>> = {};
  for (const tx of block.committed) {
    const name = kindOf(tx).name as TxInterface;
    txs[name] = (txs[name] ?? 0) + 1;
  }
  return { height: block.height, txs, evidence: block.evidence.map((e) => e.type) };
}

