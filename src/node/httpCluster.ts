// The primary's side of server.workers > 1: forks the HTTP worker processes (node:cluster, so
// they share one listening port), answers their broadcasts with the one ledger and engine, and
// replaces a worker that dies. On close, workers stop accepting and finish their requests while
// the engine still runs, so a `mode=commit` request in progress gets its answer.
import cluster, { type Worker } from "node:cluster";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import type { Broadcaster } from "../engine/broadcaster.js";
import { LedgerError } from "../errors/ledgerError.js";
import type { PreparedBase } from "../ledger/txKind.js";
import type { HostPort } from "../config/parseHostPort.js";
import {
  decodeBytes,
  decodePrepared,
  ipcTag,
  isIpcMessage,
  type BroadcastRequest,
  type BroadcastResponse,
  type LegacyRequest,
  type LegacyResponse,
  type StartMessage,
  type WorkerMessage,
} from "./ipc/ipcMessages.js";
import type { LegacyService } from "./legacyService.js";
import { isOpsMessage, type OpsPort, type OpsPrimaryMessage, type OpsWorkerMessage } from "./ipc/opsIpc.js";
import { runnableModule, withoutTsx } from "../workerThread.js";

export interface HttpClusterOptions {
  readonly workers: number;
  /** What each worker is started with. */
  readonly start: StartMessage;
  /** A worker that is not listening this long after fork failed to start. */
  readonly startTimeoutMs: number;
  /** Workers still running this long after "close" are killed. */
  readonly closeTimeoutMs: number;
  /** A dead worker is replaced after this pause, so a worker that cannot run does not spin. */
  readonly restartDelayMs: number;
}

export interface HttpClusterDeps {
  /** LedgerApp's `remember`: the workers' prepared transactions, taken as this node's own. */
  readonly ledger: { remember(bytes: Uint8Array, tx: PreparedBase): void };
  readonly engine: Broadcaster;
  readonly logger: Logger;
  /** The legacy routes' gateway the workers' IpcLegacyGateway forwards to. */
  readonly legacy?: Pick<LegacyService, "post" | "status">;
  /** The operators' messages (readiness, metrics: ipc/opsIpc.ts), with the worker to answer. */
  readonly onOpsMessage?: (message: OpsWorkerMessage, from: OpsPort<OpsPrimaryMessage>) => void;
}

