import { createHash } from "node:crypto";
import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";
import { encodeLegacyConditionBinary } from "./encodeLegacyConditionBinary.js";
import { LegacyWriter } from "./legacyWriter.js";
import type { LegacyCondition } from "./types.js";

/** THRESHOLD-SHA-256's own feature bitmask in cryptoconditions 0.4.1 (SHA-256 and THRESHOLD). */
export const thresholdBitmask = 0x09;

export interface WeightedCondition {
  readonly weight: number;
  readonly condition: LegacyCondition;
}

/**
 * The condition of a threshold over weighted subconditions (cryptoconditions 0.4.1
 * `types/threshold_sha256.py`, docs/legacy-variants.md §1.4). A subfulfillment counts by its
 * condition, so one function serves details, fulfillments and builders alike.
 * - hash: SHA-256 of `uint32(threshold) ‖ varuint(count) ‖ sorted[varuint(weight) ‖ condbin]`,
 *   sorted by length, then bytes (`write_hash_payload`, `sort_buffers`);
 * - bitmask: 0x09 ORed with every subcondition's;
 * - max fulfillment length: `calculate_max_fulfillment_length`, reproduced step by step, since it
 *   is part of the URI (2-of-2 over Ed25519 gives 206, verified in docs/legacy-variants.md §1.4).
 * Throws CryptoConditionError (`parse`) when the weights cannot reach the threshold.
 */
export function legacyThresholdCondition(
  threshold: number,
  subconditions: readonly WeightedCondition[],
): LegacyCondition {
  if (subconditions.length === 0) throw new CryptoConditionError("parse", "a threshold needs subconditions");
  const binaries = subconditions.map((sub) => encodeLegacyConditionBinary(sub.condition));
  const entries = subconditions.map((sub, i) =>
    new LegacyWriter().varUint(sub.weight).bytes(binaries[i]!).finish(),
  );
  const hashed = new LegacyWriter().uint32(threshold).varUint(entries.length);
  for (const entry of entries.sort(compareBuffers)) hashed.bytes(entry);
  const hash = new Uint8Array(createHash("sha256").update(hashed.finish()).digest());
  const bitmask = subconditions.reduce((mask, sub) => mask | sub.condition.bitmask, thresholdBitmask);
  return {
    typeId: 2,
    bitmask,
    hash,
    maxFulfillmentLength: maxFulfillmentLength(threshold, subconditions, binaries),
  };
}

/** Canonical order of the old format: shorter first, then bytewise. */
function compareBuffers(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * `calculate_max_fulfillment_length`: every subcondition's binary condition, plus the worst
 * case of what fulfilling a minimal set adds, plus the predicted header: 4 bytes of threshold,
 * the count, one presence byte per subcondition and the weights that are not 1. (The predicted
 * header does not match what the library's own writer emits; the URI depends on the prediction.)
 */
function maxFulfillmentLength(
  threshold: number,
  subconditions: readonly WeightedCondition[],
  binaries: readonly Uint8Array[],
): number {
  let conditionsLength = 0;
  const extras = subconditions.map((sub, i) => {
    const conditionLength = binaries[i]!.length;
    conditionsLength += conditionLength;
    // A subfulfillment: uint16 type and its payload as an octet string.
    const fulfillmentLength = 2 + varOctetsSize(sub.condition.maxFulfillmentLength);
    return { weight: sub.weight, size: fulfillmentLength - conditionLength };
  });
  // Python's sort by weight, ascending and stable.
  extras.sort((a, b) => a.weight - b.weight);
  const worst = worstCaseLength(threshold, extras);
  if (worst === Number.NEGATIVE_INFINITY) {
    throw new CryptoConditionError("parse", "insufficient subconditions or weights to meet the threshold");
  }
  let size = 4 + predictedVarUintSize(subconditions.length);
  for (const sub of subconditions) size += 1 + (sub.weight === 1 ? 0 : predictedVarUintSize(sub.weight));
  return size + conditionsLength + worst;
}

/**
 * `calculate_worst_case_length`: over the subsets taken in order that stop as soon as the
 * threshold is met, the largest total extra size. Memoised on (remaining threshold, index), so
 * its cost is bounded by threshold × count instead of 2^count.
 */
function worstCaseLength(threshold: number, extras: readonly { weight: number; size: number }[]): number {
  const memo = new Map<number, number>();
  const count = extras.length;
  const walk = (remaining: number, index: number): number => {
    if (remaining <= 0) return 0;
    if (index >= count) return Number.NEGATIVE_INFINITY;
    const key = remaining * (count + 1) + index;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const next = extras[index]!;
    const best = Math.max(next.size + walk(remaining - next.weight, index + 1), walk(remaining, index + 1));
    memo.set(key, best);
    return best;
  };
  return walk(threshold, 0);
}

/** `Predictor.write_var_octet_string` of n bytes: a length byte, long-form length bytes, n. */
function varOctetsSize(length: number): number {
  return 1 + (length > 127 ? byteLength(length) : 0) + length;
}

/** `Predictor.write_var_uint`: a length byte and the value's bytes. */
function predictedVarUintSize(value: number): number {
  return 1 + byteLength(value);
}

/** `ceil(len('{:02b}'.format(value)) / 8)`: 1 for 0 and 1, else the byte length. */
function byteLength(value: number): number {
  let bytes = 1;
  while (value >= 2 ** (8 * bytes)) bytes++;
  return bytes;
}
