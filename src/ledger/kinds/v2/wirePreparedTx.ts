// A PreparedTx over a channel that carries JSON only (node:cluster's IPC between this node's
// processes): a bigint does not survive it, so amounts travel as decimal strings.
import assert from "node:assert/strict";
import type { CommittedOutput, Operation, OutputRef } from "../../../transaction/committed.js";
import type { CanonicalForm, PreparedInput, PreparedTx } from "../../../transaction/types.js";

interface EncodedOutput {
  readonly outputIndex: number;
  readonly amount: string;
  readonly conditionUri: string;
  readonly publicKeys: readonly string[];
}

export interface EncodedPreparedTx {
  readonly id: string;
  readonly operation: Operation;
  readonly assetId: string;
  readonly json: string;
  readonly assetData: string | null;
  readonly metadata: string | null;
  readonly inputs: readonly PreparedInput[];
  readonly outputs: readonly EncodedOutput[];
  readonly outputsTotal: string;
  readonly signaturesValid: boolean;
  readonly form: CanonicalForm;
}

export function encodePreparedTx(tx: PreparedTx): EncodedPreparedTx {
  return {
    id: tx.id,
    operation: tx.operation,
    assetId: tx.assetId,
    json: tx.json,
    assetData: tx.assetData,
    metadata: tx.metadata,
    inputs: tx.inputs.map((input) => ({ fulfills: input.fulfills, conditionUri: input.conditionUri })),
    outputs: tx.outputs.map((output) => ({ ...output, amount: output.amount.toString() })),
    outputsTotal: tx.outputsTotal.toString(),
    signaturesValid: tx.signaturesValid,
    form: tx.form,
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
  };
}

function decodeOutputRef(ref: OutputRef): OutputRef {
  return { transactionId: ref.transactionId, outputIndex: ref.outputIndex };
}
