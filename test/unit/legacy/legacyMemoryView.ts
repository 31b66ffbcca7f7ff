// An in-memory LegacyView for the legacy tests: committed legacy transactions of both variants,
// one spent-output index over both (docs/compatibility.md #14), pending spends (checkTx), the
// federation.
import type { LegacyOutputRef, LegacyView, LegacyViewOutput, PreparedLegacyTx } from "../../../src/legacy/types.js";

const keyOf = (ref: LegacyOutputRef) => `${ref.txid}:${ref.cid}`;

export class LegacyMemoryView implements LegacyView {
  readonly #federation: Set<string>;
  readonly #transactions = new Set<string>();
  readonly #outputs = new Map<string, string>();
  readonly #spent = new Set<string>();
  /** Every read, to check that validation reads and never writes. */
  readonly reads: string[] = [];

  constructor(federation: readonly string[]) {
    this.#federation = new Set(federation);
  }

  /** Records a transaction as committed: its outputs exist, its spends are spent. */
  commit(tx: PreparedLegacyTx): this {
    this.#transactions.add(tx.id);
    for (const output of tx.outputs) this.#outputs.set(keyOf({ txid: tx.id, cid: output.cid }), output.conditionUri);
    for (const ref of tx.spends) this.#spent.add(keyOf(ref));
    return this;
  }

  /** Records a transaction as pending (accepted, not yet committed): its spends count as spent. */
  addPending(tx: PreparedLegacyTx): this {
    this.#transactions.add(tx.id);
    for (const ref of tx.spends) this.#spent.add(keyOf(ref));
    return this;
  }

  /** A copy of the state, to compare before and after a validation. */
  snapshot(): string {
    return JSON.stringify([[...this.#transactions], [...this.#outputs], [...this.#spent]]);
  }

  hasTransaction(txid: string): boolean {
    this.reads.push(`tx ${txid}`);
    return this.#transactions.has(txid);
  }

  getOutput(ref: LegacyOutputRef): LegacyViewOutput | undefined {
    this.reads.push(`output ${keyOf(ref)}`);
    const conditionUri = this.#outputs.get(keyOf(ref));
    return conditionUri === undefined ? undefined : { conditionUri, spent: this.#spent.has(keyOf(ref)) };
  }

  isFederationKey(publicKey: string): boolean {
    return this.#federation.has(publicKey);
  }
}
