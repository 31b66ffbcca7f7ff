import { randomBytes as cryptoRandomBytes } from "node:crypto";
import { base58KeyCharsMin } from "../schemas.js";
import { makeKeypair, type Keypair } from "./makeKeypair.js";

/**
 * A new Ed25519 keypair from random seeds, drawn again while the public key's base58 form is too
 * short for the schema (about 1 key in 1,400; `base58KeyCharsMin`): such a key could never own
 * an output, and the official drivers would hand it out all the same.
 */
export function makeRandomKeypair(randomBytes: (size: number) => Uint8Array = cryptoRandomBytes): Keypair {
  for (;;) {
    const keypair = makeKeypair(randomBytes(32));
    if (keypair.publicKey.length >= base58KeyCharsMin) return keypair;
  }
}
