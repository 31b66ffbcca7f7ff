// The protocol version a chain's genesis starts with, for a ledger whose store did not record it
// at InitChain (a chain begun before SQLite schema 7, PostgreSQL migration 5): read from
// CometBFT's RPC `genesis` and recorded once, so that Info reports the chain's own version, which
// state sync compares with the headers' (docs/upgrades.md). CometBFT serves RPC only after its
// handshake, so the read is tried after each commit until one succeeds.
import type { Logger } from "pino";
import type { LedgerApp } from "../../ledger/ledgerApp.js";
import { genesisProtocolVersion } from "./genesisAppState.js";

/** How long one read of the genesis may take. */
export const genesisReadTimeoutMs = 10_000;

export interface GenesisSource {
  call(method: "genesis", params: Readonly<Record<string, never>>, timeoutMs: number): Promise<unknown>;
}

export class GenesisVersionReader {
  #reading: Promise<void> | null = null;
  /** The genesis answered with a version this release cannot take: read no more. */
  #refused = false;

  constructor(
    private readonly ledger: Pick<LedgerApp, "genesisVersionUnknown" | "recordGenesisVersion">,
    private readonly rpc: GenesisSource,
    private readonly logger?: Pick<Logger, "info" | "warn" | "error">,
  ) {}

  /** Reads and records the version unless it is known or a read is under way. */
  poke(): void {
    if (!this.ledger.genesisVersionUnknown || this.#reading !== null || this.#refused) return;
    const failed = "the genesis's protocol version could not be read from CometBFT; tried again after the next block";
    this.#reading = this.#read()
      .catch((error: unknown) => this.logger?.warn({ err: error }, failed))
      .finally(() => (this.#reading = null));
  }

  /** Resolves when no read is under way. */
  settled(): Promise<void> {
    return this.#reading ?? Promise.resolve();
  }

  async #read(): Promise<void> {
    const answer = (await this.rpc.call("genesis", {}, genesisReadTimeoutMs)) as { genesis?: unknown } | null;
    let version: bigint;
    try {
      version = genesisAppVersionOf(answer?.genesis);
    } catch (error) {
      // The genesis answered: every later read answers the same, so this one is the last.
      this.#refused = true;
      this.logger?.error({ err: error }, "the genesis's protocol version cannot be taken; Info keeps this release's (docs/upgrades.md)");
      return;
    }
    await this.ledger.recordGenesisVersion(version);
    this.logger?.info({ appVersion: String(version) }, "recorded the protocol version of the chain's genesis");
  }
}

/**
 * `consensus_params.version.app` of a genesis as CometBFT's RPC shows it (a decimal string;
 * absent is 0, CometBFT's default), checked as InitChain checks it.
 */
export function genesisAppVersionOf(genesis: unknown): bigint {
  const params = (genesis as { consensus_params?: { version?: { app?: unknown } } } | undefined)?.consensus_params;
  const app = params?.version?.app ?? "0";
  if (typeof app !== "string" || !/^(0|[1-9][0-9]{0,19})$/.test(app)) {
    throw new Error(`CometBFT's genesis has consensus_params.version.app ${JSON.stringify(app)}, not a version`);
  }
  return genesisProtocolVersion(BigInt(app));
}
