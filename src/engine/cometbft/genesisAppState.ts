// What a CometBFT genesis tells ledgerd: in its `app_state` (InitChain's app_state_bytes) the app
// hash rule of the chain (docs/proofs.md) and the heights of scheduled rule changes
// (docs/upgrades.md); in its consensus params the protocol version its blocks start with. Every
// node of a network must use the same rules from height 1, also one that joins years later and
// replays from genesis, so they are in the genesis, not in each node's settings. A genesis
// without a commitment is one made before the rule existed: those chains keep BigchainDB's app hash.
import type { CommitmentVersion } from "../../proofs/commitment.js";
import { protocolVersion, ruleHeightsOf, type RuleHeights } from "../../ledger/protocol.js";

/** The `app_state` ledgerd writes into a new network's genesis. */
export const genesisAppState = { commitment: "v1" } as const;

/**
 * CometBFT v0.38's default consensus params (`types.DefaultConsensusParams`) with this release's
 * protocol version: what a new network's genesis carries. CometBFT fills in no missing field of
 * a genesis's params, so all are written.
 */
export const genesisConsensusParams = {
  block: { max_bytes: "22020096", max_gas: "-1" },
  evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
  validator: { pub_key_types: ["ed25519"] },
  version: { app: String(protocolVersion) },
  abci: { vote_extensions_enable_height: "0" },
} as const;

export interface GenesisRules {
  readonly commitment: CommitmentVersion;
  readonly ruleHeights: RuleHeights;
}

/** The rules a genesis's app_state names; throws on an app_state ledgerd cannot have written. */
export function rulesOfAppState(bytes: Uint8Array): GenesisRules {
  const text = Buffer.from(bytes).toString("utf8").trim();
  if (text === "" || text === "null" || text === "{}") return { commitment: "bigchaindb", ruleHeights: ruleHeightsOf(undefined) };
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new Error(`the genesis app_state is not JSON: ${text.slice(0, 80)}`);
  }
  const fields = (state ?? {}) as { commitment?: unknown; rule_heights?: unknown };
  const commitment = fields.commitment;
  if (commitment !== "v1" && commitment !== "bigchaindb") {
    throw new Error(`the genesis app_state names no app hash rule ledgerd knows ("commitment": "v1" or "bigchaindb"): ${text.slice(0, 80)}`);
  }
  return { commitment, ruleHeights: ruleHeightsOf(fields.rule_heights) };
}

/**
 * The protocol version a genesis's consensus params start the chain with (`version.app`), checked:
 * 0 is a chain made before ledgerd reported one (the same rules as version 1); a version above
 * this release's is a chain of a newer ledgerd, refused.
 */
export function genesisProtocolVersion(app: bigint): bigint {
  if (app > protocolVersion) {
    throw new Error(`the genesis's consensus_params.version.app is ${app}; this ledgerd runs protocol version ${protocolVersion}: use a newer ledgerd`);
  }
  return app;
}
