// The node folder owns the process wiring: from a loaded Config to a running node, and back down.
// In one process: the SQLite store, the verification pool, the ledger, the solo engine (the node
// key is its validator), the HTTP API and the WebSocket stream. With server.workers > 1 the HTTP
// API runs in worker processes instead (httpCluster.ts), and everything else stays here,
// including the legacy routes' service (legacyService.ts): the node key signs legacy CREATEs.
//
// Shutdown order (issue #7): stop accepting HTTP and finish the requests in progress, let the
// engine finish the block in progress and those waiting, close the stream, the pool, the store,
// and last let go of the data directory's lock.
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { systemClock, type Clock } from "../clock/clock.js";
import { ConfigError } from "../config/configError.js";
import { moduleOptions, type ModuleOptions } from "../config/moduleOptions.js";
import { clientHostOf, type HostPort } from "../config/parseHostPort.js";
import type { Config } from "../config/schema.js";
import type { Broadcaster } from "../engine/broadcaster.js";
import { CometBftEngine } from "../engine/cometbft/cometBftEngine.js";
import { CometBftSupervisor, cometBftLogName, cometBftPidName, defaultCometBftBinary } from "../engine/cometbft/cometBftSupervisor.js";
import { signedHeadersOf } from "../engine/cometbft/signedHeaders.js";
import { SoloEngine } from "../engine/solo/soloEngine.js";
import { soloElectionRefusal } from "../ledger/kinds/v2/v2Kind.js";
import { streamPath } from "../events/options.js";
import { StreamServer } from "../events/streamServer.js";
import { buildHttpApp } from "../http/httpApp.js";
import { LedgerApp } from "../ledger/ledgerApp.js";
import { PreparePool } from "../ledger/preparePool.js";
import { databaseName, openStore } from "./openStore.js";
import type { Store, Validator } from "../store/store.js";
import { closeHttpApp, listenHttpApp } from "./closeHttpApp.js";
import { HttpCluster } from "./httpCluster.js";
import { ipcTag } from "./ipc/ipcMessages.js";
import { createLogger } from "./logger.js";
import { LegacyService } from "./legacyService.js";
import { loadOrCreateNodeKey, type NodeKey, type NodeKeyDeps } from "./nodeKey.js";
import { checkpointNotaryOf } from "./checkpointSigner.js";
import type { CheckpointNotary } from "../ledger/checkpoints.js";
import type { Witness } from "../ledger/witness.js";
import { witnessOf } from "./witnessService.js";
import { packageInfo } from "./packageInfo.js";
import { failedChecks, type ReadinessProbe } from "../http/routes/health.js";
import type { MetricsSnapshot, NodeMetrics } from "../metrics/nodeMetrics.js";
import { measuredHttpDeps, nodeMetricsOf, startMetricsServer } from "./nodeMetricsWiring.js";
import { PrimaryOps } from "./ipc/opsIpc.js";
import { nodeReadiness } from "./readiness.js";
import { preflight, warnUnsafeSettings } from "./preflight.js";
import { StartRefused } from "./startRefused.js";
import { SchemaRefused } from "../store/schemaRefused.js";
import { LedgerError } from "../errors/ledgerError.js";

/** The solo validator's voting power: any positive number; 10 is CometBFT's default. */
export const soloValidatorPower = 10;
/** An HTTP worker that is not listening this long after it was forked failed to start. */
const workerStartTimeoutMs = 30_000;
/** A dead HTTP worker is replaced after this pause. */
const workerRestartDelayMs = 1_000;
/** Beyond the engine's commit timeout, what a worker gets to finish its requests on close. */
const workerCloseMarginMs = 5_000;

export interface NodeDeps {
  /** Default: JSON lines on stdout at `log.level`. */
  readonly logger?: Logger;
  /** Where a new node key's seed comes from (default: node:crypto). */
  readonly randomBytes?: NodeKeyDeps["randomBytes"];
  /** After a fatal engine error has been logged and the node closed (default: exit with 1). */
  readonly onFatal?: (error: unknown) => void;
  /** Opens the node's store (default: openStore.ts, as `database.backend` says); tests wrap it to inject failures. */
  readonly openStore?: (options: ModuleOptions) => Store | Promise<Store>;
  /**
   * The one clock of the node's parts: the engine's timers, the stream's pings, the HTTP API's
   * stalls, CometBFT's stop, legacy CREATE timestamps (default: `systemClock`, Node's own).
   */
  readonly clock?: Clock;
  /** Random UUIDs for legacy CREATEs (default: node:crypto's `randomUUID`). */
  readonly uuid?: () => string;
}

