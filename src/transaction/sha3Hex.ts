// SHA3-256 for transaction ids. The client checks ids in browsers with this code, so the module
// imports nothing of Node's: where the runtime offers `node:crypto` (Node, through
// `process.getBuiltinModule`), its one-shot hash (the node hashes every transaction it reads);
// elsewhere @noble/hashes, as src/proofs/sha256.ts does for SHA-256.
import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

// What this module uses of Node, typed here: the explorer's build has no Node types.
type OneShotHash = (algorithm: "sha3-256", data: string, outputEncoding: "hex") => string;
const node = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
const nodeHash = (node.process?.getBuiltinModule?.("node:crypto") as { hash?: OneShotHash } | undefined)?.hash;

/** Hex SHA3-256 of a text's UTF-8 bytes, in JavaScript (any runtime). */
export function sha3HexJs(text: string): string {
  return bytesToHex(sha3_256(utf8ToBytes(text)));
}

/** Hex SHA3-256 of a text's UTF-8 bytes, one-shot (cheaper than createHash for short texts). */
export const sha3Hex: (text: string) => string = nodeHash === undefined ? sha3HexJs : (text) => nodeHash("sha3-256", text, "hex");
