// The operators' traffic between the node's process and its HTTP workers (server.workers > 1),
// on the same IPC channel and tag as the broadcasts (ipcMessages.ts), in messages of its own:
//   worker -> node: readinessRequest; the node answers readinessResult with its checks (its
//     store, its engine), which a worker's /readyz reports beside its own store's;
//   node -> worker: metricsRequest; the worker answers metricsResult with its figures, which the
//     node sums with its own for a scrape of `metrics.bind` (nodeMetrics.ts `text`).
import type { ReadinessProbe, Readiness } from "../../http/routes/health.js";
import { readinessTimeoutMs } from "../../engine/readiness.js";
import type { MetricsSnapshot } from "../../metrics/nodeMetrics.js";
import { workerMetricsTimeoutMs } from "../../metrics/options.js";
import { ipcTag, isIpcMessage } from "./ipcMessages.js";

export interface ReadinessRequest {
  readonly tag: typeof ipcTag;
  readonly type: "readinessRequest";
  readonly requestId: number;
}

export interface ReadinessResult {
  readonly tag: typeof ipcTag;
  readonly type: "readinessResult";
  readonly requestId: number;
  readonly checks: Readiness["checks"];
}

export interface MetricsRequest {
  readonly tag: typeof ipcTag;
  readonly type: "metricsRequest";
  readonly requestId: number;
}

export interface MetricsResult {
  readonly tag: typeof ipcTag;
  readonly type: "metricsResult";
  readonly requestId: number;
  /** Empty when the worker counts nothing (it was started without metrics). */
  readonly snapshot: MetricsSnapshot;
}

export type OpsWorkerMessage = ReadinessRequest | MetricsResult;
export type OpsPrimaryMessage = ReadinessResult | MetricsRequest;

/** One way of a channel, as both sides need it. */
export interface OpsPort<Out> {
  send(message: Out): void;
}

const opsTypes: ReadonlySet<string> = new Set([
  "readinessRequest",
  "readinessResult",
  "metricsRequest",
  "metricsResult",
]);

export function isOpsMessage(message: unknown): message is OpsWorkerMessage | OpsPrimaryMessage {
  return isIpcMessage(message) && opsTypes.has(message.type);
}

/** Answers that arrive by request id, each awaited at most `timeoutMs` (then `fallback`). */
class Awaited<T> {
  private readonly waiting = new Map<number, (value: T) => void>();
  private nextId = 0;

  request(send: (requestId: number) => void, timeoutMs: number, fallback: T): Promise<T> {
    const requestId = this.nextId++;
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => this.settle(requestId, fallback), timeoutMs);
      this.waiting.set(requestId, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      send(requestId);
    });
  }

  settle(requestId: number, value: T): void {
    const resolve = this.waiting.get(requestId);
    if (resolve === undefined) return;
    this.waiting.delete(requestId);
    resolve(value);
  }

  settleAll(value: T): void {
    for (const requestId of [...this.waiting.keys()]) this.settle(requestId, value);
  }
}

/** The node's side: answers workers' readiness requests, gathers their metrics. */
export class PrimaryOps {
  private readonly metrics = new Awaited<MetricsSnapshot | null>();

  constructor(private readonly probe: ReadinessProbe) {}

  /** A worker's ops message (HttpCluster hands over the messages it does not know). */
  handle(message: OpsWorkerMessage, from: OpsPort<OpsPrimaryMessage>): void {
    if (message.type === "metricsResult") {
      this.metrics.settle(message.requestId, message.snapshot);
      return;
    }
    const answer = (checks: Readiness["checks"]): void => {
      from.send({ tag: ipcTag, type: "readinessResult", requestId: message.requestId, checks });
    };
    // The checks catch their own failures; one that throws anyway is a reason, not a crash.
    this.probe.check().then(
      ({ checks }) => answer(checks),
      (error: unknown) => answer({ node: `the readiness check failed (${String(error)})` }),
    );
  }

  /** Every worker's figures; one that does not answer in time is left out of this scrape. */
  async gatherMetrics(workers: readonly OpsPort<OpsPrimaryMessage>[]): Promise<MetricsSnapshot[]> {
    const answers = await Promise.all(
      workers.map((worker) =>
        this.metrics.request(
          (requestId) => worker.send({ tag: ipcTag, type: "metricsRequest", requestId }),
          workerMetricsTimeoutMs,
          null,
        ),
      ),
    );
    const answered = (snapshot: MetricsSnapshot | null): snapshot is MetricsSnapshot => snapshot !== null;
    return answers.filter(answered).filter((snapshot) => snapshot.length > 0);
  }
}

export interface WorkerOpsChannel {
  send(message: OpsWorkerMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  onDisconnect(listener: () => void): void;
}

/**
 * A worker's side: answers the node's metrics requests with `snapshot`, and asks the node for
 * its readiness (`nodeChecks`), which is "not answering" when the channel is gone or slow.
 */
export class WorkerOps {
  private readonly readiness = new Awaited<Readiness["checks"]>();
  private disconnected = false;

  constructor(
    private readonly channel: WorkerOpsChannel,
    snapshot: () => Promise<MetricsSnapshot>,
  ) {
    channel.onMessage((message) => {
      if (!isOpsMessage(message)) return;
      if (message.type === "readinessResult") this.readiness.settle(message.requestId, message.checks);
      else if (message.type === "metricsRequest") {
        const answer = (figures: MetricsSnapshot): void => {
          const requestId = message.requestId;
          channel.send({ tag: ipcTag, type: "metricsResult", requestId, snapshot: figures });
        };
        // A worker whose figures cannot be gathered is left out of the scrape, not stopped.
        snapshot().then(answer, () => answer([]));
      }
    });
    channel.onDisconnect(() => {
      this.disconnected = true;
      this.readiness.settleAll(unreachable);
    });
  }

  /** The node's process's checks (store, engine), as its own /readyz would report them. */
  nodeChecks(): Promise<Readiness["checks"]> {
    if (this.disconnected) return Promise.resolve(unreachable);
    return this.readiness.request(
      (requestId) => this.channel.send({ tag: ipcTag, type: "readinessRequest", requestId }),
      readinessTimeoutMs,
      { node: `the node's process did not answer within ${readinessTimeoutMs} ms` },
    );
  }
}

const unreachable = { node: "the node's process cannot be reached" } as const;
