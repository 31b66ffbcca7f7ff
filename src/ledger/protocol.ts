// The ledger's protocol version and its rules by height (docs/upgrades.md).
//
// The protocol version names the rules that decide a block's outcome: which transactions are
// valid, the app hash, the validator updates. It is here, beside the state machine, because the
// ledger is what runs those rules (transaction/, legacy/, crypto-conditions/ and proofs/ are its
// parts); the engine only reports it (ABCI Info's `app_version`). It changes only with a
// consensus change, never with a release that leaves every block's outcome as it was.
//
// A consensus change must switch on at one height for every validator, or the network splits.
// So a change is written as a named rule, both the old and the new behaviour stay in the code,
// and the height where the new one starts is named in the genesis's app_state
// (`"rule_heights": {"<rule>": H}`), or, for a chain already running, by the release for its
// chain id (`heightsByChain`): a node that replays the chain years later switches at the same
// height. The ledger's checks ask `rulesAt(height)` which rules hold.

/** The protocol version of this release's rules at genesis (before any scheduled rule change). */
export const protocolVersion = 1n;

/** A rule change this release knows: its name in `rule_heights`, the protocol version it starts. */
export interface RuleChange {
  readonly name: string;
  readonly protocolVersion: bigint;
  /**
   * Its height on chains that were running when the release came out, by chain id: a genesis
   * cannot change, so for those the release itself names the height, the same on every node
   * that runs it. A chain whose genesis names the rule keeps the genesis's height.
   */
  readonly heightsByChain?: Readonly<Record<string, number>>;
}

/** The rule changes this release can switch on, oldest first; a release adds its own here. */
const knownChanges: RuleChange[] = [];

/**
 * The rule changes this release can switch on. None yet: a genesis that names one is refused
 * (`ruleHeightsOf`). The heights a chain names are kept in the store's chain state from
 * InitChain (the genesis reaches the app only then) and read at every start.
 */
export const ruleChanges: readonly RuleChange[] = knownChanges;

/**
 * Adds a rule change to those this process knows. Only tests call it: a toy change, known to
 * every node of a real network they start, shows the switch at a height end to end
 * (test/e2e/cometbft/ruleHeight.test.ts). A release lists its changes in `knownChanges`.
 */
export function registerRuleChange(change: RuleChange): void {
  if (!knownChanges.some((known) => known.name === change.name)) knownChanges.push(change);
}

/** The height at which each named rule change switches on. */
export type RuleHeights = ReadonlyMap<string, number>;

export const noRuleHeights: RuleHeights = new Map();

/**
 * A chain's rule heights: those its genesis names (`genesis`, read by `ruleHeightsOf`) and those
 * this release names for the chain id (`heightsByChain`) where its genesis names none.
 */
export function ruleHeightsFor(
  chainId: string | null,
  genesis: RuleHeights,
  changes: readonly RuleChange[] = ruleChanges,
): RuleHeights {
  const heights = new Map(genesis);
  for (const change of changes) {
    const height = chainId === null ? undefined : change.heightsByChain?.[chainId];
    if (height !== undefined && !heights.has(change.name)) heights.set(change.name, height);
  }
  return heights.size === 0 ? noRuleHeights : heights;
}

/** The rule changes in force at `height`: those whose named height is at or below it. */
export function rulesAt(height: number, heights: RuleHeights): ReadonlySet<string> {
  const on = new Set<string>();
  for (const [name, from] of heights) if (height >= from) on.add(name);
  return on;
}

/**
 * The protocol version of the block at `height`: the newest switched-on change's, else
 * `genesisVersion`, the one the chain's genesis starts with.
 */
export function protocolVersionAt(
  height: number,
  genesisVersion: bigint,
  heights: RuleHeights,
  changes: readonly RuleChange[] = ruleChanges,
): bigint {
  let version = genesisVersion;
  const on = rulesAt(height, heights);
  for (const change of changes) if (on.has(change.name) && change.protocolVersion > version) version = change.protocolVersion;
  return version;
}

/**
 * The `rule_heights` of a genesis's app_state (absent: none). Throws, naming what is wrong, on a
 * rule this release does not know (a genesis for a newer ledgerd) or a height that is not a
 * positive safe integer.
 */
export function ruleHeightsOf(value: unknown, changes: readonly RuleChange[] = ruleChanges): RuleHeights {
  if (value === undefined) return noRuleHeights;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`the genesis app_state's rule_heights must be an object of rule names and heights: ${JSON.stringify(value)}`);
  }
  const known = new Set(changes.map((change) => change.name));
  const heights = new Map<string, number>();
  for (const [name, height] of Object.entries(value)) {
    if (!known.has(name)) {
      throw new Error(`the genesis app_state schedules the rule "${name}", which this ledgerd does not know: use a newer ledgerd`);
    }
    if (typeof height !== "number" || !Number.isSafeInteger(height) || height < 1) {
      throw new Error(`the genesis app_state's rule_heights.${name} must be a height of 1 or more: ${JSON.stringify(height)}`);
    }
    heights.set(name, height);
  }
  return heights;
}
