// One HTTP worker process (server.workers > 1): its own Fastify app on the shared port, a
// read-only connection to the primary's SQLite file (WAL lets readers in other processes see each
// commit), its own verification threads, and an IpcBroadcaster that hands prepared transactions
// to the primary. The ledger, the engine and the only writer stay in the primary.
import type { Logger } from "pino";
import { closeHttpApp, listenHttpApp } from "./closeHttpApp.js";
import { moduleOptions } from "../config/moduleOptions.js";
import type { HostPort } from "../config/parseHostPort.js";
import { buildHttpApp } from "../http/httpApp.js";
import { PreparePool } from "../ledger/preparePool.js";
import { openStore } from "./openStore.js";
import { checkpointNotaryOf } from "./checkpointSigner.js";
import { signedHeadersOf, type CometBftSignedHeaders } from "../engine/cometbft/signedHeaders.js";
import { IpcBroadcaster } from "./ipc/ipcBroadcaster.js";
import { IpcLegacyGateway } from "./ipc/ipcLegacyGateway.js";
import type { BroadcastRequest, LegacyRequest, StartMessage } from "./ipc/ipcMessages.js";
import type { IpcChannel } from "./ipc/ipcRequester.js";
import { measuredHttpDeps, workerMetricsOf } from "./nodeMetricsWiring.js";
import { WorkerOps, type OpsWorkerMessage } from "./ipc/opsIpc.js";
import { workerReadiness } from "./readiness.js";

export interface HttpWorkerDeps {
  /** One channel carries the v2.0 broadcasts, the legacy requests and the operators' (ipc/opsIpc.ts). */
  readonly channel: IpcChannel<BroadcastRequest | LegacyRequest | OpsWorkerMessage>;
  readonly logger: Logger;
}

export interface HttpWorkerHandle {
  readonly address: HostPort;
  /** Stop accepting, finish the requests in progress, then release the pool and the store. */
  close(): Promise<void>;
}

export async function runHttpWorker(start: StartMessage, deps: HttpWorkerDeps): Promise<HttpWorkerHandle> {
  const options = moduleOptions(start.config);
  // The primary created the database before forking (a SQLite file it opened with access
  // "readers", or PostgreSQL's schema); a reader never writes, and sees each commit.
  const store = await openStore(options, "reader");
  const pool = new PreparePool(options.preparePool);
  let signedHeaders: CometBftSignedHeaders | undefined;
  try {
    const broadcaster = new IpcBroadcaster({ pool, channel: deps.channel });
    const legacy = new IpcLegacyGateway({ pool, channel: deps.channel });
    // Metrics and readiness (issue #13): this worker's figures go to the node's process on
    // request; its /readyz asks the node's process for the node's checks.
    const metrics = workerMetricsOf(options.metrics, pool);
    const ops = new WorkerOps(deps.channel, async () => (metrics === null ? [] : metrics.snapshot()));
    signedHeaders = signedHeadersOf(start.config.engine, options.cometBftEngine);
    // The worker signs checkpoints with the node key too (a file beside the database it reads).
    const checkpoints = checkpointNotaryOf(start.config);
    const proofs = { ...(signedHeaders === undefined ? {} : { signedHeaders }), ...(checkpoints === undefined ? {} : { checkpoints }) };
    const app = await buildHttpApp(
      { ...options.http, streamsUrl: start.streamsUrl, version: start.version },
      { ...measuredHttpDeps(metrics, broadcaster, legacy), store, logger: deps.logger, readiness: workerReadiness(store, ops), ...proofs },
    );
    const address = await listenHttpApp(app, options.http);
    return {
      address,
      close: async () => {
        await closeHttpApp(app);
        signedHeaders?.close();
        await pool.close();
        await store.close();
      },
    };
  } catch (error) {
    signedHeaders?.close();
    await pool.close();
    await store.close();
    throw error;
  }
}
