// The body of a tlog-witness `add-checkpoint` request (docs/transparency.md "Witness"): an
// `old <size>` line, at most 63 consistency proof lines (a base64 hash each), a blank line, then
// the checkpoint as a signed note. Pure, no IO: it reads the text, the witness decides.
import { fromBase64 } from "./encoding.js";
import type { Hash } from "./merkle.js";

/** C2SP tlog-witness: "The client MUST NOT send more than 63 consistency proof lines." */
export const consistencyProofLinesMax = 63;

export interface AddCheckpointRequest {
  readonly oldSize: number;
  readonly proof: readonly Hash[];
  /** The checkpoint as sent: a signed note. */
  readonly note: string;
}

/** The request read, or the reason it cannot be (a 400). */
export function parseAddCheckpoint(body: string): AddCheckpointRequest | { readonly error: string } {
  const blank = body.indexOf("\n\n");
  if (blank < 0) return { error: "no blank line after the old size and the proof" };
  const lines = body.slice(0, blank).split("\n");
  const old = /^old (0|[1-9][0-9]{0,15})$/.exec(lines[0]!);
  if (old === null) return { error: "the first line is not `old <size>` (a decimal without leading zeroes)" };
  const oldSize = Number(old[1]);
  if (!Number.isSafeInteger(oldSize)) return { error: "the old size is past 2^53" };
  const proofLines = lines.slice(1);
  if (proofLines.length > consistencyProofLinesMax) return { error: `more than ${consistencyProofLinesMax} consistency proof lines` };
  const proof: Hash[] = [];
  for (const line of proofLines) {
    let hash: Uint8Array;
    try {
      hash = fromBase64(line);
    } catch {
      return { error: "a consistency proof line is not base64" };
    }
    if (hash.length !== 32 || !/^[A-Za-z0-9+/]{43}=$/.test(line)) return { error: "a consistency proof line is not a 32-byte hash in base64" };
    proof.push(hash);
  }
  return { oldSize, proof, note: body.slice(blank + 2) };
}
