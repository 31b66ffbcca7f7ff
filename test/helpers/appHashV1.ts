// A second, plain reading of docs/proofs.md's app hash rule v1, written apart from
// src/proofs/ (node:crypto, the tree by its recursive definition), so that tests compare the
// ledger's app hashes with the document's, not with the ledger's own code.
import { createHash } from "node:crypto";

const sha = (...parts: (Buffer | string)[]): Buffer => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};

/** RFC 9162 MTH of leaf data, by definition. */
export function mth(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return sha(Buffer.of(0), leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** The app hashes of a v1 chain, block by block. */
export class V1Chain {
  private readonly blockLeaves: Buffer[] = [];
  private hash = "";

  /** The app hash after a block of `height` with these valid ids (unchanged with none). */
  next(height: number, ids: readonly string[]): string {
    if (ids.length === 0) return this.hash;
    const root = mth(ids.map((id) => Buffer.from(`T${id}`, "ascii")));
    const data = Buffer.alloc(13);
    data.write("B", 0, "ascii");
    data.writeBigUInt64BE(BigInt(height), 1);
    data.writeUInt32BE(ids.length, 9);
    this.blockLeaves.push(Buffer.concat([data, root]));
    const size = Buffer.alloc(8);
    size.writeBigUInt64BE(BigInt(this.blockLeaves.length));
    this.hash = sha("ledgerd/app-hash/v1", size, mth(this.blockLeaves)).toString("hex");
    return this.hash;
  }
}
