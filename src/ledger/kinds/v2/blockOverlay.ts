import { type StoredOutput } from "../../../store/store.js";
import { outputKey, type OutputRef } from "../../../transaction/committed.js";
import type { LedgerView, PreparedTx, SpendableOutput } from "../../../transaction/types.js";

/** What a block's (or a check's) transactions need from committed state, read in one batch. */
export interface CommittedState {
  readonly ids: ReadonlySet<string>;
  readonly outputs: ReadonlyMap<string, StoredOutput>;
}

export function spendable(stored: StoredOutput): SpendableOutput {
  return { amount: stored.amount, conditionUri: stored.conditionUri, assetId: stored.assetId, spent: stored.spentBy !== null };
}

/**
 * Committed state plus the valid transactions applied so far in the block being executed: the
 * view each transaction of a block is validated against (BigchainDB's `current_transactions`).
 */
export class BlockOverlay implements LedgerView {
  private readonly ids = new Set<string>();
  private readonly outputs = new Map<string, SpendableOutput>();
  private readonly spent = new Set<string>();

  constructor(private readonly committed: CommittedState) {}

  hasTransaction(id: string): boolean {
    return this.ids.has(id) || this.committed.ids.has(id);
  }

  getOutput(ref: OutputRef): SpendableOutput | undefined {
    const key = outputKey(ref);
    const output = this.outputs.get(key);
    const stored = this.committed.outputs.get(key);
    const base = output ?? (stored === undefined ? undefined : spendable(stored));
    if (base === undefined) return undefined;
    return this.spent.has(key) ? { ...base, spent: true } : base;
  }

  apply(tx: PreparedTx): void {
    this.ids.add(tx.id);
    for (const input of tx.inputs) if (input.fulfills !== null) this.spent.add(outputKey(input.fulfills));
    for (const output of tx.outputs) {
      this.outputs.set(`${tx.id}:${output.outputIndex}`, {
        amount: output.amount,
        conditionUri: output.conditionUri,
        assetId: tx.assetId,
        spent: false,
      });
    }
  }
}
