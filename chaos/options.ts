// A chaos run's settings and their one source of defaults (STYLE rule 10): `chaos/run.ts` reads
// its flags over these.

export interface ChaosOptions {
  /** One run per seed, one after the other. */
  readonly seeds: readonly number[];
  /** How long the workload and the nemesis run, before the last heal. */
  readonly durationMs: number;
  /** Where each seed's history, record and report are written (a folder per seed). */
  readonly outDir: string;
  /** Keep the testnet's folder (logs, data) after the run. */
  readonly keep: boolean;
}

/** The network: validators, then full nodes (the last indexes). */
export const validators = 4;
export const fullNodes = 1;

/**
 * `--short`, the set CI runs: fixed seeds of about a minute each, chosen because their first
 * four faults (what a minute holds) are the twelve kinds, each once.
 */
export const shortSeeds: readonly number[] = [1, 3, 22];
export const shortDurationMs = 60_000;

export const chaosDefaults = {
  durationMs: 120_000,
  outDir: "chaos-out",
  keep: false,
} as const;

export const workloadLimits = {
  /** Clients posting at once. */
  clients: 8,
  /** Each client's pause between steps, drawn in this range. */
  thinkMsMin: 20,
  thinkMsMax: 150,
  /** The chance a step is a read, a double spend, a new CREATE (else a TRANSFER of the chain). */
  readChance: 0.2,
  doubleSpendChance: 0.08,
  createChance: 0.1,
  /** Keys each client hands its outputs between. */
  keysPerClient: 4,
  /** The nodes stream subscribers listen on (a validator, another, the full node). */
  subscriberNodes: [0, 2, 4] as readonly number[],
  /** A subscriber whose socket closed opens a new one after this pause. */
  reconnectMs: 500,
  /** How long a client waits for an answer: above ledgerd's commit_timeout_ms in commit mode. */
  commitRequestMsMax: 45_000,
  requestMsMax: 10_000,
  /** How long a client waits to see an async/sync acceptance commit before starting a new chain. */
  awaitCommitMsMax: 10_000,
  pollMs: 250,
} as const;

export const nemesisLimits = {
  /** Faults start after the network has run quietly this long. */
  warmupMs: 5_000,
  faultMsMin: 3_000,
  faultMsMax: 7_000,
  /** The quiet between a heal and the next fault. */
  gapMsMin: 2_000,
  gapMsMax: 4_000,
  /** Slow links: toxiproxy latency and jitter on every link of the node. */
  slowLatencyMs: 400,
  slowJitterMs: 300,
  /** Lossy links: connections reset after this long, on this share of them, and a bandwidth cap. */
  lossyResetMs: 2_000,
  lossyToxicity: 0.5,
  lossyRateKBps: 64,
} as const;

export const recoveryLimits = {
  /** After the last heal, every node must commit a new transaction within this. */
  recoveryMsMax: 60_000,
  /** Waiting for every node to agree on one height before the snapshot. */
  agreementMsMax: 90_000,
  /** Transactions whose proofs are fetched and verified on each node. */
  proofSample: 5,
  readyMsMax: 90_000,
} as const;

/** CometBFT's pause between heights on the chaos testnet (as `ledgerd testnet`'s default). */
export const timeoutCommitMs = 200;
