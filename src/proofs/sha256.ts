// SHA-256 for the proofs. The verifier shares this code and runs in a browser, so the module
// imports nothing of Node's: where the runtime offers `node:crypto` (Node, through
// `process.getBuiltinModule`), its one-shot hash; elsewhere @noble/hashes (pure JavaScript,
// audited). Both give the same bytes (test/unit/proofs/sha256.test.ts). On a node hash (65 bytes
// in three parts) the one-shot hash took 0.4 to 0.6 of noble's time (BENCHMARKS.md, issue #18):
// the node hashes two to three times per committed transaction on its main thread.
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

// What this module uses of Node, typed here: the explorer's build (explorer/tsconfig.json) has
// no Node types, and this file is part of it.
type OneShotHash = (algorithm: "sha256", data: Uint8Array, outputEncoding: "buffer") => Uint8Array;
type NodeGlobals = {
  process?: { getBuiltinModule?: (id: string) => unknown };
  Buffer?: { concat: (parts: readonly Uint8Array[]) => Uint8Array };
};
const node = globalThis as NodeGlobals;
const nodeHash = (node.process?.getBuiltinModule?.("node:crypto") as { hash?: OneShotHash } | undefined)?.hash;
const concat = node.Buffer?.concat.bind(node.Buffer);

/** SHA-256 of the parts, concatenated, in JavaScript (any runtime). */
export function sha256Js(...parts: Uint8Array[]): Uint8Array {
  const hash = nobleSha256.create();
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** SHA-256 of the parts, concatenated, with node:crypto (Node only). */
function sha256Node(...parts: Uint8Array[]): Uint8Array {
  // Buffer.concat's pooled copy then one call beat a streaming createHash by half (measured).
  // The digest has an ArrayBuffer of its own; a plain view of it, as noble gives, compares
  // equal to the hashes the rest of the code makes.
  return new Uint8Array(nodeHash!("sha256", concat!(parts), "buffer").buffer);
}

/** SHA-256 of the parts, concatenated. */
export const sha256: (...parts: Uint8Array[]) => Uint8Array = nodeHash !== undefined && concat !== undefined ? sha256Node : sha256Js;

/** Which implementation `sha256` is (tests). */
export const sha256Implementation: "node:crypto" | "javascript" = sha256 === sha256Node ? "node:crypto" : "javascript";
