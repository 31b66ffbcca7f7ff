import { encodeBase58 } from "../../crypto-conditions/encodeBase58.js";
import { publicKeyFromSeed } from "../../crypto-conditions/publicKeyFromSeed.js";

export interface Keypair {
  /** Base58 of the 32-byte Ed25519 public key (the drivers' `publicKey`). */
  readonly publicKey: string;
  /** Base58 of the 32-byte seed (the drivers' `privateKey`). */
  readonly privateKey: string;
  readonly seed: Uint8Array;
}

/** An Ed25519 keypair from a 32-byte seed, in the drivers' base58 encoding. */
export function makeKeypair(seed: Uint8Array): Keypair {
  if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
  return { publicKey: encodeBase58(publicKeyFromSeed(seed)), privateKey: encodeBase58(seed), seed };
}
