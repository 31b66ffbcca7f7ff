export interface LedgerOptions {
  /** Prepared (parsed, signature-checked) transactions kept by their exact bytes. */
  readonly preparedCacheEntriesMax: number;
  /** Transactions admitted by checkTx and not yet in a committed block. */
  readonly pendingTxsMax: number;
}

export const ledgerOptionsDefault: LedgerOptions = {
  preparedCacheEntriesMax: 100_000,
  pendingTxsMax: 50_000,
};
