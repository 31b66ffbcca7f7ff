import { createPublicKey, sign } from "node:crypto";
import { privateKeyFromSeed } from "./privateKeyFromSeed.js";
import type { Ed25519Fulfillment } from "./types.js";

const spkiPrefixBytes = 12;

/** An Ed25519 fulfillment of `message` signed with the key of a 32-byte seed (tests, bench, CLI). */
export function signEd25519Fulfillment(seed: Uint8Array, message: Uint8Array): Ed25519Fulfillment {
  const privateKey = privateKeyFromSeed(seed);
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return {
    type: "ed25519-sha-256",
    publicKey: new Uint8Array(spki.subarray(spkiPrefixBytes)),
    signature: new Uint8Array(sign(null, message, privateKey)),
  };
}
