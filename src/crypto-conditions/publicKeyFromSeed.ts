import { Buffer } from "node:buffer";
import { createPublicKey } from "node:crypto";
import { privateKeyFromSeed } from "./privateKeyFromSeed.js";

/** The raw 32-byte Ed25519 public key of a 32-byte seed. */
export function publicKeyFromSeed(seed: Uint8Array): Uint8Array {
  // The JWK export hands back the raw key (`x`), without a DER encoder round.
  const jwk = createPublicKey(privateKeyFromSeed(seed)).export({ format: "jwk" });
  return new Uint8Array(Buffer.from(jwk.x as string, "base64url"));
}
