import { reject, type Rejection } from "../errors/ledgerError.js";
import { makesAsset, outputKey } from "./committed.js";
import type { LedgerView, PreparedTx, SpendableOutput } from "./types.js";

/**
 * The stateful checks of a prepared transaction against a ledger view, in BigchainDB 2.2.2's
 * order (`models.Transaction.validate`, `validate_transfer_inputs`; docs/bigchaindb-behaviour.md
 * §2.5).
 */
export function validateTx(tx: PreparedTx, view: LedgerView): Rejection | null {
  if (makesAsset(tx.operation)) return validateCreate(tx, view);
  return validateTransfer(tx, view);
}

function validateCreate(tx: PreparedTx, view: LedgerView): Rejection | null {
  // A CREATE may be committed once (committed state and earlier in the block).
  if (view.hasTransaction(tx.id)) {
    return reject("DuplicateTransaction", `transaction \`${tx.id}\` already exists`);
  }
  // Every fulfillment verifies and is signed by its owners_before (docs/compatibility.md #8).
  if (!tx.signaturesValid) return reject("InvalidSignature", "Transaction signature is invalid.");
  return null;
}

function validateTransfer(tx: PreparedTx, view: LedgerView): Rejection | null {
  const spent: SpendableOutput[] = [];
  for (const input of tx.inputs) {
    const ref = input.fulfills;
    if (ref === null) throw new Error("a prepared TRANSFER has fulfills on every input");
    const output = view.getOutput(ref);
    // The spent output exists: committed or earlier in the block (an index past the end of the
    // transaction's outputs is a missing input too, docs/compatibility.md #3).
    if (output === undefined) {
      return reject("InputDoesNotExist", `input \`${ref.transactionId}\` doesn't exist`);
    }
    // The output is not spent by a committed transaction or one earlier in the block.
    if (output.spent) return reject("DoubleSpend", `input \`${ref.transactionId}\` was already spent`);
    spent.push(output);
  }
  // No output is spent twice by this transaction (inputs[].fulfills are unique).
  const links = new Set(tx.inputs.map((input) => outputKey(input.fulfills!)));
  if (links.size !== tx.inputs.length) return reject("DoubleSpend", `tx "${tx.id}" spends inputs twice`);
  // All inputs belong to one asset, and it is the transaction's asset.id.
  const assetIds = new Set(spent.map((output) => output.assetId));
  if (assetIds.size > 1) {
    return reject("AssetIdMismatch", "All inputs of all transactions passed need to have the same asset id");
  }
  if (!assetIds.has(tx.assetId)) {
    return reject("AssetIdMismatch", "The asset id of the input does not match the asset id of the transaction");
  }
  // Inputs and outputs carry the same total amount.
  const inputsTotal = spent.reduce((sum, output) => sum + output.amount, 0n);
  if (inputsTotal !== tx.outputsTotal) {
    return reject(
      "AmountError",
      `The amount used in the inputs \`${inputsTotal}\` needs to be same as the amount used in ` +
        `the outputs \`${tx.outputsTotal}\``,
    );
  }
  // Every fulfillment verifies and fulfills the condition of the output it spends, as
  // recomputed from that output's details (docs/bigchaindb-behaviour.md §2.4).
  const conditionsMatch = tx.inputs.every((input, i) => input.conditionUri === spent[i]!.conditionUri);
  if (!tx.signaturesValid || !conditionsMatch) {
    return reject("InvalidSignature", "Transaction signature is invalid.");
  }
  return null;
}
