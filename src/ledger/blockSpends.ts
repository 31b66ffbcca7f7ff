/**
 * What the valid transactions applied so far in a block add to committed state, in one kind's
 * namespace: their ids, the outputs they made and the outputs they spent. Each kind's block
 * overlay (BigchainDB's `current_transactions`) keeps one and shapes outputs its own way.
 */
export class BlockSpends<Output extends { readonly spent: boolean }> {
  private readonly ids = new Set<string>();
  private readonly outputs = new Map<string, Output>();
  private readonly spent = new Set<string>();

  constructor(private readonly committedIds: ReadonlySet<string>) {}

  hasTransaction(id: string): boolean {
    return this.ids.has(id) || this.committedIds.has(id);
  }

  /** The output under `key`: made in the block, else `committed`; spent if the block spent it. */
  output(key: string, committed: Output | undefined): Output | undefined {
    const base = this.outputs.get(key) ?? committed;
    if (base === undefined) return undefined;
    return this.spent.has(key) ? { ...base, spent: true } : base;
  }

  addTransaction(id: string): void {
    this.ids.add(id);
  }

  addSpend(key: string): void {
    this.spent.add(key);
  }

  addOutput(key: string, output: Output): void {
    this.outputs.set(key, output);
  }
}
