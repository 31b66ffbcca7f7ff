// crypto-conditions: the two condition types BigchainDB 2.x transactions use, ED25519-SHA-256
// and THRESHOLD-SHA-256, as specified by draft-thomas-crypto-conditions-04
// (https://datatracker.ietf.org/doc/html/draft-thomas-crypto-conditions-04) and as implemented
// by the references BigchainDB clients run: Python `cryptoconditions` 0.8 and JavaScript
// `crypto-conditions` 2.2.1 (bigchaindb-driver 4.3.0).
//
// This folder owns: base58 keys; the DER codec of fulfillments (base64url text in
// `inputs[].fulfillment`); condition URIs (`ni:///sha-256;...`) from fulfillments and from the
// wire's `condition.details`; Ed25519 verification (node:crypto, with a bounded key cache);
// builders that sign fulfillments for tests, benchmarks and the CLI.
//
// It is pure: no IO, no logging. The only state is bounded caches, memos of pure functions:
// public keys with their key objects and derived forms (`ed25519PublicKey.ts`), and private key
// objects for the builders (`privateKeyFromSeed.ts`). Every other type (preimage, prefix, RSA,
// anything unknown) is rejected (docs/compatibility.md #8). Only canonical DER is decoded, so every
// fulfillment has exactly one text.

import type { Condition } from "./condition.js";
import type { Ed25519PublicKey } from "./ed25519PublicKey.js";

/**
 * Ed25519Sha256Fulfillment ::= SEQUENCE { publicKey OCTET STRING (SIZE(32)),
 *   signature OCTET STRING (SIZE(64)) }
 */
export interface Ed25519Fulfillment {
  readonly type: "ed25519-sha-256";
  /** The 32-byte Ed25519 public key (`.bytes`), with its base58, condition and key object. */
  readonly publicKey: Ed25519PublicKey;
  /** The 64-byte Ed25519 signature over the message (BigchainDB: the 32-byte sha3-256 digest). */
  readonly signature: Uint8Array;
}

/**
 * ThresholdFulfillment ::= SEQUENCE { subfulfillments SET OF Fulfillment, subconditions SET OF Condition }
 *
 * The threshold is not on the wire: it is the number of subfulfillments (both references set
 * `threshold = len(subfulfillments)` when they parse). Unfulfilled branches travel as conditions.
 * Whether the threshold is the one the spent output asked for is settled by comparing condition
 * URIs, because the threshold is hashed into the fingerprint.
 */
export interface ThresholdFulfillment {
  readonly type: "threshold-sha-256";
  /** At least one; the encoder writes them in DER SET OF order, whatever the order here. */
  readonly subfulfillments: readonly Fulfillment[];
  readonly subconditions: readonly Condition[];
}

export type Fulfillment = Ed25519Fulfillment | ThresholdFulfillment;
