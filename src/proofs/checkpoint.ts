// Checkpoints (docs/transparency.md "Checkpoints", after C2SP tlog-checkpoint): the body of a
// signed note that names a log (its origin), the size of its history tree and the tree's root in
// base64, one line each. ledgerd's history tree is an RFC 9162 tree (docs/proofs.md), so the
// checkpoint is a tree head any transparency-log client reads; its size and root are also the
// preimage of the app hash (commitment.ts), which ties a checkpoint to CometBFT's signed headers.
// Pure, no IO.
import { fromBase64, toBase64 } from "./encoding.js";
import type { Hash } from "./merkle.js";

export interface Checkpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Hash;
}

/** The checkpoint's note text: origin, size and root, each on its line; no extension lines. */
export function checkpointBody(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${toBase64(checkpoint.root)}\n`;
}

/**
 * A checkpoint's note text read back (extension lines ignored); null when the size is not a
 * decimal without leading zeroes within 2^53, or the root not 32 bytes of base64.
 */
export function parseCheckpointBody(body: string): Checkpoint | null {
  const lines = body.split("\n");
  if (lines.length < 4 || lines[lines.length - 1] !== "") return null;
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (origin === "" || !/^(0|[1-9][0-9]{0,15})$/.test(sizeText)) return null;
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) return null;
  let root: Uint8Array;
  try {
    root = fromBase64(rootText);
  } catch {
    return null;
  }
  return root.length === 32 ? { origin, size, root } : null;
}
