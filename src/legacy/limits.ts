// Named limits on a legacy transaction's shape (STYLE rule 11). The originals had none; each
// bound here is far above what their `create_tx` ever made (one fulfillment per input, one
// condition per fulfillment, n-of-n thresholds over a handful of owners).

export const legacyLimits = {
  /** Fulfillments (inputs) per transaction. */
  fulfillmentsMax: 1_000,
  /** Conditions (outputs) per transaction. */
  conditionsMax: 1_000,
  /**
   * Keys in one `owners_before` / `owners_after` list, and branches of one threshold. The old
   * writer could encode counts, weights and thresholds below 256 only (docs/legacy-variants.md
   * §1.4).
   */
  ownersMax: 100,
  /** Threshold conditions nested in threshold conditions; `create_tx` never nests them at all. */
  nestingDepthMax: 8,
  /** Characters of one `cf:` fulfillment URI; 100 signed owners take about 14,000. */
  fulfillmentCharsMax: 65_536,
  /** Characters of a `timestamp` (`"1468494923"`, or `"1460981667.449279"` before v0.4.2). */
  timestampCharsMax: 32,
} as const;
