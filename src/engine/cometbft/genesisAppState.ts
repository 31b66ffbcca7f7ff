// What a CometBFT genesis tells ledgerd in its `app_state` (InitChain's app_state_bytes): the
// app hash rule of the chain (docs/proofs.md). Every node of a network must use the same rule
// from height 1, also one that joins years later and replays from genesis, so the rule is in the
// genesis, not in each node's settings. A genesis without it is one made before the rule
// existed: those chains keep BigchainDB's app hash.
import type { CommitmentVersion } from "../../proofs/commitment.js";

/** The `app_state` ledgerd writes into a new network's genesis. */
export const genesisAppState = { commitment: "v1" } as const;

/** The rule a genesis's app_state names; throws on an app_state ledgerd cannot have written. */
export function commitmentOfAppState(bytes: Uint8Array): CommitmentVersion {
  const text = Buffer.from(bytes).toString("utf8").trim();
  if (text === "" || text === "null" || text === "{}") return "bigchaindb";
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new Error(`the genesis app_state is not JSON: ${text.slice(0, 80)}`);
  }
  const commitment = (state as { commitment?: unknown } | null)?.commitment;
  if (commitment === "v1" || commitment === "bigchaindb") return commitment;
  throw new Error(`the genesis app_state names no app hash rule ledgerd knows ("commitment": "v1" or "bigchaindb"): ${text.slice(0, 80)}`);
}
