import type { JsonValue } from "../json/jsonValue.js";
import { conditionOfDetails } from "./conditionOfDetails.js";

/**
 * Every ed25519 `public_key` anywhere in a `condition.details` tree, each once, in order of
 * appearance, as written (base58 is a bijection, so equal keys are equal texts). The tree is
 * checked as `conditionOfDetails` checks it and throws the same errors.
 */
export function publicKeysOfDetails(details: JsonValue): string[] {
  const keys = new Set<string>();
  conditionOfDetails(details, (publicKey) => keys.add(publicKey));
  return [...keys];
}
