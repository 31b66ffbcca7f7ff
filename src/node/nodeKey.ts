// The node's own Ed25519 key: in solo mode it is the whole validator set. It lives in
// `<data_dir>/node_key.json`, written once (by `ledgerd init`, or on first start) and never
// replaced: a node that changed key would no longer be the validator its chain was started with.
import { Buffer } from "node:buffer";
import { randomBytes as cryptoRandomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config/configError.js";
import { validatorSeedOf } from "../engine/cometbft/cometBftConfig.js";
import { decodeBase58 } from "../crypto-conditions/decodeBase58.js";
import { makeRandomKeypair } from "../transaction/builders/makeRandomKeypair.js";
import { makeKeypair } from "../transaction/builders/makeKeypair.js";
import { makeDirs } from "./preflight.js";

export const nodeKeyFileName = "node_key.json";
const seedBytes = 32;

/** What `node_key.json` holds; keys in the drivers' base58, as `ledgerd keys` prints them. */
export interface NodeKeyFile {
  readonly type: "ed25519";
  readonly public_key: string;
  readonly private_key: string;
}

export interface NodeKey {
  /** Base58 of the raw public key (the drivers' form). */
  readonly publicKey: string;
  /** The raw public key as 64 lowercase hex characters (the validator's `publicKey`). */
  readonly publicKeyHex: string;
  readonly seed: Uint8Array;
  readonly path: string;
}

export interface NodeKeyDeps {
  readonly randomBytes: (size: number) => Uint8Array;
}

const nodeKeyDepsDefault: NodeKeyDeps = { randomBytes: (size) => new Uint8Array(cryptoRandomBytes(size)) };

/** A new keypair file's content from 32 random bytes: also what `ledgerd keys` prints. */
export function newKeyFile(deps: NodeKeyDeps = nodeKeyDepsDefault): NodeKeyFile {
  const keypair = makeRandomKeypair(deps.randomBytes);
  return { type: "ed25519", public_key: keypair.publicKey, private_key: keypair.privateKey };
}

/**
 * The key file of a CometBFT validator's key (`priv_validator_key.json`), so the legacy CREATEs
 * the node signs come from a validator (`ledgerd testnet`, `ledgerd init --validator-key`).
 */
export function keyFileOfValidator(privValidatorKeyJson: string): NodeKeyFile {
  const keypair = makeKeypair(validatorSeedOf(privValidatorKeyJson));
  return { type: "ed25519", public_key: keypair.publicKey, private_key: keypair.privateKey };
}

/**
 * Writes a new `node_key.json` in `dataDir` (owner-only), random or the given one. Returns null,
 * writing nothing, when the file already exists: an existing key is never replaced.
 */
export function createNodeKey(
  dataDir: string,
  deps: NodeKeyDeps = nodeKeyDepsDefault,
  file: NodeKeyFile = newKeyFile(deps),
  fileName: string = nodeKeyFileName,
): NodeKey | null {
  const path = join(dataDir, fileName);
  makeDirs(dataDir, "data_dir");
  try {
    // "wx": fails if the file exists, so two starts racing cannot both write a key.
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw error;
  }
  return readNodeKey(dataDir, fileName);
}

/** The key in `dataDir`, or null when there is none. A damaged file is a ConfigError. */
export function readNodeKey(dataDir: string, fileName: string = nodeKeyFileName): NodeKey | null {
  const path = join(dataDir, fileName);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const fail = (reason: string): never => {
    throw new ConfigError([{ key: fileName, reason, source: `file ${path}` }]);
  };
  let parsed: Partial<Record<keyof NodeKeyFile, unknown>>;
  try {
    parsed = JSON.parse(text) as Partial<Record<keyof NodeKeyFile, unknown>>;
  } catch (error) {
    return fail(`is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null) return fail("must hold a JSON object");
  if (parsed.type !== "ed25519") return fail('type must be "ed25519"');
  if (typeof parsed.private_key !== "string") return fail("private_key must be a base58 string");
  let seed: Uint8Array;
  try {
    seed = decodeBase58(parsed.private_key);
  } catch {
    return fail("private_key is not base58");
  }
  if (seed.length !== seedBytes) return fail(`private_key must be ${seedBytes} bytes, is ${seed.length}`);
  const keypair = makeKeypair(seed);
  // The public key is derived, so a file whose two halves disagree was edited by hand or damaged.
  if (parsed.public_key !== keypair.publicKey) return fail("public_key does not belong to private_key");
  const publicKeyHex = Buffer.from(decodeBase58(keypair.publicKey)).toString("hex");
  return { publicKey: keypair.publicKey, publicKeyHex, seed, path };
}

/** The key in `dataDir`, created on first use. `created` tells the caller to log it. */
export function loadOrCreateNodeKey(
  dataDir: string,
  deps: NodeKeyDeps = nodeKeyDepsDefault,
  fileName: string = nodeKeyFileName,
): { key: NodeKey; created: boolean } {
  const existing = readNodeKey(dataDir, fileName);
  if (existing !== null) return { key: existing, created: false };
  const created = createNodeKey(dataDir, deps, newKeyFile(deps), fileName);
  // Lost a race with another start: the other one's key is the key.
  if (created === null) return { key: readNodeKey(dataDir, fileName)!, created: false };
  return { key: created, created: true };
}
