import { outputKey } from "../../../transaction/committed.js";
import type { LedgerView, PreparedTx } from "../../../transaction/types.js";
import type { PendingTxs } from "../../txKind.js";
import { spendable, type CommittedState } from "./blockOverlay.js";

/**
 * Committed state, plus pending transactions: their spends count as spent, and their outputs
 * can be spent (chained spends in the pool are checked again when a block executes them).
 */
export function pendingView(committed: CommittedState, pending: PendingTxs<PreparedTx>): LedgerView {
  return {
    hasTransaction: (id) => committed.ids.has(id) || pending.has(id),
    getOutput: (ref) => {
      const key = outputKey(ref);
      const stored = committed.outputs.get(key);
      if (stored !== undefined) {
        return { ...spendable(stored), spent: stored.spentBy !== null || pending.isSpent(key) };
      }
      const maker = pending.get(ref.transactionId);
      const output = maker?.outputs[ref.outputIndex];
      if (maker === undefined || output === undefined) return undefined;
      const spent = pending.isSpent(key);
      return { amount: output.amount, conditionUri: output.conditionUri, assetId: maker.assetId, spent };
    },
  };
}
