// What both backends' checks of their derived rows share (DerivedCheck in store.ts): how a row
// that differs is named, and the expected rows per seq of a table whose rows are found by
// another key (counted in one pass at the end).
import type { CommittedLegacyOutput } from "../legacy/committed.js";
import { makesAsset, type CommittedOutput, type CommittedTx } from "../transaction/committed.js";
import { fieldLeafKeys } from "./fieldQuery.js";

/** A stored value in a message: short, as JSON; "nothing" for a missing one. */
export function shown(value: unknown): string {
  const text = value === null || value === undefined ? "nothing" : JSON.stringify(value);
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

/**
 * Null when `row` holds `expected` in every column `expected` names, else the first column that
 * does not, as `table.column of what holds X, the transaction gives Y`.
 */
export function columnDiffers<T extends object>(table: string, what: string, row: T, expected: Partial<T>): string | null {
  for (const column of Object.keys(expected) as (keyof T & string)[]) {
    if (row[column] !== expected[column]) {
      return `${table}.${column}${what} holds ${shown(row[column])}, the transaction gives ${shown(expected[column])}`;
    }
  }
  return null;
}

/** Expected rows per seq of a table, from the first seq checked: a typed array, 4 bytes a seq. */
export class SeqCounts {
  #counts = new Uint32Array(1024);
  constructor(readonly first: number) {}

  add(seq: number, rows = 1): void {
    const at = seq - this.first;
    if (at >= this.#counts.length) {
      const grown = new Uint32Array(Math.max(at + 1, this.#counts.length * 2));
      grown.set(this.#counts);
      this.#counts = grown;
    }
    this.#counts[at]! += rows;
  }

  of(seq: number): number {
    return this.#counts[seq - this.first] ?? 0;
  }
}

/** A v2.0 transaction's row of `transactions` as both backends write it (JSON apart). */
export function transactionColumns(tx: CommittedTx, height: number) {
  return {
    height,
    // The column holds the role (the schemas): an election makes its asset, a vote moves one.
    operation: makesAsset(tx.operation) ? "CREATE" : "TRANSFER",
    id: tx.id,
    asset_id: tx.assetId,
    asset_data: tx.assetData,
    metadata: tx.metadata,
  };
}

/** An output's row of `outputs` as both backends write it (their own columns apart). */
export function outputColumns(output: CommittedOutput) {
  return {
    output_index: output.outputIndex,
    amount: output.amount.toString(),
    condition_uri: output.conditionUri,
    public_keys: JSON.stringify(output.publicKeys),
  };
}

/** A legacy output's row of `legacy_outputs` as both backends write it (its spender apart). */
export function legacyOutputColumns(output: CommittedLegacyOutput) {
  return { cid: output.cid, condition_uri: output.conditionUri, public_keys: JSON.stringify(output.publicKeys) };
}

/** The leaves a transaction's documents put in the field index (fieldQuery.ts), unique. */
export function fieldLeavesOf(tx: CommittedTx): Set<string> {
  return new Set([
    ...(tx.assetData === null ? [] : fieldLeafKeys("assets", tx.assetData)),
    ...(tx.metadata === null ? [] : fieldLeafKeys("metadata", tx.metadata)),
  ]);
}
