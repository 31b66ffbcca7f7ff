import { createPublicKey } from "node:crypto";
import { privateKeyFromSeed } from "./privateKeyFromSeed.js";

// The raw key is the last 32 bytes of the 44-byte SPKI DER (after 302a300506032b6570032100).
const spkiPrefixBytes = 12;

/** The raw 32-byte Ed25519 public key of a 32-byte seed. */
export function publicKeyFromSeed(seed: Uint8Array): Uint8Array {
  const spki = createPublicKey(privateKeyFromSeed(seed)).export({ format: "der", type: "spki" });
  return new Uint8Array(spki.subarray(spkiPrefixBytes));
}