export interface NodeHandle {
  /** The HTTP API's bound address (the port the OS picked, for port 0). */
  readonly http: HostPort;
  /** The WebSocket stream's bound address. */
  readonly ws: HostPort;
  /** The metrics' bound address (`metrics.bind`), or null without metrics. */
  readonly metrics: HostPort | null;
  /** The stream URL the API advertises. */
  readonly streamsUrl: string;
  /** The node key, base58: the solo validator. */
  readonly publicKey: string;
  /** Graceful stop (see the header); the same promise on every call. */
  close(): Promise<void>;
}

export async function startNode(config: Config, deps: NodeDeps = {}): Promise<NodeHandle> {
  const logger = deps.logger ?? createLogger(config.log.level);
  const clock = deps.clock ?? systemClock;
  const options = moduleOptions(config);
  const keyDeps = deps.randomBytes === undefined ? undefined : { randomBytes: deps.randomBytes };
  // Before anything is written: the data directory, its lock, the ports (preflight.ts).
  const lock = await preflight(config);
  warnUnsafeSettings(config, logger);
  const closers = new Closers(logger);
  closers.add("data directory lock", async () => lock.release());

  try {
    const { key, created } = loadOrCreateNodeKey(config.data_dir, keyDeps);
    if (created) logger.info({ path: key.path, publicKey: key.publicKey }, "node key created");
    const validator: Validator = { publicKey: key.publicKeyHex, power: soloValidatorPower };
    const store = await (deps.openStore ?? ((o: ModuleOptions) => openStore(o, "writer", logger)))(options);
    closers.add("store", () => store.close());
    await checkChain(store, config, key);
    // With HTTP workers, transactions arrive here prepared by the workers: no threads needed.
    const threads = config.server.workers > 1 ? 0 : options.preparePool.threads;
    const pool = new PreparePool({ ...options.preparePool, threads });
    closers.add("verification pool", () => pool.close());
    const refuse = config.engine.kind === "solo" ? soloElectionRefusal : undefined;
    const ledger = await LedgerApp.open(options.ledger, { store, pool, clock, ...(refuse === undefined ? {} : { refuse }) });
    const metrics = nodeMetricsOf(options.metrics, { ledger, pool, storeSize: () => store.sizeBytes() });
    ledger.onCommitted((block) => {
      logger.debug({ height: block.height, txs: block.txs.length, appHash: block.appHash }, "block committed");
      // CometBFT proved a validator misbehaved (docs/http-api.md "Evidence"): an operator must know.
      for (const evidence of block.evidence) logger.warn({ evidence }, "a committed block carries evidence of a validator's misbehavior");
    });
    const stopAfter = (why: string) => (error: unknown): void => {
      logger.fatal({ err: error }, why);
      void closers.closeAll().finally(() => (deps.onFatal ?? exitWithFailure)(error));
    };
    const onFatal = stopAfter("the engine stopped after an internal error; the node stops");
    // A damaged database met by any read: the node serves and signs nothing more from it.
    store.onDamaged?.(stopAfter("the database is damaged; the node stops"));
    // cometbft: the ABCI server listens before CometBFT starts; CometBFT's handshake replays what
    // this ledger lacks, and its genesis gives the validators.
    const engine =
      config.engine.kind === "cometbft"
        ? await CometBftEngine.start(options.cometBftEngine, { ledger, store, version: packageInfo().version, onFatal, logger, clock })
        : await SoloEngine.start(options.soloEngine, { ledger, validator, onFatal, clock });
    closers.add("engine", () => engine.stop());
    await superviseCometBft(config, closers, { onFatal, logger, clock });
    const stream = await StreamServer.start(options.stream, { ledger, store, logger, clock });
    closers.add("event stream", () => stream.close());
    metrics?.watchStream(stream);
    const ws: HostPort = { host: options.stream.host, port: stream.port };
    const streamsUrl = streamsUrlOf(config.wsserver.advertised_url, ws);
    const version = packageInfo().version;
    // The earlier interface variants (docs/compatibility.md #13-#16): CREATEs re-made and signed by
    // the node key. Under CometBFT they are accepted only if that key is a validator (the
    // federation).
    const legacy = new LegacyService({
      engine,
      ledger,
      store,
      signer: { publicKey: key.publicKey, seed: key.seed },
      now: () => clock.now(),
      uuid: deps.uuid ?? randomUUID,
    });
    const readiness = nodeReadiness(store, engine);
    metrics?.watchReadiness({ ready: async () => failedChecks(await readiness.check()).length === 0 });
    const checkpoints = checkpointNotaryOf(config, key);
    const witness = witnessOf(config, clock);
    const parts: HttpParts = { ledger, engine, store, logger, streamsUrl, version, legacy, metrics, readiness, clock, checkpoints, witness };
    const http = await startHttp(config, parts, closers);

    logger.info(
      {
        http: `${http.address.host}:${http.address.port}`,
        metrics: http.metrics === null ? null : `${http.metrics.host}:${http.metrics.port}`,
        ws: `${ws.host}:${ws.port}`,
        streamsUrl,
        dataDir: config.data_dir,
        database: databaseName(options),
        engine: config.engine.kind,
        height: ledger.info().height,
        publicKey: key.publicKey,
        workers: config.server.workers,
        threads: config.server.threads,
        versions: { ledgerd: version, node: process.versions.node },
      },
      "ledgerd started",
    );
    const close = async (): Promise<void> => {
      logger.info("ledgerd stopping");
      await closers.closeAll();
      logger.info("ledgerd stopped");
    };
    let closing: Promise<void> | null = null;
    return {
      http: http.address,
      metrics: http.metrics,
      ws,
      streamsUrl,
      publicKey: key.publicKey,
      close: () => (closing ??= close()),
    };
  } catch (error) {
    await closers.closeAll();
    throw refusalOf(error);
  }
}

