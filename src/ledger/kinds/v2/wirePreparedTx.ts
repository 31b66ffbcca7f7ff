// A PreparedTx over a channel that carries JSON only (node:cluster's IPC between this node's
// processes): a bigint does not survive it, so amounts travel as decimal strings.
import assert from "node:assert/strict";
import type { CommittedOutput, OutputRef } from "../../../transaction/committed.js";
import type { PreparedInput, PreparedTx } from "../../../transaction/types.js";

/** A PreparedTx with its amounts as decimal strings. */
export type EncodedPreparedTx = Omit<PreparedTx, "outputs" | "outputsTotal" | "votes"> & {
  readonly outputs: readonly (Omit<CommittedOutput, "amount"> & { readonly amount: string })[];
  readonly outputsTotal: string;
  readonly votes: string;
};

export function encodePreparedTx(tx: PreparedTx): EncodedPreparedTx {
  return {
    ...tx,
    outputs: tx.outputs.map((output) => ({ ...output, amount: output.amount.toString() })),
    outputsTotal: tx.outputsTotal.toString(),
    votes: tx.votes.toString(),
  };
}

/**
 * The PreparedTx another process of this node sent. That process is this node's own, so a
 * malformed message is a bug on our side (an assertion), not bad input.
 */
export function decodePreparedTx(encoded: EncodedPreparedTx): PreparedTx {
  const amount = (text: string): bigint => {
    assert.match(text, /^(?:0|[1-9][0-9]*)$/, "IPC amount is a decimal string");
    return BigInt(text);
  };
  const outputs: CommittedOutput[] = encoded.outputs.map((output) => ({
    outputIndex: output.outputIndex,
    amount: amount(output.amount),
    conditionUri: output.conditionUri,
    publicKeys: [...output.publicKeys],
  }));
  const inputs: PreparedInput[] = encoded.inputs.map((input) => ({
    fulfills: input.fulfills === null ? null : decodeOutputRef(input.fulfills),
    conditionUri: input.conditionUri,
  }));
  return {
    id: encoded.id,
    operation: encoded.operation,
    assetId: encoded.assetId,
    json: encoded.json,
    assetData: encoded.assetData,
    metadata: encoded.metadata,
    inputs,
    outputs,
    outputsTotal: amount(encoded.outputsTotal),
    signaturesValid: encoded.signaturesValid,
    form: encoded.form,
    election: encoded.election,
    votes: amount(encoded.votes),
  };
}

function decodeOutputRef(ref: OutputRef): OutputRef {
  return { transactionId: ref.transactionId, outputIndex: ref.outputIndex };
}
