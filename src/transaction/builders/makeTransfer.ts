import type { JsonObject } from "../../json/jsonValue.js";
import { makesAsset, type Operation } from "../committed.js";
import { makeOutput } from "./makeOutput.js";

export interface TransferSpec {
  /** The outputs to spend: a committed transaction (wire form) and an output index each. */
  readonly spends: readonly { readonly tx: JsonObject; readonly outputIndex: number }[];
  readonly outputs: readonly { readonly publicKeys: readonly string[]; readonly amount: bigint | string }[];
  readonly metadata: JsonObject | null;
}

/** An unsigned TRANSFER: each input carries the spent output's condition details until `signTx`. */
export function makeTransfer(spec: TransferSpec): JsonObject {
  const first = spec.spends[0];
  if (first === undefined) throw new RangeError("a TRANSFER spends at least one output");
  const firstAsset = first.tx["asset"] as JsonObject;
  const assetId = makesAsset(first.tx["operation"] as Operation) ? first.tx["id"] : firstAsset["id"];
  return {
    id: null,
    version: "2.0",
    operation: "TRANSFER",
    asset: { id: assetId ?? null },
    metadata: spec.metadata,
    outputs: spec.outputs.map((output) => makeOutput(output.publicKeys, output.amount)),
    inputs: spec.spends.map(({ tx, outputIndex }) => {
      const output = (tx["outputs"] as JsonObject[])[outputIndex];
      if (output === undefined) throw new RangeError(`output ${outputIndex} does not exist`);
      return {
        owners_before: output["public_keys"] ?? [],
        fulfills: { transaction_id: tx["id"] ?? null, output_index: outputIndex },
        fulfillment: (output["condition"] as JsonObject)["details"] ?? null,
      };
    }),
  };
}
