// Options of the Prometheus metrics, with their defaults: the one source of them (STYLE rule 10).

export interface MetricsOptions {
  /**
   * Where the node's process serves `GET /metrics` (Prometheus text format), or null for no
   * metrics at all: nothing is counted and no port is opened. Off by default, as CometBFT's own
   * `instrumentation.prometheus` is: an operator who scrapes says where, and the API port stays
   * the BigchainDB API only.
   */
  readonly listen: { readonly host: string; readonly port: number } | null;
}

export const metricsOptionsDefault: MetricsOptions = Object.freeze({ listen: null });

/** The path the metrics are served at, on `listen`. */
export const metricsPath = "/metrics";

/**
 * With HTTP worker processes, how long the node's process waits for each worker's figures
 * before answering a scrape without them (Prometheus' own scrape timeout defaults to 10 s).
 */
export const workerMetricsTimeoutMs = 2_000;
