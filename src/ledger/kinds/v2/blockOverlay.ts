import { BlockSpends } from "../../blockSpends.js";
import { type StoredOutput } from "../../../store/store.js";
import type { ElectionState } from "./elections.js";
import { outputKey, type OutputRef } from "../../../transaction/committed.js";
import type { LedgerView, PreparedTx, SpendableOutput } from "../../../transaction/types.js";

/** What a block's (or a check's) transactions need from committed state, read in one batch. */
export interface CommittedState {
  readonly ids: ReadonlySet<string>;
  readonly outputs: ReadonlyMap<string, StoredOutput>;
  /** Read only when the batch holds an election or a vote. */
  readonly elections: ElectionState | null;
}

export function spendable(stored: StoredOutput): SpendableOutput {
  return { amount: stored.amount, conditionUri: stored.conditionUri, assetId: stored.assetId, spent: stored.spentBy !== null };
}

/**
 * Committed state plus the valid transactions applied so far in the block being executed: the
 * view each transaction of a block is validated against (BigchainDB's `current_transactions`).
 */
export class BlockOverlay implements LedgerView {
  private readonly block: BlockSpends<SpendableOutput>;

  constructor(private readonly committed: CommittedState) {
    this.block = new BlockSpends(committed.ids);
  }

  hasTransaction(id: string): boolean {
    return this.block.hasTransaction(id);
  }

  getOutput(ref: OutputRef): SpendableOutput | undefined {
    const key = outputKey(ref);
    const stored = this.committed.outputs.get(key);
    return this.block.output(key, stored === undefined ? undefined : spendable(stored));
  }

  apply(tx: PreparedTx): void {
    this.block.addTransaction(tx.id);
    for (const input of tx.inputs) if (input.fulfills !== null) this.block.addSpend(outputKey(input.fulfills));
    for (const output of tx.outputs) {
      this.block.addOutput(`${tx.id}:${output.outputIndex}`, {
        amount: output.amount,
        conditionUri: output.conditionUri,
        assetId: tx.assetId,
        spent: false,
      });
    }
  }
}
