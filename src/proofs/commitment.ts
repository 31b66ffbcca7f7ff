// The ledger commitment, version 1 (docs/proofs.md): what a block's app hash commits to.
//
// - A block tree (blockTree.ts): an RFC 9162 tree whose leaves are the block's valid
//   transactions in block order, each leaf's data `"T" || id` (the id's ASCII characters; an id is itself a hash of the
//   whole transaction).
// - The history tree: an RFC 9162 tree with one leaf per block that has a valid transaction,
//   each leaf's data `"B" || height (u64) || count (u32) || block root` (big-endian), so a
//   proof tells where the block is and how many transactions it holds.
// - The app hash: `SHA-256("ledgerd/app-hash/v1" || history size (u64) || history root)`, hex;
//   "" while the history is empty. A block without a valid transaction leaves it unchanged (as
//   BigchainDB's did): CometBFT makes a block whenever the app hash changes, so a hash that
//   moved on empty blocks would never let the chain rest.
//
// Leaf and node hashes are domain separated by RFC 9162's prefixes; the version is in the app
// hash preimage. Pure, no IO: the verifier (verify.ts) shares it.
import { toHex } from "./encoding.js";
import { leafHash, type Hash } from "./merkle.js";
import { sha256 } from "./sha256.js";

/** The commitment a chain uses: `bigchaindb` is BigchainDB 2.2.2's app hash (no proofs). */
export type CommitmentVersion = "bigchaindb" | "v1";
export const commitmentVersions: readonly CommitmentVersion[] = ["bigchaindb", "v1"];

const text = new TextEncoder();
const appHashTag = text.encode("ledgerd/app-hash/v1");

/** The leaf hash of a transaction in its block's tree. */
export function transactionLeaf(id: string): Hash {
  return leafHash(text.encode(`T${id}`));
}

/** A block's leaf data in the history tree (45 bytes): the entry a tile bundle holds. */
export function blockLeafData(height: number, count: number, root: Hash): Uint8Array {
  const data = new Uint8Array(1 + 8 + 4 + root.length);
  const view = new DataView(data.buffer);
  data[0] = 0x42; // "B"
  view.setBigUint64(1, BigInt(height));
  view.setUint32(9, count);
  data.set(root, 13);
  return data;
}

/** The leaf hash of a block in the history tree. */
export function blockLeaf(height: number, count: number, root: Hash): Hash {
  return leafHash(blockLeafData(height, count, root));
}

/** The app hash of a history of `size` blocks with this root (hex; "" when empty). */
export function appHashV1(size: number, historyRoot: Hash): string {
  if (size === 0) return "";
  const sizeBytes = new Uint8Array(8);
  new DataView(sizeBytes.buffer).setBigUint64(0, BigInt(size));
  return toHex(sha256(appHashTag, sizeBytes, historyRoot));
}