/**
 * A damaged database is the machine's fault, not the code's: its message (the file and what to
 * do, store/sqlite/damage.ts) is the one line the operator needs. So is a database this
 * ledgerd does not open as it is (a newer schema, not a ledgerd database: store/schemaRefused.ts).
 */
function refusalOf(error: unknown): unknown {
  if (error instanceof LedgerError && error.code === "StoreDamaged") return new StartRefused(error.message, { cause: error });
  if (error instanceof SchemaRefused) return new StartRefused(error.message, { cause: error });
  return error;
}

interface HttpParts {
  readonly ledger: LedgerApp;
  readonly engine: Broadcaster;
  readonly store: Store;
  readonly logger: Logger;
  readonly streamsUrl: string;
  readonly version: string;
  readonly legacy: LegacyService;
  readonly metrics: NodeMetrics | null;
  readonly readiness: ReadinessProbe;
  readonly clock: Clock;
  readonly checkpoints: CheckpointNotary | undefined;
  readonly witness: Witness | undefined;
}

/**
 * The HTTP API in this process, or in `server.workers` processes sharing the port; then the
 * metrics server (`metrics.bind`), which gathers the workers' figures at each scrape.
 */
async function startHttp(
  config: Config,
  parts: HttpParts,
  closers: Closers,
): Promise<{ address: HostPort; metrics: HostPort | null }> {
  const ops = new PrimaryOps(parts.readiness);
  const cluster = config.server.workers > 1 ? await startHttpWorkers(config, parts, closers, ops) : null;
  const address = cluster?.address ?? (await startHttpHere(config, parts, closers));
  const workers = async (): Promise<MetricsSnapshot[]> => (cluster === null ? [] : ops.gatherMetrics(cluster.connectedWorkers()));
  const server = await startMetricsServer(moduleOptions(config).metrics, parts.metrics, workers, parts.logger);
  if (server === null) return { address, metrics: null };
  closers.add("metrics server", () => server.close());
  return { address, metrics: server.address };
}

async function startHttpWorkers(config: Config, parts: HttpParts, closers: Closers, ops: PrimaryOps): Promise<HttpCluster> {
  const { ledger, engine, logger, streamsUrl, version, legacy } = parts;
  const cluster = await HttpCluster.start(
    {
      workers: config.server.workers,
      start: { tag: ipcTag, type: "start", config, streamsUrl, version },
      startTimeoutMs: workerStartTimeoutMs,
      closeTimeoutMs: config.engine.commit_timeout_ms + workerCloseMarginMs,
      restartDelayMs: workerRestartDelayMs,
    },
    { ledger, engine, logger, legacy, onOpsMessage: (message, from) => ops.handle(message, from) },
  );
  closers.add("HTTP workers", () => cluster.close());
  return cluster;
}

