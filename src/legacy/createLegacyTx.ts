import type { JsonObject } from "../json/jsonValue.js";
import { encodeLegacyCondition } from "./encodeLegacyCondition.js";
import { legacyDetailsOfOwners } from "./legacyDetailsOfOwners.js";
import { legacyNames } from "./legacyNames.js";
import { legacyTxId } from "./legacyTxId.js";
import { readLegacyDetails } from "./readLegacyDetails.js";
import type { LegacyOperation, LegacyOutputRef, LegacyTx, LegacyVariant } from "./types.js";

export interface LegacyTxParams {
  readonly variant: LegacyVariant;
  readonly operation: LegacyOperation;
  /** One per input: the keys that will sign it, and the output it spends (null in a CREATE). */
  readonly fulfillments: readonly {
    readonly ownersBefore: readonly string[];
    readonly input: LegacyOutputRef | null;
  }[];
  /** The new owners. Each fulfillment gets a condition for them, as `create_tx` did. */
  readonly ownersAfter: readonly string[];
  readonly payload: JsonObject | null;
  /** Epoch seconds as a string; the caller owns the clock. */
  readonly timestamp: string;
  /** A lowercase UUID; the caller owns the randomness. */
  readonly uuid: string;
}

/**
 * An unsigned legacy transaction with its id (`util.create_tx`, docs/legacy-variants.md §1.6,
 * §1.7): every `fulfillment` null, `fid` and `cid` numbered from 0, one condition per fulfillment
 * with the Ed25519 or n-of-n threshold details of `ownersAfter` and their URI, `data` = `{payload,
 * uuid}`, `version` 1 where the variant keeps it. Keys are written in sorted order, as the
 * originals printed them. Sign it with `signLegacyTx`.
 */
export function createLegacyTx(params: LegacyTxParams): LegacyTx {
  const names = legacyNames[params.variant];
  const details = legacyDetailsOfOwners(params.ownersAfter);
  const uri = encodeLegacyCondition(readLegacyDetails(details).condition);
  const conditions: JsonObject[] = params.fulfillments.map((_, cid) => ({
    cid,
    condition: { details, uri },
    [names.ownersAfter]: [...params.ownersAfter],
  }));
  const fulfillments: JsonObject[] = params.fulfillments.map((fulfillment, fid) =>
    sortedKeys({
      [names.ownersBefore]: [...fulfillment.ownersBefore],
      fid,
      fulfillment: null,
      input: fulfillment.input === null ? null : { cid: fulfillment.input.cid, txid: fulfillment.input.txid },
    }),
  );
  const transaction: JsonObject = {
    conditions: conditions.map(sortedKeys),
    data: { payload: params.payload, uuid: params.uuid },
    fulfillments,
    operation: params.operation,
    timestamp: params.timestamp,
  };
  if (params.variant === "A") transaction["version"] = 1;
  const tx: LegacyTx = { id: "", transaction };
  if (params.variant === "B") tx["version"] = 1;
  tx["id"] = legacyTxId(tx);
  return tx;
}

function sortedKeys(object: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object).sort()) out[key] = object[key]!;
  return out;
}
