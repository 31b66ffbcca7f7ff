import { hash } from "node:crypto";
import type { Condition } from "./condition.js";

// Ed25519FingerprintContents ::= SEQUENCE { publicKey [0] OCTET STRING (SIZE(32)) } → 30 22 80 20.
const fingerprintPrefix = Uint8Array.of(0x30, 0x22, 0x80, 0x20);

/** The draft's fixed cost of an ED25519-SHA-256 fulfillment (`Ed25519Sha256.CONSTANT_COST`). */
const ed25519Cost = 131_072;

/** The condition of an Ed25519 public key: fingerprint sha-256(30 22 80 20 <pub32>), cost 131072. */
export function ed25519Condition(publicKey: Uint8Array): Condition {
  const contents = new Uint8Array(fingerprintPrefix.length + publicKey.length);
  contents.set(fingerprintPrefix);
  contents.set(publicKey, fingerprintPrefix.length);
  // One-shot: a third of createHash's cost for 36 bytes.
  const fingerprint = hash("sha256", contents, "buffer");
  return { type: "ed25519-sha-256", fingerprint, cost: ed25519Cost, subtypes: [] };
}
