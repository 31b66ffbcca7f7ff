// A block's valid transactions of both kinds in block order (the order its app hash covers), as
// every backend rebuilds it from its two tables: legacy transactions (docs/compatibility.md
// #13-#16) keep their recorded place; v2.0 ones fill the rest in commit order.

/** Legacy transactions keep their place among the block's valid ones; v2.0 ones fill the rest. */
export function inBlockOrder<T>(v2: readonly T[], legacy: readonly { position: number; item: T }[]): T[] {
  const out: T[] = [];
  let next = 0;
  for (const tx of legacy) {
    while (out.length < tx.position && next < v2.length) out.push(v2[next++]!);
    out.push(tx.item);
  }
  while (next < v2.length) out.push(v2[next++]!);
  return out;
}
