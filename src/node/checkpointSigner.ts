// The node key as the signer of the node's checkpoints (ledger/checkpoints.ts): a signed note's
// Ed25519 signer named by the checkpoints' origin (docs/transparency.md). node:crypto signs (tens
// of microseconds); the key's PKCS#8 form is loaded once.
import { sign } from "node:crypto";
import type { Config } from "../config/schema.js";
import { moduleOptions } from "../config/moduleOptions.js";
import { privateKeyFromSeed } from "../crypto-conditions/privateKeyFromSeed.js";
import { decodeBase58 } from "../crypto-conditions/decodeBase58.js";
import { CheckpointNotary, checkpointOriginOf, type NoteSigner } from "../ledger/checkpoints.js";
import { readNodeKey, type NodeKey } from "./nodeKey.js";

export function checkpointSignerOf(key: Pick<NodeKey, "publicKey" | "seed">, origin: string): NoteSigner {
  const privateKey = privateKeyFromSeed(key.seed);
  return {
    name: origin,
    publicKey: decodeBase58(key.publicKey),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

/** The notary of a node whose key is `key` (default: read from `data_dir`); none without a key. */
export function checkpointNotaryOf(config: Config, key: NodeKey | null = readNodeKey(config.data_dir)): CheckpointNotary | undefined {
  if (key === null) return undefined;
  const origin = checkpointOriginOf(moduleOptions(config).checkpoint.origin, config.engine.chain_id);
  return new CheckpointNotary(checkpointSignerOf(key, origin));
}
