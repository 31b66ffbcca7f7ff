import { hash } from "node:crypto";

/** Hex SHA3-256 of a text's UTF-8 bytes, one-shot (cheaper than createHash for short texts). */
export function sha3Hex(text: string): string {
  return hash("sha3-256", text, "hex");
}
