import type { Config } from "./schema.js";

/** A setting that names an address the node listens on. */
export interface ListenAddress {
  readonly key: string;
  readonly text: string;
}

/**
 * Every address the node listens on with these settings, by setting name: checked for clashes
 * when the settings load, and for being free before anything is written at start.
 */
export function listenAddresses(config: Config): ListenAddress[] {
  const addresses: ListenAddress[] = [
    { key: "server.bind", text: config.server.bind },
    { key: "wsserver.bind", text: config.wsserver.bind },
  ];
  if (config.engine.kind === "cometbft") {
    addresses.push({ key: "engine.abci_bind", text: config.engine.abci_bind });
  }
  // Empty: no metrics server.
  if (config.metrics.bind !== "") addresses.push({ key: "metrics.bind", text: config.metrics.bind });
  return addresses;
}
