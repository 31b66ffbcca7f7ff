import type { JsonObject } from "../../json/jsonValue.js";
import { createLegacyTx } from "../createLegacyTx.js";
import { signLegacyTx } from "../signLegacyTx.js";
import type { LegacySigner, LegacyTx, LegacyVariant } from "../types.js";

export interface LegacyCreateParams {
  readonly variant: LegacyVariant;
  /** Who signs: a federation key for a CREATE the ledger accepts, any key for a client's post. */
  readonly creator: LegacySigner;
  readonly ownersAfter: readonly string[];
  readonly timestamp: string;
  readonly uuid: string;
  readonly payload?: JsonObject | null;
}

/**
 * A signed legacy CREATE for tests and tools, as `create_and_sign_tx(creator_priv,
 * creator_pub, owners_after, None, 'CREATE')` made it (docs/legacy-variants.md §1.6): what a client
 * posts, or, with a federation key, what the node itself makes.
 */
export function makeLegacyCreate(params: LegacyCreateParams): LegacyTx {
  const unsigned = createLegacyTx({
    variant: params.variant,
    operation: "CREATE",
    fulfillments: [{ ownersBefore: [params.creator.publicKey], input: null }],
    ownersAfter: params.ownersAfter,
    payload: params.payload ?? null,
    timestamp: params.timestamp,
    uuid: params.uuid,
  });
  return signLegacyTx(unsigned, params.variant, [params.creator]);
}