async function startHttpHere(config: Config, parts: HttpParts, closers: Closers): Promise<HostPort> {
  const { engine, store, logger, streamsUrl, version, legacy, metrics, readiness, clock, checkpoints, witness } = parts;
  const http = moduleOptions(config).http;
  const measured = measuredHttpDeps(metrics, engine, legacy);
  const signedHeaders = signedHeadersOf(config.engine, moduleOptions(config).cometBftEngine, clock);
  if (signedHeaders !== undefined) closers.add("CometBFT RPC of the proofs", async () => signedHeaders.close());
  const proofs = {
    ...(signedHeaders === undefined ? {} : { signedHeaders }),
    ...(checkpoints === undefined ? {} : { checkpoints }),
    ...(witness === undefined ? {} : { witness }),
  };
  const app = await buildHttpApp({ ...http, streamsUrl, version }, { ...measured, store, logger, readiness, clock, ...proofs });
  closers.add("HTTP server", () => closeHttpApp(app));
  return listenHttpApp(app, http);
}

/**
 * With `engine.cometbft_home`, CometBFT is the node's own child: started now that the ABCI
 * server listens, stopped before it (closers run in reverse), and its exit on its own stops the
 * node (engine/cometbft/cometBftSupervisor.ts).
 */
async function superviseCometBft(
  config: Config,
  closers: Closers,
  deps: { readonly onFatal: (error: unknown) => void; readonly logger: Logger; readonly clock: Clock },
): Promise<void> {
  const { onFatal, logger, clock } = deps;
  if (config.engine.kind !== "cometbft" || config.engine.cometbft_home === "") return;
  const binary = config.engine.cometbft_binary === "" ? defaultCometBftBinary() : config.engine.cometbft_binary;
  const logPath = join(config.data_dir, cometBftLogName);
  const pidPath = join(config.data_dir, cometBftPidName);
  const cometbft = await CometBftSupervisor.start(binary, config.engine.cometbft_home, { logPath, pidPath, onUnexpectedExit: onFatal, clock });
  closers.add("CometBFT", () => cometbft.stop());
  logger.info({ pid: cometbft.pid, home: config.engine.cometbft_home, log: logPath }, "CometBFT started");
}

/**
 * What start-up opened, closed in reverse order: on shutdown that is HTTP, engine, stream, pool,
 * store. A closer that fails is logged and the rest still close. Runs once.
 */
class Closers {
  private readonly closers: { readonly name: string; readonly close: () => Promise<void> }[] = [];
  private closing: Promise<void> | null = null;

  constructor(private readonly logger: Logger) {}

  add(name: string, close: () => Promise<void>): void {
    this.closers.push({ name, close });
  }

  closeAll(): Promise<void> {
    this.closing ??= (async () => {
      for (const closer of [...this.closers].reverse()) {
        await closer.close().catch((error: unknown) => {
          this.logger.error({ err: error }, `closing the ${closer.name} failed`);
        });
      }
    })();
    return this.closing;
  }
}

/**
 * A database belongs to one chain and one validator: started with another chain id or another
 * node key, the node would extend a chain it is not the validator of.
 */
async function checkChain(store: Store, config: Config, key: NodeKey): Promise<void> {
  const state = await store.getChainState();
  if (state.chainId === null) return;
  const source = `database ${databaseName(moduleOptions(config))}`;
  if (state.chainId !== config.engine.chain_id) {
    const reason = `is ${config.engine.chain_id}, but the database holds chain ${state.chainId}`;
    throw new ConfigError([{ key: "engine.chain_id", reason, source }]);
  }
  // Under CometBFT the validators are CometBFT's keys (genesis), not the node key.
  if (config.engine.kind !== "solo") return;
  const validators = await store.getValidators();
  if (!validators.some((v) => v.publicKey === key.publicKeyHex)) {
    const reason = `${key.publicKey} is not a validator of chain ${state.chainId}`;
    throw new ConfigError([{ key: "node_key.json", reason, source }]);
  }
}

/** The advertised stream URL: the setting, or the stream's own address (BigchainDB's default). */
export function streamsUrlOf(advertisedUrl: string, ws: HostPort): string {
  if (advertisedUrl !== "") return advertisedUrl.replace(/\/+$/, "") + streamPath;
  return `ws://${clientHostOf(ws)}:${ws.port}${streamPath}`;
}

function exitWithFailure(): void {
  process.exit(1);
}
