import type { JsonObject } from "../../json/jsonValue.js";
import { makeOutput } from "./makeOutput.js";

export interface CreateSpec {
  /** One input per issuer, as the JavaScript driver makes them (docs/compatibility.md #10). */
  readonly issuers: readonly string[];
  readonly outputs: readonly { readonly publicKeys: readonly string[]; readonly amount: bigint | string }[];
  readonly assetData: JsonObject | null;
  readonly metadata: JsonObject | null;
}

/** An unsigned CREATE: each input carries its issuer's condition details until `signTx`. */
export function makeCreate(spec: CreateSpec): JsonObject {
  return {
    id: null,
    version: "2.0",
    operation: "CREATE",
    asset: { data: spec.assetData },
    metadata: spec.metadata,
    outputs: spec.outputs.map((output) => makeOutput(output.publicKeys, output.amount)),
    inputs: spec.issuers.map((issuer) => ({
      owners_before: [issuer],
      fulfills: null,
      fulfillment: { type: "ed25519-sha-256", public_key: issuer },
    })),
  };
}
