// Named limits on a transaction's shape (STYLE rule 11). BigchainDB has none; a node that runs
// signature checks for strangers needs them. Each is generous for real use: the official drivers
// make one input per owner and one output per recipient.

export const txLimits = {
  /** Inputs per transaction. */
  inputsMax: 1_000,
  /** Outputs per transaction. */
  outputsMax: 1_000,
  /** Keys in one `owners_before` or `public_keys` list. */
  keysMax: 256,
  /** Largest `threshold` in a threshold condition (BigchainDB's schema: 1..100). */
  thresholdMax: 100,
  /** Subconditions of one threshold condition. */
  subconditionsMax: 256,
  /** Largest amount (BigchainDB `Output.MAX_AMOUNT`, docs/compatibility.md #9). */
  amountMax: 9_000_000_000_000_000_000n,
} as const;
