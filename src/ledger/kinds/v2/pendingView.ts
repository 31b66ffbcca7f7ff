import { outputKey } from "../../../transaction/committed.js";
import type { LedgerView, PreparedTx } from "../../../transaction/types.js";
import type { PendingTxs } from "../../txKind.js";
import { spendable, type CommittedState } from "./blockOverlay.js";

/**
 * Committed state, plus pending transactions: their spends count as spent, and their outputs
 * can be spent (chained spends in the pool are checked again when a block executes them).
 * `self` (a recheck) is left out: its id and its spends are its own, not a conflict. No other
 * pending transaction spends the same outputs (checkTx admits no conflict), so leaving out
 * `self`'s spend keys removes only its own.
 */
export function pendingView(committed: CommittedState, pending: PendingTxs<PreparedTx>, self: PreparedTx | null): LedgerView {
  const txs = pending.txs;
  const pendingSpends = pending.spends;
  const own = new Set<string>();
  if (self !== null) for (const input of self.inputs) if (input.fulfills !== null) own.add(outputKey(input.fulfills));
  const spentPending = (key: string): boolean => pendingSpends.has(key) && !own.has(key);
  return {
    hasTransaction: (id) => committed.ids.has(id) || (txs.has(id) && id !== self?.id),
    getOutput: (ref) => {
      const key = outputKey(ref);
      const stored = committed.outputs.get(key);
      if (stored !== undefined) {
        return { ...spendable(stored), spent: stored.spentBy !== null || spentPending(key) };
      }
      const maker = txs.get(ref.transactionId);
      const output = maker?.outputs[ref.outputIndex];
      if (maker === undefined || output === undefined) return undefined;
      return { amount: output.amount, conditionUri: output.conditionUri, assetId: maker.assetId, spent: spentPending(key) };
    },
  };
}
