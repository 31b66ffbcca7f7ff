import { Buffer } from "node:buffer";
import { createPublicKey, sign } from "node:crypto";
import { ed25519PublicKey } from "./ed25519PublicKey.js";
import { privateKeyFromSeed } from "./privateKeyFromSeed.js";
import type { Ed25519Fulfillment } from "./types.js";

/** An Ed25519 fulfillment of `message` signed with the key of a 32-byte seed (tests, bench, CLI). */
export function signEd25519Fulfillment(seed: Uint8Array, message: Uint8Array): Ed25519Fulfillment {
  const privateKey = privateKeyFromSeed(seed);
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  return {
    type: "ed25519-sha-256",
    publicKey: ed25519PublicKey(Buffer.from(jwk.x as string, "base64url")),
    signature: new Uint8Array(sign(null, message, privateKey)),
  };
}
