// `ledgerd serve-reads` (docs/postgres.md, "Readers on other machines"): an HTTP process that
// answers the API's reads from a store it only reads (a PostgreSQL replica, or the node's own
// database), with no engine, no node key, no data folder lock and no event stream, so that
// reads can be spread over as many machines as the database has replicas. Writes belong to
// the node that writes: with a writer URL they are redirected there (307 keeps the method and
// the body, and fetch-based clients such as the JavaScript driver follow it); without one they
// are refused 405 ReadOnlyNode. The earlier interface variants are not served here.
import type { Logger } from "pino";
import { moduleOptions } from "../config/moduleOptions.js";
import type { HostPort } from "../config/parseHostPort.js";
import type { Config } from "../config/schema.js";
import type { Broadcaster } from "../engine/broadcaster.js";
import { LedgerError } from "../errors/ledgerError.js";
import { buildHttpApp } from "../http/httpApp.js";
import { closeHttpApp, listenHttpApp } from "./closeHttpApp.js";
import { openStore } from "./openStore.js";
import { packageInfo } from "./packageInfo.js";

export interface ReadServerHandle {
  readonly address: HostPort;
  close(): Promise<void>;
}

/** The methods a read server answers itself. */
const readMethods = new Set(["GET", "HEAD", "OPTIONS"]);

function readOnly(): LedgerError {
  return new LedgerError("ReadOnlyNode", "This ledgerd serves reads only (ledgerd serve-reads): send transactions to the node that writes");
}

/** A broadcaster that never takes a transaction: the hook below answers every write first. */
const refusingBroadcaster: Broadcaster = {
  broadcast: async () => {
    throw readOnly();
  },
};

export async function startReadServer(config: Config, deps: { readonly writerUrl: string; readonly logger: Logger }): Promise<ReadServerHandle> {
  const options = moduleOptions(config);
  const store = await openStore(options, "reader");
  try {
    // The stream is the writer's: its address only when the operator names it.
    const streamsUrl = config.wsserver.advertised_url;
    const app = await buildHttpApp(
      { ...options.http, streamsUrl, version: packageInfo().version },
      // Every write meets the hook below, so none may take the POST lane past it.
      { broadcaster: refusingBroadcaster, store, logger: deps.logger, postLane: false },
    );
    const writer = deps.writerUrl.replace(/\/+$/, "");
    app.addHook("onRequest", async (request, reply) => {
      if (readMethods.has(request.method)) return;
      if (writer === "") {
        reply.header("allow", [...readMethods].join(", "));
        throw readOnly();
      }
      return reply.code(307).header("location", `${writer}${request.url}`).send();
    });
    const address = await listenHttpApp(app, options.http);
    return {
      address,
      close: async () => {
        await closeHttpApp(app);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
