// A chaos run's settings and their one source of defaults (STYLE rule 10): `chaos/run.ts` reads
// its flags over these.

export interface ChaosOptions {
  /** The runs, one after the other. */
  readonly runs: readonly ChaosRun[];
  /** How long the workload and the nemesis run, before the last heal. */
  readonly durationMs: number;
  /** Where each seed's history, record and report are written (a folder per seed). */
  readonly outDir: string;
  /** Keep the testnet's folder (logs, data) after the run. */
  readonly keep: boolean;
  /** Print each seed's fault plan and run nothing. */
  readonly planOnly: boolean;
}

/**
 * One seed's run: its seed, the nodes that keep their ledger in PostgreSQL (none: SQLite), and
 * whether a node joins and is elected a validator during it.
 */
export interface ChaosRun {
  readonly seed: number;
  readonly postgresNodes: readonly number[];
  readonly join: boolean;
}

/** The network: validators, then full nodes (the last indexes). */
export const validators = 4;
export const fullNodes = 1;

/**
 * `--short`, the set CI runs: fixed seeds of about a minute each, chosen because their first
 * four faults (what a minute holds) are the twelve kinds, each once. Seed 3 (no kills, so a
 * minute holds a fifth fault) runs a validator and the full node on PostgreSQL, and its plan
 * adds a PostgreSQL kill among its first four faults; in seed 22 a node joins and is elected.
 */
export const shortRuns: readonly ChaosRun[] = [
  { seed: 1, postgresNodes: [], join: false },
  { seed: 3, postgresNodes: [1, 4], join: false },
  { seed: 22, postgresNodes: [], join: true },
];
export const shortDurationMs = 60_000;

export const chaosDefaults = {
  durationMs: 120_000,
  outDir: "chaos-out",
  keep: false,
  planOnly: false,
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
  /** A PostgreSQL kill comes once in this many faults, the first among the first four. */
  postgresKillEvery: 13,
  /**
   * It strikes just after a node on PostgreSQL saw a new height (the block's write under way):
   * the height watched this often, up to this long.
   */
  postgresKillPollMs: 10,
  postgresKillWaitMsMax: 3_000,
  /**
   * The added faults (a crash point armed, a clock moved, a validator's twin) come after the
   * seed's first this many faults (what a minute holds: the short set's kinds stay as they
   * were), then one after every this many.
   */
  addedFaultFirstAt: 4,
  addedFaultEvery: 4,
  /**
   * The crash points a run's workload reaches (src/failpoints.ts): each block's execution and
   * commit. `election.conclude` is reached once an election concludes, `backup.mid` only in a
   * backup: their own tests arm them (test/e2e/cometbft/crashPoints.test.ts,
   * test/e2e/backup.test.ts).
   */
  crashPoints: ["finalize.mid", "commit.answered-before-durable"],
  /** The point is armed to strike the count-th time it is reached, a count up to this. */
  crashPointCountMax: 3,
  /**
   * A skewed node's clock is ahead by up to this, or behind by up to the other (under CometBFT's
   * `block_time_tolerance` of 60 s: further behind, it refuses the network's blocks until
   * restarted, a documented CometBFT behaviour: docs/faults.md, "Clock skew"); at least the least.
   */
  clockAheadMsMax: 180_000,
  clockBehindMsMax: 50_000,
  clockSkewMsMin: 5_000,
  /**
   * With clock skew planned, the genesis time is put this far back, so that a node whose clock
   * is behind never reads a time before it (CometBFT then sleeps until genesis at its start).
   */
  genesisAgeMs: 3_600_000,
  /**
   * A double signing's twin first catches up under a key of its own, to this many heights below
   * its validator's, within this (else the fault is not injected: the run's failure).
   */
  twinCaughtUpHeights: 2,
  twinCatchUpMsMax: 120_000,
  /**
   * A torn log comes after the seed's first this many faults (past what a minute holds: the
   * short set stays as it was), then one after every this many.
   */
  diskFaultFirstAt: 8,
  diskFaultEvery: 8,
  /**
   * Bytes cut: CometBFT's consensus log inside its last record (its end-of-height record alone
   * is over 16 bytes); the ledger's write-ahead log inside its last frame (24 bytes of header
   * and a 4,096-byte page).
   */
  cometBftWalCutMax: 16,
  ledgerWalCutMax: 4_119,
  /** A log is torn only past this many bytes (SQLite's write-ahead log header is 32). */
  walHeaderBytesMax: 32,
  /** The struck node's processes must be gone this soon after SIGKILL, before the cut. */
  diskFaultKillMsMax: 10_000,
} as const;

export const recoveryLimits = {
  /** After the last heal, every node must commit a new transaction within this. */
  recoveryMsMax: 60_000,
  /** Waiting for every node to agree on one height before the snapshot. */
  agreementMsMax: 90_000,
  /** Transactions whose proofs are fetched and verified on each node. */
  proofSample: 5,
  readyMsMax: 90_000,
  /** After a PostgreSQL server's restart, its nodes must be ready (`/readyz` 200) within this. */
  postgresReadyMsMax: 60_000,
} as const;

export const electionLimits = {
  /** The node joins this share of the way into the workload. */
  joinAtShare: 0.25,
  /** It must reach the validators' height at its start within this. */
  catchUpMsMax: 60_000,
  /** The election must conclude within this of the node catching up (or not). */
  electionMsMax: 120_000,
  /** A command that failed (a node down or paused) is sent again, to another node, after this. */
  retryMs: 1_000,
  /** The new validator's power: a genesis validator's, under a third of the four's total. */
  power: 1,
  /** CometBFT applies a set change two heights after the block that made it: waited for up to this. */
  setChangeMsMax: 30_000,
} as const;

/** CometBFT's pause between heights on the chaos testnet (as `ledgerd testnet`'s default). */
export const timeoutCommitMs = 200;
