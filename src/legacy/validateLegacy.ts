import { reject, type Rejection } from "../errors/ledgerError.js";
import type { LegacyView, LegacyViewOutput, PreparedLegacyTx } from "./types.js";

/**
 * The stateful checks of a prepared legacy transaction against a view (docs/legacy-variants.md §5,
 * docs/compatibility.md #14): not already accepted; a CREATE signed by a federation key; a TRANSFER
 * whose inputs exist, are unspent by any transaction of either variant, committed or pending, are
 * not spent twice by this one, and are fulfilled: each fulfillment's condition equals the spent
 * output's `condition.uri`. Stricter than the originals, which let conflicting transactions into
 * the backlog and allowed one output twice in a transaction until v0.8.2 (docs/legacy-variants.md
 * §5, §7.5).
 */
export function validateLegacy(tx: PreparedLegacyTx, view: LegacyView): Rejection | null {
  // A transaction is accepted once: committed, earlier in the block, or pending.
  if (view.hasTransaction(tx.id)) return reject("DuplicateTransaction", `transaction \`${tx.id}\` already exists`);
  if (tx.operation === "CREATE") {
    // Only federation nodes can use the operation CREATE (§5.1; the federation is the validator set, §7.2).
    if (tx.creator === null || !view.isFederationKey(tx.creator)) {
      return reject("LegacyOperationError", "Only federation nodes can use the operation `CREATE`");
    }
    return null;
  }
  const spent: LegacyViewOutput[] = [];
  for (const ref of tx.spends) {
    const output = view.getOutput(ref);
    // The input transaction and its condition `cid` exist (§5.2, TransactionDoesNotExist).
    if (output === undefined) {
      return reject("InputDoesNotExist", `input \`${ref.txid}\` (cid ${ref.cid}) doesn't exist`);
    }
    // The output is not spent by any committed or pending transaction of either variant (§5.2, §7.6).
    if (output.spent) return reject("DoubleSpend", `input \`${ref.txid}\` (cid ${ref.cid}) was already spent`);
    spent.push(output);
  }
  // No output is spent twice by this transaction (fulfillments[].input are unique).
  const links = new Set(tx.spends.map((ref) => `${ref.txid}:${ref.cid}`));
  if (links.size !== tx.spends.length) return reject("DoubleSpend", `tx "${tx.id}" spends inputs twice`);
  // Each fulfillment fulfills the condition of the output it spends (§5.4).
  for (let i = 0; i < spent.length; i++) {
    if (tx.fulfilledUris[i] !== spent[i]!.conditionUri) {
      return reject("InvalidSignature", `fulfillment ${i} does not fulfill the condition of the output it spends`);
    }
  }
  return null;
}
