// A chain's rules besides the app hash's (its genesis's protocol version and rule heights) as
// every backend stores them in its chain state: the version a column, the heights JSON text of
// `{"<rule>": height}` in name order.
import type { ChainRules } from "./store.js";

/**
 * The columns initChain writes: the version as text (ABCI's uint64 exceeds both backends'
 * integers), the heights' JSON.
 */
export function chainRulesColumns(rules: ChainRules | undefined): { appVersion: string | null; ruleHeights: string } {
  if (rules === undefined) return { appVersion: null, ruleHeights: "{}" };
  const heights = [...rules.ruleHeights].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const appVersion = rules.appVersion === null ? null : String(rules.appVersion);
  return { appVersion, ruleHeights: JSON.stringify(Object.fromEntries(heights)) };
}

/** The chain state's rules from the stored columns. */
export function chainRulesOfColumns(appVersion: string | null, ruleHeights: string): ChainRules {
  const heights = JSON.parse(ruleHeights) as Record<string, number>;
  return { appVersion: appVersion === null ? null : BigInt(appVersion), ruleHeights: new Map(Object.entries(heights)) };
}
