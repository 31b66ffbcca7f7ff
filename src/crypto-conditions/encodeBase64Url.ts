import { Buffer } from "node:buffer";

/** Base64url without padding (RFC 4648 §5), the text form of fulfillments and fingerprints. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}
