// Named limits of the crypto-conditions folder (STYLE rule 11). Each one bounds the work a single
// client-supplied fulfillment or condition can cause.

/**
 * The deepest node allowed in a condition tree, the root being depth 0. BigchainDB's
 * `_fulfillment_from_details` raises ThresholdTooDeep for a node at depth 100, so 99 nested
 * thresholds with an ed25519 leaf at depth 99 pass and one more level fails. Applied to
 * fulfillments too, since a fulfillment only matches a condition of the same shape.
 */
export const nestingDepthMax = 99;

/**
 * Subfulfillments of one threshold fulfillment, which is its threshold. BigchainDB's schema caps
 * `threshold` at 100 (`condition_details`), so a fulfillment with more can never match an output.
 */
export const subfulfillmentsMax = 100;

/**
 * Children of one threshold node: subfulfillments plus subconditions in a fulfillment, or
 * `subconditions` in details. BigchainDB's schema has no cap; an output's keys list is far below it.
 */
export const subconditionsMax = 1_000;

/** Decoded bytes of one fulfillment; 100 signatures and 900 unfulfilled keys take about 50 KiB. */
export const fulfillmentBytesMax = 1_048_576;

/**
 * Characters of a base58 text `decodeBase58` accepts: decoding is quadratic in the length, and the
 * longest value the ledger reads is a 64-byte signature (88 characters).
 */
export const base58CharsMax = 256;

/**
 * Ed25519 public keys kept by `ed25519PublicKey.ts`, with their key objects and derived forms (each
 * of its two caches, by raw bytes and by base58; least recently used ones are dropped).
 */
export const keyCacheEntriesMax = 65_536;

/** Ed25519 private KeyObjects kept by the builders (`privateKeyFromSeed`), by seed. */
export const seedKeyCacheEntriesMax = 1_024;
