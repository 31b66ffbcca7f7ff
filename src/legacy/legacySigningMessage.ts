import type { JsonObject } from "../json/jsonValue.js";
import { serializeCanonical } from "../json/serializeCanonical.js";
import type { LegacyTx, LegacyVariant } from "./types.js";

/**
 * The text fulfillment `index` signs (`util.get_fulfillment_message`, v0.4.0 to v0.6.0,
 * docs/legacy-variants.md §1.5), serialized as ids are:
 * `{id, version, operation, timestamp, data, fulfillment, condition}` where `fulfillment` is
 * this fulfillment object with `"fulfillment": null`, and `condition` is the signing
 * transaction's own `conditions[fid]`, not the spent one (an oddity, but the signatures of the
 * verified examples need it). `version` is the top-level one in Variant B, `transaction.version`
 * in Variant A; both are the integer 1.
 *
 * The original encoded the text as ASCII, so a non-ASCII payload could not be signed there at
 * all; here it is signed as UTF-8, an extension (docs/legacy-variants.md §1.5), identical for ASCII
 * text.
 */
export function legacySigningMessage(tx: LegacyTx, variant: LegacyVariant, index: number): string {
  const body = tx["transaction"] as JsonObject;
  const fulfillment = (body["fulfillments"] as JsonObject[])[index];
  if (fulfillment === undefined) throw new RangeError(`no fulfillment ${index}`);
  const condition = (body["conditions"] as JsonObject[])[fulfillment["fid"] as number];
  if (condition === undefined) throw new RangeError(`no condition for fulfillment ${index}`);
  const message: JsonObject = {
    id: tx["id"]!,
    version: (variant === "B" ? tx["version"] : body["version"])!,
    operation: body["operation"]!,
    timestamp: body["timestamp"]!,
    data: body["data"]!,
    fulfillment: { ...fulfillment, fulfillment: null },
    condition,
  };
  return serializeCanonical(message, "python");
}