export class HttpCluster {
  private readonly workers = new Set<Worker>();
  private closing = false;
  private bound: HostPort | null = null;
  private restartTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly options: HttpClusterOptions,
    private readonly deps: HttpClusterDeps,
  ) {}

  /** Forks every worker and resolves once all listen on the same address. */
  static async start(options: HttpClusterOptions, deps: HttpClusterDeps): Promise<HttpCluster> {
    const pool = new HttpCluster(options, deps);
    cluster.setupPrimary({ exec: workerEntryPath(), execArgv: workerExecArgv(), silent: false });
    try {
      const addresses = await Promise.all(Array.from({ length: options.workers }, () => pool.fork(options.start)));
      const first = addresses[0]!;
      // node:cluster shares one listening socket, port 0 included: every worker gets its port.
      if (addresses.some((a) => a.port !== first.port)) throw new Error("HTTP workers listen on different ports");
      pool.bound = first;
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  get address(): HostPort {
    if (this.bound === null) throw new Error("HTTP cluster not started");
    return this.bound;
  }

  get workerCount(): number {
    return this.workers.size;
  }

  /** The workers connected now, to send the operators' requests to (ipc/opsIpc.ts). */
  connectedWorkers(): OpsPort<OpsPrimaryMessage>[] {
    return [...this.workers].filter((worker) => worker.isConnected()).map((worker) => portOf(worker));
  }

  /** Ask every worker to stop accepting and finish its requests; kill those that overstay. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    await Promise.all([...this.workers].map((worker) => this.stopWorker(worker)));
  }

  private fork(start: StartMessage): Promise<HostPort> {
    const worker = cluster.fork();
    this.workers.add(worker);
    return new Promise<HostPort>((resolve, reject) => {
      let listening = false;
      const timer = setTimeout(() => {
        const pid = worker.process.pid;
        reject(new Error(`HTTP worker ${pid} did not start within ${this.options.startTimeoutMs} ms`));
        worker.kill();
      }, this.options.startTimeoutMs);
      worker.on("message", (message: unknown) => {
        if (!isIpcMessage(message)) return;
        const typed = message as WorkerMessage;
        if (typed.type === "ready") {
          worker.send(start);
        } else if (typed.type === "listening") {
          listening = true;
          clearTimeout(timer);
          resolve({ host: typed.host, port: typed.port });
        } else if (typed.type === "failed") {
          clearTimeout(timer);
          reject(new Error(`HTTP worker failed to start: ${typed.message}`));
        } else if (typed.type === "broadcast") {
          void this.answer(worker, typed);
        } else if (typed.type === "legacyPost" || typed.type === "legacyStatus") {
          void this.answerLegacy(worker, typed);
        } else if (isOpsMessage(message)) {
          this.deps.onOpsMessage?.(message as OpsWorkerMessage, portOf(worker));
        }
      });
      worker.on("exit", (code, signal) => {
        clearTimeout(timer);
        this.workers.delete(worker);
        if (!listening) {
          const how = `code ${code}, signal ${signal}`;
          reject(new Error(`HTTP worker ${worker.process.pid} exited before listening (${how})`));
          return;
        }
        if (!this.closing) this.replace(worker, code, signal);
      });
    });
  }

  private replace(dead: Worker, code: number | null, signal: string | null): void {
    this.deps.logger.error({ pid: dead.process.pid, code, signal }, "HTTP worker died; starting another");
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.closing) return;
      // The same listen arguments as the others (port 0 included), so node:cluster hands the
      // replacement the socket they share. Only when every worker died at once may port 0
      // become another port.
      this.fork(this.options.start).then(
        (address) => {
          if (address.port === this.address.port) return;
          this.deps.logger.warn({ port: address.port, was: this.address.port }, "HTTP port changed");
          this.bound = address;
        },
        (error: unknown) => this.deps.logger.error({ err: error }, "HTTP worker replacement failed"),
      );
    }, this.options.restartDelayMs);
  }

  private async answer(worker: Worker, request: BroadcastRequest): Promise<void> {
    this.reply(worker, await answerBroadcast(request, this.deps));
  }

  private async answerLegacy(worker: Worker, request: LegacyRequest): Promise<void> {
    this.reply(worker, await answerLegacy(request, this.deps));
  }

  private reply(worker: Worker, response: BroadcastResponse | LegacyResponse): void {
    if (worker.isConnected()) {
      worker.send(response, undefined, (error) => {
        if (error === null) return;
        this.deps.logger.warn({ err: error, pid: worker.process.pid }, "answer to an HTTP worker lost");
      });
    }
  }

  private stopWorker(worker: Worker): Promise<void> {
    return new Promise((resolve) => {
      if (worker.isDead()) return resolve();
      const timer = setTimeout(() => {
        this.deps.logger.warn({ pid: worker.process.pid }, "HTTP worker did not stop in time; killing it");
        worker.process.kill("SIGKILL");
      }, this.options.closeTimeoutMs);
      worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      if (worker.isConnected()) worker.send({ tag: ipcTag, type: "close" });
      else worker.process.kill("SIGTERM");
    });
  }
}

/**
 * The primary's half of IpcBroadcaster: take the worker's prepared transaction as this node's
 * own (its signatures were verified in the worker), then broadcast it through the engine.
 */
export async function answerBroadcast(
  request: BroadcastRequest,
  deps: HttpClusterDeps,
): Promise<BroadcastResponse> {
  const base = { tag: ipcTag, type: "broadcastResult", requestId: request.requestId } as const;
  try {
    const bytes = decodeBytes(request.bytes);
    deps.ledger.remember(bytes, decodePrepared(request.prepared));
    const tx = await deps.engine.broadcast(bytes, request.mode, request.door ?? undefined);
    return { ...base, ok: true, id: tx.id };
  } catch (error) {
    if (error instanceof LedgerError) return { ...base, ok: false, code: error.code, message: error.message };
    deps.logger.error({ err: error }, "broadcast from an HTTP worker failed");
    return { ...base, ok: false, code: "Internal", message: "Internal error" };
  }
}

/**
 * The primary's half of IpcLegacyGateway: a legacy POST (with the worker's prepared TRANSFER,
 * taken as this node's own) or status, answered by the node's LegacyService.
 */
export async function answerLegacy(request: LegacyRequest, deps: HttpClusterDeps): Promise<LegacyResponse> {
  const base = { tag: ipcTag, type: "legacyResult", requestId: request.requestId } as const;
  try {
    if (deps.legacy === undefined) throw new LedgerError("EngineUnavailable", "This node serves no legacy routes");
    if (request.type === "legacyStatus") return { ...base, ok: true, value: await deps.legacy.status(request.id) };
    const prepared = request.prepared === null ? undefined : decodePrepared(request.prepared);
    return { ...base, ok: true, value: await deps.legacy.post(decodeBytes(request.bytes), prepared) };
  } catch (error) {
    if (error instanceof LedgerError) return { ...base, ok: false, code: error.code, message: error.message };
    deps.logger.error({ err: error }, "legacy request from an HTTP worker failed");
    return { ...base, ok: false, code: "Internal", message: "Internal error" };
  }
}

/** A worker as the ops messages' answer goes to it: dropped when it is gone. */
function portOf(worker: Worker): OpsPort<OpsPrimaryMessage> {
  return {
    send: (message) => {
      if (worker.isConnected()) worker.send(message, undefined, () => {});
    },
  };
}

/** httpWorkerMain, built or (tests) bundled from its sources: see workerThread.ts. */
function workerEntryPath(): string {
  return runnableModule(import.meta.url, "./httpWorkerMain");
}

/** The primary's flags less tsx's loader, test-runner and debugger flags. */
function workerExecArgv(): string[] {
  return withoutTsx(process.execArgv).filter((arg) => !arg.startsWith("--test") && !arg.startsWith("--inspect"));
}
