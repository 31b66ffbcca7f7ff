import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { conditionOfDetails } from "./conditionOfDetails.js";
import { conditionOfFulfillment } from "./conditionOfFulfillment.js";
import { CryptoConditionError } from "./cryptoConditionError.js";
import { encodeBase58 } from "./encodeBase58.js";
import { signEd25519Fulfillment } from "./signEd25519Fulfillment.js";
import type { Condition } from "./condition.js";
import type { Fulfillment, ThresholdFulfillment } from "./types.js";

/** A branch of the tree once signed: its condition, and its fulfillment if enough signers. */
interface Branch {
  readonly condition: Condition;
  readonly fulfillment: Fulfillment | null;
}

/**
 * A threshold fulfillment of `message` for a `threshold-sha-256` details object (tests, bench,
 * CLI). Every ed25519 leaf whose base58 key is in `signers` (key -> 32-byte seed) is signed;
 * a nested threshold with enough signed branches becomes a subfulfillment, anything else stays a
 * condition. As the JS reference does (`ThresholdSha256.getAsn1JsonPayload`), when more branches
 * are signed than the threshold, the `threshold` cheapest ones (stable order) are sent as
 * fulfillments and the rest as conditions, so the result equals the driver's byte for byte.
 *
 * Throws CryptoConditionError for details `conditionOfDetails` refuses or that are not a
 * threshold, and a plain Error when the signers cannot meet the threshold or a seed does not
 * belong to its key.
 */
export function signThresholdFulfillment(
  details: JsonValue,
  signers: ReadonlyMap<string, Uint8Array>,
  message: Uint8Array,
): ThresholdFulfillment {
  conditionOfDetails(details); // Checks the whole tree once, so the walk below can trust it.
  if (!isJsonObject(details) || details["type"] !== "threshold-sha-256") {
    throw new CryptoConditionError("unsupported", "signThresholdFulfillment needs threshold-sha-256 details");
  }
  const branch = signBranch(details, signers, message);
  if (branch.fulfillment === null || branch.fulfillment.type !== "threshold-sha-256") {
    throw new Error("the signers do not meet the threshold");
  }
  return branch.fulfillment;
}

function signBranch(
  details: JsonObject,
  signers: ReadonlyMap<string, Uint8Array>,
  message: Uint8Array,
): Branch {
  if (details["type"] === "ed25519-sha-256") {
    const b58 = details["public_key"] as string;
    const seed = signers.get(b58);
    if (seed === undefined) return { condition: conditionOfDetails(details), fulfillment: null };
    const fulfillment = signEd25519Fulfillment(seed, message);
    if (fulfillment.publicKey.base58 !== b58) {
      throw new Error(`the seed given for ${b58} is another key's`);
    }
    return { condition: conditionOfFulfillment(fulfillment), fulfillment };
  }
  const threshold = details["threshold"] as number;
  const children = (details["subconditions"] as JsonObject[]).map((c) => signBranch(c, signers, message));
  const signed = children.filter((c) => c.fulfillment !== null);
  if (signed.length < threshold) return { condition: conditionOfDetails(details), fulfillment: null };

  const chosen = new Set(signed.sort((a, b) => a.condition.cost - b.condition.cost).slice(0, threshold));
  const fulfillment: ThresholdFulfillment = {
    type: "threshold-sha-256",
    subfulfillments: [...chosen].map((c) => c.fulfillment as Fulfillment),
    subconditions: children.filter((c) => !chosen.has(c)).map((c) => c.condition),
  };
  return { condition: conditionOfFulfillment(fulfillment), fulfillment };
}
