/** The DER encoding of one element: identifier octet, minimal definite length, contents. */
export function derTlv(tag: number, ...contents: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of contents) length += part.length;
  let lengthOctets = 0;
  if (length >= 0x80) for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthOctets++;
  const out = new Uint8Array(2 + lengthOctets + length);
  out[0] = tag;
  if (lengthOctets === 0) {
    out[1] = length;
  } else {
    out[1] = 0x80 | lengthOctets;
    for (let i = lengthOctets, rest = length; i >= 1; i--, rest = Math.floor(rest / 256)) {
      out[1 + i] = rest % 256;
    }
  }
  let offset = 2 + lengthOctets;
  for (const part of contents) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
