/**
 * Between two string values in the text the SQLite store indexes. A private-use character is a
 * token of its own for FTS5's unicode61 tokenizer, and `parseTextQuery` never yields one, so a
 * phrase cannot match across two values (MongoDB matches a phrase inside one value).
 */
export const valueBarrier = "\uE000";

/**
 * The text indexed for an asset or a metadata document: its `id`, then every string value at any
 * depth, in document order. Keys, numbers, booleans and nulls are not indexed, as MongoDB's
 * wildcard text index (`$**`) did not index them (docs/bigchaindb-behaviour.md §4).
 */
export function searchText(id: string, json: string): string {
  const values = [id];
  const stack: unknown[] = [JSON.parse(json) as unknown];
  // A stack, not recursion: the depth of the document is the ledger's limit, not the JS stack's.
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") values.push(value);
    else if (typeof value === "object" && value !== null) {
      const children = Array.isArray(value) ? value : Object.values(value);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return values.map((v) => v.replaceAll(valueBarrier, " ")).join(` ${valueBarrier} `);
}
