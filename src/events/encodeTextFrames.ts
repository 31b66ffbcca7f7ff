import { Buffer } from "node:buffer";

/**
 * Encodes messages as consecutive unfragmented, unmasked WebSocket text frames (RFC 6455 §5.2:
 * FIN and opcode 0x1; a server never masks). The stream encodes a block's events once and
 * writes the same bytes to every subscriber's socket, instead of framing each event once per
 * subscriber. Each message must already be valid UTF-8.
 */
export function encodeTextFrames(messages: readonly Uint8Array[]): Buffer {
  let total = 0;
  for (const message of messages) total += headerBytes(message.byteLength) + message.byteLength;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const message of messages) {
    const length = message.byteLength;
    out[at++] = 0x81; // FIN, text
    if (length < 126) {
      out[at++] = length;
    } else if (length < 0x10000) {
      out[at++] = 126;
      out.writeUInt16BE(length, at);
      at += 2;
    } else {
      out[at++] = 127;
      out.writeBigUInt64BE(BigInt(length), at);
      at += 8;
    }
    out.set(message, at);
    at += length;
  }
  return out;
}

/** Bytes of a frame header for a payload of `length` bytes: 7-bit, 16-bit or 64-bit length. */
function headerBytes(length: number): number {
  if (length < 126) return 2;
  return length < 0x10000 ? 4 : 10;
}
