import { Buffer } from "node:buffer";
import { createPrivateKey, type KeyObject } from "node:crypto";

// PKCS#8 PrivateKeyInfo for Ed25519 (RFC 8410) up to the 32-byte seed.
const pkcs8Prefix = Buffer.from("302e020100300506032b657004220420", "hex");

/** The node:crypto private key of a 32-byte Ed25519 seed (what BigchainDB calls the private key). */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: "der", type: "pkcs8" });
}
