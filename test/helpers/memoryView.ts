// A LedgerView over transactions applied in memory: enough to run validateTx in unit tests
// without a store (the ledger tests use a real SQLite store).
import { outputKey, type OutputRef } from "../../src/store/store.js";
import type { LedgerView, PreparedTx, SpendableOutput } from "../../src/transaction/types.js";

export class MemoryView implements LedgerView {
  private readonly ids = new Set<string>();
  private readonly outputs = new Map<string, SpendableOutput>();

  hasTransaction(id: string): boolean {
    return this.ids.has(id);
  }

  getOutput(ref: OutputRef): SpendableOutput | undefined {
    return this.outputs.get(outputKey(ref));
  }

  apply(tx: PreparedTx): void {
    this.ids.add(tx.id);
    for (const input of tx.inputs) {
      if (input.fulfills === null) continue;
      const key = outputKey(input.fulfills);
      const output = this.outputs.get(key);
      if (output !== undefined) this.outputs.set(key, { ...output, spent: true });
    }
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
