import type { JsonObject, JsonValue } from "../../json/jsonValue.js";
import { createLegacyTx } from "../createLegacyTx.js";
import { signLegacyTx } from "../signLegacyTx.js";
import type { LegacySigner, LegacyTx, LegacyVariant } from "../types.js";

export interface LegacySpend {
  /**
   * The spent transaction, of either variant (cross-variant spends are allowed,
   * docs/legacy-variants.md §7.6).
   */
  readonly tx: LegacyTx;
  readonly cid: number;
}

export interface LegacyTransferParams {
  readonly variant: LegacyVariant;
  readonly spends: readonly LegacySpend[];
  readonly ownersAfter: readonly string[];
  readonly signers: readonly LegacySigner[];
  readonly timestamp: string;
  readonly uuid: string;
  readonly payload?: JsonObject | null;
}

/**
 * A signed legacy TRANSFER for tests and tools: one fulfillment per spend, whose owners are the
 * spent output's owners and which is signed against the spent output's details; one condition
 * per fulfillment for `ownersAfter`, as `create_tx` + `sign_tx` made them (docs/legacy-variants.md
 * §1.5-§1.7).
 */
export function makeLegacyTransfer(params: LegacyTransferParams): LegacyTx {
  const spentDetails: JsonValue[] = [];
  const fulfillments = params.spends.map((spend) => {
    const condition = spentCondition(spend);
    spentDetails.push((condition["condition"] as JsonObject)["details"]!);
    const owners = (condition["owners_after"] ?? condition["new_owners"]) as string[];
    return { ownersBefore: owners, input: { txid: spend.tx["id"] as string, cid: spend.cid } };
  });
  const unsigned = createLegacyTx({
    variant: params.variant,
    operation: "TRANSFER",
    fulfillments,
    ownersAfter: params.ownersAfter,
    payload: params.payload ?? null,
    timestamp: params.timestamp,
    uuid: params.uuid,
  });
  return signLegacyTx(unsigned, params.variant, params.signers, spentDetails);
}

function spentCondition(spend: LegacySpend): JsonObject {
  const conditions = (spend.tx["transaction"] as JsonObject)["conditions"] as JsonObject[];
  const condition = conditions.find((item) => item["cid"] === spend.cid);
  if (condition === undefined) throw new RangeError(`no condition ${spend.cid} in ${String(spend.tx["id"])}`);
  return condition;
}
