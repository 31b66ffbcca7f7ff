// The streams' messages, written as their origin wrote them with Python's `json.dumps`
// (a space after `,` and `:`): the live blocks and a resumed subscriber's replay send the same
// bytes for the same block.

/**
 * One event, with the key order and spacing of BigchainDB's `json.dumps` (docs/compatibility.md
 * #6).
 */
export function eventMessage(height: number, tx: { readonly id: string; readonly assetId: string }): string {
  const assetId = JSON.stringify(tx.assetId);
  return `{"height": ${height}, "asset_id": ${assetId}, "transaction_id": ${JSON.stringify(tx.id)}}`;
}

/**
 * One block of the block stream, with the key order and spacing of Planetmint's `json.dumps`
 * (docs/compatibility.md #26). A block without an app hash (a test's source) has an empty one.
 */
export function blockMessage(block: {
  readonly height: number;
  readonly appHash?: string;
  readonly txs: readonly { readonly id: string }[];
}): string {
  const ids = block.txs.map((tx) => JSON.stringify(tx.id)).join(", ");
  return `{"height": ${block.height}, "hash": ${JSON.stringify(block.appHash ?? "")}, "transaction_ids": [${ids}]}`;
}
