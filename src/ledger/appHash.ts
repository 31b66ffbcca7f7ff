import { createHash } from "node:crypto";

/**
 * The app hash after a block (docs/bigchaindb-behaviour.md §3, `end_block`):
 * `sha3_256_hex(previous + sha3_256_hex(concat(ids of the block's valid transactions)))`, and
 * unchanged when the block has no valid transaction. Before the first block it is "".
 */
export function nextAppHash(previous: string, txIds: readonly string[]): string {
  if (txIds.length === 0) return previous;
  const blockHash = createHash("sha3-256").update(txIds.join(""), "utf8").digest("hex");
  return createHash("sha3-256").update(previous + blockHash, "utf8").digest("hex");
}
