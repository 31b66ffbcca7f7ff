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
import { ConfigError } from "../config/configError.js";
import { CheckpointWitnesses } from "../ledger/checkpointWitnesses.js";
import { cosignatureType } from "../proofs/cosignature.js";
import { parseVerifierKey } from "../proofs/signedNote.js";

export function checkpointSignerOf(key: Pick<NodeKey, "publicKey" | "seed">, origin: string): NoteSigner {
  const privateKey = privateKeyFromSeed(key.seed);
  return {
    name: origin,
    publicKey: decodeBase58(key.publicKey),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

/** How long a witness may take to answer before it counts as not cosigning. */
export const witnessRequestTimeoutMs = 5_000;

/** The notary of a node whose key is `key` (default: read from `data_dir`); none without a key. */
export function checkpointNotaryOf(config: Config, key: NodeKey | null = readNodeKey(config.data_dir)): CheckpointNotary | undefined {
  if (key === null) return undefined;
  const options = moduleOptions(config).checkpoint;
  const origin = checkpointOriginOf(options.origin, config.engine.chain_id);
  return new CheckpointNotary(checkpointSignerOf(key, origin), checkpointWitnessesOf(options.witnesses, options.witnessQuorum));
}

/** `checkpoint.witnesses`: `<vkey>@<url>`, comma-separated; a ConfigError names a bad one. */
function checkpointWitnessesOf(setting: string, quorum: number): CheckpointWitnesses | undefined {
  if (setting === "") return undefined;
  const witnesses = setting.split(",").map((entry) => {
    const at = entry.indexOf("@");
    const key = at < 0 ? null : parseVerifierKey(entry.slice(0, at).trim(), cosignatureType);
    const url = entry.slice(at + 1).trim().replace(/\/+$/, "");
    if (key === null || !/^https?:\/\/\S+$/.test(url)) {
      throw new ConfigError([{ key: "checkpoint.witnesses", reason: `${entry.trim()} is not <cosignature verifier key>@<http(s) URL>`, source: "settings" }]);
    }
    return { key, url };
  });
  if (quorum > witnesses.length) {
    throw new ConfigError([{ key: "checkpoint.witness_quorum", reason: `${quorum} is more than the ${witnesses.length} witnesses`, source: "settings" }]);
  }
  return new CheckpointWitnesses(witnesses, quorum, postToWitness);
}

async function postToWitness(url: string, body: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { method: "POST", body, headers: { "content-type": "text/plain" }, signal: AbortSignal.timeout(witnessRequestTimeoutMs) });
  return { status: response.status, body: await response.text() };
}
