// The transactions POSTed to this process's API, counted for the metrics as accepted or refused
// by error code: the Broadcaster and the legacy gateway the HTTP app is given, wrapped, so that
// neither the routes nor the engines know about metrics. In an HTTP worker this counts the
// refusals its own verification makes as well as those the node's process sends back.
import type { Broadcaster } from "../engine/broadcaster.js";
import { LedgerError } from "../errors/ledgerError.js";
import type { LegacyGateway, LegacyPosted } from "../http/routes/legacy.js";
import type { TxInterface } from "../metrics/nodeMetrics.js";

export interface TxCounter {
  transactionAccepted(via: TxInterface): void;
  transactionRefused(via: TxInterface, code: string): void;
}

/** Every argument is passed through as it is, whatever `Broadcaster` takes. */
export function countedBroadcaster(inner: Broadcaster, counter: TxCounter): Broadcaster {
  return {
    broadcast: (...args: Parameters<Broadcaster["broadcast"]>) =>
      counted(inner.broadcast(...args), "v2", counter),
  };
}

export function countedLegacyGateway(inner: LegacyGateway, counter: TxCounter): LegacyGateway {
  return {
    post: (bytes: Uint8Array): Promise<LegacyPosted> => counted(inner.post(bytes), "legacy", counter),
    status: (id: string) => inner.status(id),
  };
}

async function counted<T>(result: Promise<T>, via: TxInterface, counter: TxCounter): Promise<T> {
  try {
    const value = await result;
    counter.transactionAccepted(via);
    return value;
  } catch (error) {
    // Not a LedgerError is our bug, answered 500 as Internal by the error handler.
    counter.transactionRefused(via, error instanceof LedgerError ? error.code : "Internal");
    throw error;
  }
}
