import { isJsonObject, type JsonValue } from "../json/jsonValue.js";
import { conditionOfDetails, ed25519KeyAt } from "./conditionOfDetails.js";
import { encodeConditionUri } from "./encodeConditionUri.js";

/**
 * The condition URI of a wire `condition.details` object. BigchainDB compares a TRANSFER
 * fulfillment's URI with this, never with the stored `uri` string. Throws CryptoConditionError
 * as `conditionOfDetails` does.
 */
export function conditionUriOfDetails(details: JsonValue): string {
  // One key, the usual output: its URI is cached with the key.
  if (isEd25519Details(details)) return ed25519KeyAt(details).conditionUri;
  return encodeConditionUri(conditionOfDetails(details));
}

/**
 * `conditionUriOfDetails` and `publicKeysOfDetails` in one walk of the tree, for validation,
 * which needs both for every output.
 */
export function conditionUriAndKeysOfDetails(details: JsonValue): { uri: string; publicKeys: string[] } {
  if (isEd25519Details(details)) {
    const key = ed25519KeyAt(details);
    return { uri: key.conditionUri, publicKeys: [key.base58] };
  }
  const keys = new Set<string>();
  const uri = encodeConditionUri(conditionOfDetails(details, (publicKey) => keys.add(publicKey)));
  return { uri, publicKeys: [...keys] };
}

function isEd25519Details(details: JsonValue): details is { [key: string]: JsonValue } {
  return isJsonObject(details) && details["type"] === "ed25519-sha-256";
}
