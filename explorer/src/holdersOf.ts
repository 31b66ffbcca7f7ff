// Who holds an asset now, from its history: the outputs its transactions made that none of them
// spends. The history is in commit order, a spend order (docs/http-api.md "An asset's
// history"), so one pass sees each output made before the input that spends it. Pure.
import type { Output, Transaction } from "./wire.js";

export interface Holding {
  readonly transactionId: string;
  readonly outputIndex: number;
  readonly output: Output;
}

/** The unspent outputs among `history`'s, in the order they were made. */
export function holdersOf(history: readonly Transaction[]): Holding[] {
  const spent = new Set<string>();
  for (const tx of history) {
    for (const input of tx.inputs) {
      if (input.fulfills !== null) spent.add(`${input.fulfills.transaction_id}:${input.fulfills.output_index}`);
    }
  }
  const out: Holding[] = [];
  for (const tx of history) {
    tx.outputs.forEach((output, outputIndex) => {
      if (!spent.has(`${tx.id}:${outputIndex}`)) out.push({ transactionId: tx.id, outputIndex, output });
    });
  }
  return out;
}
