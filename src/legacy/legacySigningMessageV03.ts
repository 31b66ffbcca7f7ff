import type { JsonObject, JsonValue } from "../json/jsonValue.js";
import { serializeCanonical } from "../json/serializeCanonical.js";
import { legacyDetailsOfOwners } from "./legacyDetailsOfOwners.js";
import type { LegacyTx } from "./types.js";

/**
 * The v0.3.0 signing message (Variant B's oldest dialect, "B0", docs/legacy-variants.md §1.5):
 * `{id, version, operation, timestamp, data, input, condition}`, where `input` is this
 * fulfillment's input and `condition` the *spent* output's condition object; for a CREATE,
 * `{"condition": {"details": <Ed25519 details of fulfillments[0].current_owners[0]>}}`.
 *
 * Only for reading B0 transactions such as the v0.3 multisig example: new transactions are
 * signed with the v0.4+ message (`legacySigningMessage`), and a posted CREATE is re-made anyway.
 * `spentCondition` is the spent transaction's condition object for a TRANSFER, null for a CREATE.
 */
export function legacySigningMessageV03(tx: LegacyTx, index: number, spentCondition: JsonValue | null): string {
  const body = tx["transaction"] as JsonObject;
  const fulfillments = body["fulfillments"] as JsonObject[];
  const fulfillment = fulfillments[index];
  if (fulfillment === undefined) throw new RangeError(`no fulfillment ${index}`);
  const creator = (fulfillments[0]!["current_owners"] as string[])[0]!;
  const message: JsonObject = {
    id: tx["id"]!,
    version: tx["version"]!,
    operation: body["operation"]!,
    timestamp: body["timestamp"]!,
    data: body["data"]!,
    input: fulfillment["input"]!,
    condition: spentCondition ?? { condition: { details: legacyDetailsOfOwners([creator]) } },
  };
  return serializeCanonical(message, "python");
}
